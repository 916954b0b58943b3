// What the public handles of tessera_app.hpp hold, and the one conversion from
// the framework's absl::Status to the app's Status. Internal: never
// installed, never included by apps.
#ifndef TESSERA_FRAMEWORK_APP_APP_INTERNAL_H_
#define TESSERA_FRAMEWORK_APP_APP_INTERNAL_H_

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dispatch/execution_context.h"
#include "dispatch/loaded_model.h"
#include "framework/app/async_run.h"
#include "framework/app/modeled_latency.h"
#include "framework/compiler/compile/background_warmup.h"
#include "framework/compiler/compile/cached_compile.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/compiler/quantize/post_training_quantization.h"
#include "framework/compiler/report/partition_report.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"
#include "framework/loader/plugin_registry.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

Status FromAbsl(const absl::Status& status);

// The one crossing between the app's tensors and the framework's host
// tensors. To the framework: a copy of the tensor's dense bytes (its shape's
// byte size). From it: the bytes move into the app tensor, no copy.
HostTensor ToHostTensor(const Tensor& tensor);
Tensor FromHostTensor(HostTensor&& tensor);
struct TensorAccess {
  static Tensor Own(TensorInfo info, std::shared_ptr<std::vector<uint8_t>> owned, void* data, size_t size) {
    return Tensor(std::move(info), std::move(owned), data, size);
  }
  // The shared owner of an Allocate()d tensor's memory; null for a Wrap()ped
  // one (the caller's memory). RunAsync holds it until the run ends.
  static const std::shared_ptr<std::vector<uint8_t>>& Owner(const Tensor& tensor) { return tensor.owned_; }
};
std::vector<TensorInfo> TensorInfos(const tessera::Graph& graph, const std::vector<int32_t>& tensors);

struct Environment::Impl {
  EnvironmentOptions options;
  std::string soc_directory;  // resolved
  // Made on first use: running a compiled model opens dispatch libraries
  // only; the first compile opens the compilers too.
  mutable std::mutex lock;
  mutable std::unique_ptr<PluginRegistry> runtime_registry, full_registry;
  const PluginRegistry& Registry(bool with_compilers) const;
};

struct Model::Impl {
  tessera::Graph graph;
  tessera::Budgets budgets;  // LoadOptions::budgets over the defaults; compiling reads max_partition_count
  double load_ms = 0;
  std::vector<Model::OptimizationPass> optimizations;
};

// True when every op is a DISPATCH op: an AOT-compiled model.
bool IsCompiledGraph(const tessera::Graph& graph);

struct CompiledModel::Impl {
  tessera::CompiledGraph compiled;
  std::shared_ptr<const Environment::Impl> environment;  // keeps the registry alive
  // background_warmup: the cpu plan (`loaded` is its model) and the worker.
  // Declared before `loaded`, so it is destroyed after it.
  std::shared_ptr<BackgroundWarmup> warmup;
  std::shared_ptr<const LoadedModel> loaded;
  bool precompiled = false;
  std::vector<std::string> ignored_options;  // CompiledModel::ignored_options()
  PartitionReport report;
  tessera::PartitionReport internal_report;  // what the JSON and text are written from
  std::optional<quantize::PtqModel> ptq;     // CompileOptions::quantize
  size_t cpu_plan_count = 0;
  std::vector<std::string> cpu_plan_notes;
  RunLatencyModel latency;                           // prices profiled runs (RunProfile::modeled)
  tessera::CompileCacheReport cache_report;          // what cache_info_json() writes
  CompileCacheInfo cache;                            // cache_report for the app
  std::vector<BytecodeCompatibility> compatibility;  // from `loaded`
  // background_warmup: the accelerated plan's verdicts, once it is ready.
  mutable std::once_flag accelerated_compatibility_once;
  mutable std::vector<BytecodeCompatibility> accelerated_compatibility;
  // background_warmup: the accelerated plan's partition report, once it is
  // ready (AcceleratedReport() builds it).
  mutable std::once_flag accelerated_report_once;
  mutable tessera::PartitionReport accelerated_internal_report;
  mutable PartitionReport accelerated_report;
  // The accelerated plan's report once a background warm-up has switched
  // to it, else nullptr.
  const tessera::PartitionReport* AcceleratedReport() const;
  // A precompiled model, a cache hit and a warm-up's cpu plan were not
  // partitioned here: they report no partitioning (see the report's users).
  // A warm-up that has switched reports its accelerated plan's.
  bool NoPartitioningHere() const {
    return precompiled || cache_report.hit || (warmup != nullptr && AcceleratedReport() == nullptr);
  }
  // The report the JSON, text and picture are written from.
  const tessera::PartitionReport& InternalReport() const {
    const tessera::PartitionReport* accelerated = AcceleratedReport();
    return accelerated != nullptr ? *accelerated : internal_report;
  }
};

struct RunContext::Impl {
  // One call at a time per context: every call that sets the views or
  // uses `context` (Run, RunInto, RunAsync's start, Bind, Unbind,
  // RunBound, tsr_app_run) holds it, so a context shared between threads
  // serializes its runs instead of mixing their buffers (docs/app-guide.md).
  // An asynchronous run does not hold it while it runs: CheckIdle, under
  // it, refuses every other call until Wait collected the run.
  std::mutex run_lock;
  std::shared_ptr<const CompiledModel::Impl> model;  // keeps the loaded model and its JIT handles alive
  std::unique_ptr<tessera::ExecutionContext> context;
  // The buffers of the run in progress, one per graph input/output. Sized
  // once at Create and overwritten per run, so a run allocates no list.
  std::vector<std::span<const uint8_t>> input_views;
  std::vector<std::span<uint8_t>> output_views;
  // Runs on the views (RunInto's and tsr_app_run's one path); the profile
  // is translated only when asked for.
  Status RunViews(RunProfile* profile, const RunOptions* options = nullptr);
  // RunBound's: the bound buffers instead of the views.
  Status RunBoundBuffers(RunProfile* profile);
  // The runtime's profile in the app's terms.
  void Translate(const tessera::ExecutionProfile& internal, WarmupPlan used, RunProfile* profile) const;
  // An asynchronous run in flight owns the views: every other run waits
  // its turn (FAILED_PRECONDITION until Wait collected it).
  Status CheckIdle(const char* call) const;
  // The one start of RunAsync and tsr_app_run_async, once the views are set
  // (under run_lock): the run holds the shared owners of `inputs` and
  // `outputs` (Allocate()d tensors) until it ends; the C API passes none.
  void StartAsync(RunProfile* profile, std::span<const Tensor> inputs = {}, std::span<const Tensor> outputs = {});
  Status WaitAsync(uint64_t timeout_ns);
  // RunAsync's worker, made on the first RunAsync; declared last, so it is
  // joined before the context it runs on goes.
  std::unique_ptr<AsyncRunner> async;
};
// tsr_app_run's way to the views: it holds raw pointers, not Tensors.
struct RunContextAccess {
  static RunContext::Impl* Of(RunContext& context) { return context.impl_.get(); }
};

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_APP_INTERNAL_H_
