// No cold-start trap: a JIT model answers from its first run.
// Start() compiles a cpu-only plan (cheap: the cpu compiles by reference to
// the graph) and returns; the full JIT compile for the requested
// accelerators proceeds on one worker thread. Each Run() takes the plan
// that is current when it starts and keeps it to its end, so the switch to
// the accelerated plan happens at a run boundary, never mid-run.
//
// A background compile that fails leaves the model on the cpu plan, with
// the reason in accelerated_status(); the runs never fail because of it.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_BACKGROUND_WARMUP_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_BACKGROUND_WARMUP_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"

namespace tessera {

// Which plan a run used.
enum class WarmupPlan { kCpu, kAccelerated };
const char* WarmupPlanName(WarmupPlan plan);  // "cpu", "accelerated"

struct WarmupHooks {
  // Called on the worker before the accelerated compile starts; tests
  // block it on a latch to hold the compile until some cpu runs happened.
  std::function<void()> before_accelerated_compile;
};

class BackgroundWarmup {
 public:
  // `options.mode` must be JIT (an AOT model is compiled once, or cached).
  // `registry` must outlive the returned object.
  static absl::StatusOr<std::unique_ptr<BackgroundWarmup>> Start(const Graph& graph, const PluginRegistry& registry,
                                                                 const CompileOptions& options,
                                                                 const RuntimeOptions& runtime, WarmupHooks hooks = {});
  ~BackgroundWarmup();  // waits for the worker
  BackgroundWarmup(const BackgroundWarmup&) = delete;
  BackgroundWarmup& operator=(const BackgroundWarmup&) = delete;

  // Runs on the current plan; `*used` (optional) says which.
  absl::StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs,
                                              ExecutionProfile* profile = nullptr, WarmupPlan* used = nullptr);
  // ExecutionContext::RunInto on the current plan: the caller's buffers.
  absl::Status RunInto(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs,
                       ExecutionProfile* profile = nullptr, WarmupPlan* used = nullptr);

  bool accelerated_ready() const;
  // Blocks until the background compile has finished (either way); its
  // result: OK when runs now use the accelerated plan.
  absl::Status WaitForAccelerated() const;
  // The accelerated compile: available once it has finished successfully.
  const CompiledGraph* accelerated_model() const;
  const CompiledGraph& cpu_model() const { return cpu_model_; }
  const ModelExecutor& cpu_executor() const { return *cpu_executor_; }
  // The accelerated executor, or nullptr before it is ready.
  std::shared_ptr<ModelExecutor> accelerated_executor() const;

 private:
  BackgroundWarmup() = default;
  void CompileAccelerated(Graph graph, const PluginRegistry* registry, CompileOptions options, RuntimeOptions runtime,
                          WarmupHooks hooks);

  CompiledGraph cpu_model_;
  std::unique_ptr<ModelExecutor> cpu_executor_;
  mutable std::mutex lock_;
  mutable std::condition_variable done_;
  bool finished_ = false;                                // guarded by lock_
  absl::Status accelerated_status_;                      // guarded by lock_
  std::unique_ptr<CompiledGraph> accelerated_model_;     // set once under lock_, then read-only
  std::shared_ptr<ModelExecutor> accelerated_executor_;  // guarded by lock_
  std::thread worker_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_BACKGROUND_WARMUP_H_
