// What one profiled run (RunContext::Run with a RunProfile) shows a person
// chasing a slow model: a summary with a one-line verdict, and a Chrome
// trace that Perfetto (ui.perfetto.dev) and chrome://tracing open.
#ifndef TESSERA_APP_PROFILE_REPORT_HPP_
#define TESSERA_APP_PROFILE_REPORT_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

struct ProfileSummary {
  double total_us = 0;  // host time of the whole run
  struct Device {
    std::string vendor;
    size_t steps = 0;
    double host_us = 0;     // summed host time of its invokes
    double modeled_us = 0;  // summed `time_us` metrics (device time by the plugin's model); 0 when none reported
    double cycles = 0;      // summed `cycles_total` metrics (docs/abi.md §11); 0 when none reported
  };
  std::vector<Device> devices;  // by host time, largest first
  size_t conversions = 0;
  uint64_t conversion_bytes = 0;
  double conversion_us = 0;
  // Host time outside every invoke and conversion: copying inputs in and
  // outputs out, and the runtime's own bookkeeping.
  double runtime_us = 0;
  struct Step {
    size_t partition = 0;  // index in RunProfile::steps
    std::string vendor;
    std::string ops;  // "MATMUL, SOFTMAX, MATMUL" (op types, from the partition report), or op ids
    double host_us = 0;
    double share = 0;  // of total_us
  };
  std::vector<Step> top;  // the steps with the most host time, largest first
  // From RunProfile::modeled when available: the share of the modelled
  // run spent in transfers and in per-partition dispatch overhead.
  double modeled_transfer_share = -1, modeled_dispatch_share = -1;
  std::string verdict;  // one line: "fragmented: ...", "compute-bound on ...", ...
};

// `model` is the one the run used: it names the op types of each step.
ProfileSummary SummarizeProfile(const RunProfile& profile, const CompiledModel& model, size_t top_steps = 5);
// The summary as a table: time per device, transfer share, top steps, verdict.
std::string FormatProfileSummary(const ProfileSummary& summary);

// Chrome trace event JSON (the "JSON Object Format"): one track per device
// with a complete event per partition invoke (its op types, entry point and
// metrics as args), a track per device that reports modelled device time
// (`time_us`) drawn beside its host time, a track of buffer conversions
// (the copies between memories, with their bytes), and instant events for
// retries and cpu fallbacks. Timestamps are microseconds from the run's
// start.
std::string ChromeTraceJson(const RunProfile& profile, const CompiledModel& model);

}  // namespace tessera::app

#endif  // TESSERA_APP_PROFILE_REPORT_HPP_
