// The modelled latency of a run as it happened, beside the partitioner's
// estimate of it (a cost model that lies must be caught). Device time
// comes from each step's own metrics (time_us, which the systolic NPU's
// cycle model reports), the CPU model for steps without one; the transfers
// are priced from the tensors that cross between the executed graph's
// steps; dispatch overhead is the SoC's, once per step run. Internal to
// the app library: apps read RunProfile::modeled.
#ifndef TESSERA_FRAMEWORK_APP_MODELED_LATENCY_H_
#define TESSERA_FRAMEWORK_APP_MODELED_LATENCY_H_

#include <cstdint>
#include <unordered_map>

#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compiled_graph.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

// Everything about a compiled model that its runs are priced with, worked
// out once when it is compiled: parsing the SoC description and building
// the plan's cost model per profiled run would cost more than the run.
class RunLatencyModel {
 public:
  // Not available for a model compiled elsewhere: no plan to compare with.
  RunLatencyModel() = default;
  explicit RunLatencyModel(const tessera::CompiledGraph& model);

  RunProfile::ModeledLatency Of(const tessera::ExecutionProfile& profile) const;

 private:
  struct StepCost {
    double overhead_us = 0;  // the SoC's dispatch figure for the step's vendor
    double cpu_us = 0;       // the CPU model's time for its source ops, when it reports none
  };
  bool available_ = false;
  double estimated_us_ = 0;
  double transfer_us_ = 0;
  std::unordered_map<uint32_t, StepCost> steps_;  // by DISPATCH op id
};

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_MODELED_LATENCY_H_
