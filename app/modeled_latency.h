// The modelled latency of a run as it happened, beside the partitioner's
// estimate of it (a cost model that lies must be caught). Device time
// comes from each step's own metrics (time_us, which the systolic NPU's
// cycle model reports), the CPU model for steps without one; the transfers
// are priced from the tensors that actually crossed between the executed
// steps; dispatch overhead is the SoC's, once per step run. Internal to
// the app library: apps read RunProfile::modeled.
#ifndef TESSERA_APP_MODELED_LATENCY_H_
#define TESSERA_APP_MODELED_LATENCY_H_

#include "compile/compiled_model.h"
#include "run_context.h"
#include "tessera/app/tessera.hpp"

namespace tessera::app {

// available = false for a model compiled elsewhere (no plan to compare against).
RunProfile::ModeledLatency ModeledLatencyOf(const tessera::CompiledModel& model, const tessera::RunProfile& profile);

}  // namespace tessera::app

#endif  // TESSERA_APP_MODELED_LATENCY_H_
