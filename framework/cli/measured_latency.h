// The modelled latency of a run as it happened, beside the partitioner's
// estimate of it (issue: a cost model that lies must be caught). Device
// time comes from each step's own metrics (time_us, which the systolic
// NPU's cycle model reports), the CPU model for steps without one; the
// transfers are priced from the tensors that actually crossed between the
// executed steps; dispatch overhead is the SoC's, once per step run.
#ifndef TESSERA_FRAMEWORK_CLI_MEASURED_LATENCY_H_
#define TESSERA_FRAMEWORK_CLI_MEASURED_LATENCY_H_

#include <optional>

#include "base/json_writer.h"
#include "compile/compiled_model.h"
#include "run_context.h"

namespace tessera::cli {

struct MeasuredLatency {
  double estimated_us = 0;      // the partitioner's figure for the compiled plan
  double device_us = 0, dispatch_us = 0, transfer_us = 0;
  double measured_us() const { return device_us + dispatch_us + transfer_us; }
  size_t steps = 0;
  size_t steps_with_device_time = 0;  // steps whose plugin reported time_us
};

// nullopt for a model compiled elsewhere (no plan to compare against).
std::optional<MeasuredLatency> MeasureModeledLatency(const CompiledModel& model, const RunProfile& profile);

void WriteMeasuredLatencyJson(const MeasuredLatency& m, JsonWriter& j);  // one object
std::string FormatMeasuredLatency(const MeasuredLatency& m);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_MEASURED_LATENCY_H_
