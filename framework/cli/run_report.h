// Printing a run: outputs (values and summary statistics), per-partition
// timings and metrics, and buffer conversions, as text or JSON.
#ifndef TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_
#define TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_

#include <string>
#include <vector>

#include "base/json_writer.h"
#include "model_executor.h"
#include "graph/host_tensor.h"

namespace tessera::cli {

struct TensorSummary {
  int64_t elements = 0;
  double min = 0, max = 0, mean = 0;
  bool has_nan = false;
};
TensorSummary Summarize(const HostTensor& t);
double ElementAsDouble(const HostTensor& t, int64_t i);

void WriteOutputsJson(const std::vector<HostTensor>& outputs, JsonWriter& j, size_t max_values);
void WriteProfileJson(const RunProfile& profile, JsonWriter& j);  // "partitions", "conversions", "total_us"
std::string FormatOutputs(const std::vector<HostTensor>& outputs, size_t max_values);
std::string FormatProfile(const RunProfile& profile);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_RUN_REPORT_H_
