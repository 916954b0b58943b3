// Printing a run: outputs (values and summary statistics), per-partition
// timings and metrics, buffer conversions, and the modelled latency, as
// text or JSON. Over the app API's types (tessera/app/tessera_app.hpp).
#ifndef TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_
#define TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/core/base/element_value.h"
#include "framework/core/base/json_writer.h"
#include "tessera/app/profile_report.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

struct TensorSummary {
  int64_t elements = 0;
  double min = 0, max = 0, mean = 0;
  bool has_nan = false;
};
TensorSummary Summarize(const app::Tensor& t);
// Element i of an app tensor, as a double (base/element_value.h).
inline double ElementAsDouble(const app::Tensor& t, int64_t i) {
  return tessera::ElementAsDouble(t.info().dtype, t.data(), i);
}

void WriteOutputsJson(const std::vector<app::Tensor>& outputs, JsonWriter& j, size_t max_values);
void WriteProfileJson(const app::RunProfile& profile, JsonWriter& j);  // "partitions", "conversions", "total_us"
std::string FormatOutputs(const std::vector<app::Tensor>& outputs, size_t max_values);
std::string FormatProfile(const app::RunProfile& profile);

// RunProfile's NaN/infinity scan: "nonfinite": {"checked", "inputs_finite",
// "from_finite_inputs", "outputs": [{"index", "name", "nan", "inf"}]}, and
// its text line ("" when no output holds one).
void WriteNonFiniteJson(const app::RunProfile& profile, JsonWriter& j);
std::string FormatNonFinite(const app::RunProfile& profile);
// An error when an output holds a NaN or infinity although every input was
// finite (run --check, --strict); OK otherwise.
absl::Status CheckNonFinite(const app::RunProfile& profile, const char* flag);

// SummarizeProfile's figures and verdict, as one object (`run --json --profile`).
void WriteProfileSummaryJson(const app::ProfileSummary& summary, JsonWriter& j);

// RunProfile::modeled, when available: one object / one line.
void WriteModeledLatencyJson(const app::RunProfile::ModeledLatency& m, JsonWriter& j);
std::string FormatModeledLatency(const app::RunProfile::ModeledLatency& m);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_
