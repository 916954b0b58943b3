// `tessera bench [--concurrency N]`: N threads (1 by default) run one
// compiled model at once, each through its own app::RunContext (its own
// buffers and invocations), and every output is compared with the
// single-threaded answer.
#ifndef TESSERA_FRAMEWORK_CLI_CONCURRENT_RUNS_H_
#define TESSERA_FRAMEWORK_CLI_CONCURRENT_RUNS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

struct ConcurrentRuns {
  int concurrency = 0;
  int runs = 0;                  // over all threads
  double wall_us = 0;            // first start to last finish
  std::vector<double> latency_us;// every run's latency
  int mismatches = 0;            // runs whose outputs differ from `want`
};

// Each of `concurrency` threads makes a RunContext, runs `warmup` untimed
// runs, then `reps` timed runs of `inputs`; every run's outputs are compared
// byte for byte with `want`. A failed run fails the whole measurement.
absl::StatusOr<ConcurrentRuns> RunConcurrently(const app::CompiledModel& model, const std::vector<app::Tensor>& inputs,
                                               const std::vector<app::Tensor>& want, int concurrency, int warmup,
                                               int reps);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_CONCURRENT_RUNS_H_
