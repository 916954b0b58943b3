// CompiledModel: "compile unless compiled", then loaded into the dispatch
// libraries once, shared by every RunContext made from it.
#include "app_internal.h"
#include "base/install_layout.h"
#include <iostream>

#include "compile/cached_compile.h"
#include "compile/compile_driver.h"
#include "model/compiled_target.h"
#include "model/model_writer.h"
#include "partition/partition_report.h"

namespace tessera::app {
namespace {

PartitionReport ToPublic(const tessera::PartitionReport& r) {
  PartitionReport out;
  out.accelerators = r.accelerators;
  out.mode = r.mode;
  out.soc = r.soc;
  out.op_count = r.op_count;
  out.cut_bytes = r.cut_bytes;
  for (const ReportedPartition& p : r.partitions)
    out.partitions.push_back({p.vendor, p.op_ids, p.op_types, p.input_bytes, p.output_bytes});
  for (const ReportedCut& c : r.cuts) out.cuts.push_back({c.tensor, c.bytes, c.from_vendor, c.to_vendor});
  for (const ReportedPlacement& f : r.fallbacks) {
    PartitionReport::Fallback fb{f.op_id, f.op_type, f.vendor, {}};
    for (const ReportedRefusal& refusal : f.refused_by) fb.refused_by.push_back({refusal.vendor, refusal.reason, refusal.detail});
    out.fallbacks.push_back(std::move(fb));
  }
  out.policy = r.policy;
  out.modeled_latency_us = r.modeled_latency_us;
  out.modeled_latency_us_cpu_only = r.modeled_latency_us_cpu_only;
  out.modeled_latency_us_greedy = r.modeled_latency_us_greedy;
  out.transfer_us = r.transfer_us;
  out.conversion_count = r.conversions.size();
  return out;
}

// Cache lines go where the environment sends plugin log lines (vendor
// "tessera"), filtered by the same level.
CompileCacheLog CacheLogOf(const EnvironmentOptions& options) {
  return [options](CompileCacheLogLevel level, const std::string& line) {
    const LogLevel as = level == CompileCacheLogLevel::kWarning ? LogLevel::kWarning : LogLevel::kInfo;
    if (as < options.log_level) return;
    if (options.log_sink) options.log_sink("tessera", as, line);
    else std::cerr << "tessera: " << line << "\n";
  };
}

CompileCacheInfo ToPublic(const CompileCacheReport& r) {
  return {r.enabled, r.disabled_reason, r.key, r.hit, r.counters.hits, r.counters.misses, r.counters.invalidations,
          r.counters.evictions};
}

}  // namespace

Result<CompiledModel> CompiledModel::Compile(const Environment& environment, const Model& model,
                                             const CompileOptions& options) {
  auto impl = std::make_shared<Impl>();
  impl->environment = environment.impl();
  tessera::CompileOptions internal;
  if (!options.accelerators.empty()) internal.accelerators = options.accelerators;
  internal.mode = options.mode == CompileMode::kJit ? tessera::CompileMode::kJit : tessera::CompileMode::kAot;
  internal.plugin_options = options.plugin_options;
  absl::StatusOr<PartitionPolicy> policy = ParsePartitionPolicy(options.policy);
  if (!policy.ok()) return FromAbsl(policy.status());
  if (options.min_ops < 0 || options.max_partitions < 0)
    return Status(TSR_INVALID_ARGUMENT, "min_ops and max_partitions must not be negative");
  internal.partitioning = {*policy, options.min_ops, options.max_partitions};
  internal.budgets = model.impl()->budgets;
  if (!options.soc.empty()) {
    absl::StatusOr<SocSelection> soc = FindSoc(options.soc, impl->environment->soc_directory);
    if (!soc.ok()) return FromAbsl(soc.status());
    internal.soc = *std::move(soc);
  }
  const tessera::Graph& graph = model.impl()->graph;
  impl->precompiled = model.is_compiled();
  // A compiled model needs dispatch libraries only: no compiler is opened.
  const PluginRegistry& registry = impl->environment->Registry(/*with_compilers=*/!impl->precompiled);
  if (options.background_warmup && !impl->precompiled) {
    if (options.mode != CompileMode::kJit)
      return Status(TSR_INVALID_ARGUMENT,
                    "background_warmup needs CompileMode::kJit (an AOT model is compiled once, or taken from the cache)");
    absl::StatusOr<std::unique_ptr<BackgroundWarmup>> warm =
        BackgroundWarmup::Start(graph, registry, internal, {internal.soc, internal.plugin_options});
    if (!warm.ok()) return FromAbsl(warm.status());
    CompileCacheReport bypass;
    ReportJitCacheBypass({options.cache_dir}, CacheLogOf(impl->environment->options), &bypass);
    impl->cache = ToPublic(bypass);
    impl->warmup = *std::move(warm);
    impl->compiled.graph = impl->warmup->cpu_model().graph;
    impl->compiled.source = graph;
    impl->compiled.mode = tessera::CompileMode::kJit;
    impl->loaded = impl->warmup->cpu_executor().model();
    return CompiledModel(std::move(impl));
  }
  if (impl->precompiled) {
    if (absl::Status target = CheckCompiledTarget(graph, internal.soc.name); !target.ok()) return FromAbsl(target);
    impl->compiled.graph = graph;
    impl->compiled.source = graph;
    impl->compiled.soc = internal.soc;
  } else {
    CompileCacheOptions cache{options.cache_dir};
    if (options.cache_max_bytes != 0) cache.max_bytes = options.cache_max_bytes;
    CompileCacheReport cache_report;
    absl::StatusOr<tessera::CompiledModel> compiled =
        CompileWithCache(graph, registry, internal, cache, CacheLogOf(impl->environment->options), &cache_report);
    if (!compiled.ok()) return FromAbsl(compiled.status());
    impl->compiled = *std::move(compiled);
    impl->cache = ToPublic(cache_report);
    // A hit compiled nothing here: its report is a precompiled model's (empty).
    if (!cache_report.hit) impl->report = ToPublic(BuildPartitionReport(impl->compiled));
  }
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded =
      LoadedModel::Create(impl->compiled.graph, impl->compiled.jit_slots, registry, {internal.soc, internal.plugin_options});
  if (!loaded.ok()) return FromAbsl(loaded.status());
  impl->loaded = *std::move(loaded);
  return CompiledModel(std::move(impl));
}

std::vector<TensorInfo> CompiledModel::inputs() const {
  return TensorInfos(impl_->compiled.graph, impl_->compiled.graph.inputs);
}
std::vector<TensorInfo> CompiledModel::outputs() const {
  return TensorInfos(impl_->compiled.graph, impl_->compiled.graph.outputs);
}
bool CompiledModel::was_precompiled() const { return impl_->precompiled; }
const PartitionReport& CompiledModel::partition_report() const { return impl_->report; }
const CompileCacheInfo& CompiledModel::cache_info() const { return impl_->cache; }
bool CompiledModel::accelerated() const { return impl_->warmup == nullptr || impl_->warmup->accelerated_ready(); }
Status CompiledModel::WaitForAccelerated() const {
  return impl_->warmup == nullptr ? Status() : FromAbsl(impl_->warmup->WaitForAccelerated());
}

Status CompiledModel::Save(const std::string& path) const {
  if (impl_->compiled.mode == tessera::CompileMode::kJit)
    return Status(TSR_FAILED_PRECONDITION,
                  "a JIT-compiled model cannot be saved: JIT results live in process memory only (compile AOT)");
  return FromAbsl(WriteModelFile(impl_->compiled.graph, path));
}

}  // namespace tessera::app
