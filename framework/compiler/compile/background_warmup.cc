#include "framework/compiler/compile/background_warmup.h"

#include "absl/strings/str_cat.h"
#include "framework/core/base/status_macros.h"
#include "framework/loader/plugin_registry.h"

namespace tessera {

const char* WarmupPlanName(WarmupPlan plan) { return plan == WarmupPlan::kCpu ? "cpu" : "accelerated"; }

absl::StatusOr<std::unique_ptr<BackgroundWarmup>> BackgroundWarmup::Start(const Graph& graph,
                                                                          const PluginRegistry& registry,
                                                                          const CompileOptions& options,
                                                                          const RuntimeOptions& runtime,
                                                                          WarmupHooks hooks) {
  if (options.mode != CompileMode::kJit)
    return absl::InvalidArgumentError(
        "background warm-up is for JIT compiles (--mode jit): an AOT model is compiled once, or taken from the cache");
  std::unique_ptr<BackgroundWarmup> w(new BackgroundWarmup());
  const CompilerPluginLibrary* fallback = FallbackCompiler(registry);
  if (fallback == nullptr)
    return absl::FailedPreconditionError(
        "background warm-up runs a fallback plan first, and no fallback compiler is loaded (see `tessera plugins`)");
  CompileOptions cpu = options;
  cpu.accelerators = {fallback->vendor};
  cpu.partitioning.policy = PartitionPolicy::kCpu;
  ASSIGN_OR_RETURN(w->cpu_model_, CompileGraph(graph, registry, cpu));
  ASSIGN_OR_RETURN(w->cpu_executor_,
                   ModelExecutor::Create(w->cpu_model_.graph, w->cpu_model_.jit_slots, registry, runtime));
  w->worker_ =
      std::thread(&BackgroundWarmup::CompileAccelerated, w.get(), graph, &registry, options, runtime, std::move(hooks));
  return w;
}

BackgroundWarmup::~BackgroundWarmup() {
  if (worker_.joinable()) worker_.join();
}

void BackgroundWarmup::CompileAccelerated(Graph graph, const PluginRegistry* registry, CompileOptions options,
                                          RuntimeOptions runtime, WarmupHooks hooks) {
  if (hooks.before_accelerated_compile) hooks.before_accelerated_compile();
  absl::Status status;
  auto model = std::make_unique<CompiledGraph>();
  std::shared_ptr<ModelExecutor> executor;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, *registry, options);
  if (compiled.ok()) {
    *model = *std::move(compiled);
    absl::StatusOr<std::unique_ptr<ModelExecutor>> made =
        ModelExecutor::Create(model->graph, model->jit_slots, *registry, runtime);
    if (made.ok())
      executor = std::shared_ptr<ModelExecutor>(*std::move(made));
    else
      status = made.status();
  } else {
    status = compiled.status();
  }
  std::lock_guard<std::mutex> guard(lock_);
  if (status.ok()) {
    accelerated_model_ = std::move(model);
    accelerated_executor_ = std::move(executor);
  } else {
    accelerated_status_ = absl::Status(status.code(), absl::StrCat("the background compile failed; runs stay on the "
                                                                   "cpu plan: ",
                                                                   status.message()));
  }
  finished_ = true;
  done_.notify_all();
}

absl::StatusOr<std::vector<HostTensor>> BackgroundWarmup::Run(const std::vector<HostTensor>& inputs,
                                                              ExecutionProfile* profile, WarmupPlan* used) {
  // The plan is chosen once, here: a switch can only happen between runs.
  std::shared_ptr<ModelExecutor> accelerated = accelerated_executor();
  if (used != nullptr) *used = accelerated ? WarmupPlan::kAccelerated : WarmupPlan::kCpu;
  if (accelerated) return accelerated->Run(inputs, profile);
  return cpu_executor_->Run(inputs, profile);
}

absl::Status BackgroundWarmup::RunInto(std::span<const std::span<const uint8_t>> inputs,
                                       std::span<const std::span<uint8_t>> outputs, ExecutionProfile* profile,
                                       WarmupPlan* used) {
  // As Run: the plan is chosen once, here.
  std::shared_ptr<ModelExecutor> accelerated = accelerated_executor();
  if (used != nullptr) *used = accelerated ? WarmupPlan::kAccelerated : WarmupPlan::kCpu;
  if (accelerated) return accelerated->RunInto(inputs, outputs, profile);
  return cpu_executor_->RunInto(inputs, outputs, profile);
}

bool BackgroundWarmup::accelerated_ready() const { return accelerated_executor() != nullptr; }

std::shared_ptr<ModelExecutor> BackgroundWarmup::accelerated_executor() const {
  std::lock_guard<std::mutex> guard(lock_);
  return accelerated_executor_;
}

absl::Status BackgroundWarmup::WaitForAccelerated() const {
  std::unique_lock<std::mutex> guard(lock_);
  done_.wait(guard, [this] { return finished_; });
  return accelerated_status_;
}

const CompiledGraph* BackgroundWarmup::accelerated_model() const {
  std::lock_guard<std::mutex> guard(lock_);
  return accelerated_model_.get();
}

}  // namespace tessera
