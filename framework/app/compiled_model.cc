// CompiledModel: "compile unless compiled", then loaded into the dispatch
// libraries once, shared by every RunContext made from it.
#include <cmath>
#include <iostream>
#include "framework/app/app_internal.h"
#include "framework/core/base/install_layout.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/declared_numerics.h"
#include "framework/compiler/compile/cached_compile.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/compiler/compile/cpu_fallback_plans.h"
#include "framework/compiler/quantize/calibration.h"
#include "framework/compiler/report/partition_report.h"
#include "framework/compiler/report/plan_picture.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/model/compiled_target.h"
#include "framework/core/model/model_writer.h"
#include "framework/loader/plugin_registry.h"

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
    out.partitions.push_back(
        {p.vendor, p.op_ids, p.op_types, p.input_bytes, p.output_bytes, p.mode, p.precision, p.precision_why});
  for (const ReportedCut& c : r.cuts) out.cuts.push_back({c.tensor, c.bytes, c.from_vendor, c.to_vendor});
  for (const ReportedPlacement& f : r.fallbacks) {
    PartitionReport::Fallback fb{f.op_id, f.op_type, f.vendor, {}};
    for (const ReportedRefusal& refusal : f.refused_by)
      fb.refused_by.push_back({refusal.vendor, refusal.reason, refusal.detail});
    out.fallbacks.push_back(std::move(fb));
  }
  for (const ReportedFallbackGroup& g : r.fallback_groups)
    out.fallback_groups.push_back({g.op_type, g.vendor, g.reasons, g.op_ids});
  for (const FallbackNote& f : r.compile_fallbacks) out.compile_fallbacks.push_back({f.vendor, f.reason, f.op_ids});
  out.precision = r.precision;
  out.policy = r.policy;
  out.chosen = r.chosen;
  out.modeled_latency_us = r.modeled_latency_us;
  out.modeled_latency_us_cpu_only = r.modeled_latency_us_cpu_only;
  out.modeled_latency_us_greedy = r.modeled_latency_us_greedy;
  out.transfer_us = r.transfer_us;
  out.compute_us = r.compute_us;
  out.dispatch_us = r.dispatch_us;
  out.conversion_count = r.conversions.size();
  out.cost_notes = r.cost_notes;
  out.load_ms = r.timings.load_ms;
  out.claims_ms = r.timings.claims_ms;
  out.partition_ms = r.timings.partition_ms;
  out.compile_ms = r.timings.compile_ms;
  return out;
}

// Cache lines go where the environment sends plugin log lines (vendor
// "tessera"), filtered by the same level.
CompileCacheLog CacheLogOf(const EnvironmentOptions& options) {
  return [options](CompileCacheLogLevel level, const std::string& line) {
    const LogLevel as = level == CompileCacheLogLevel::kWarning ? LogLevel::kWarning : LogLevel::kInfo;
    if (as < options.log_level) return;
    if (options.log_sink)
      options.log_sink("tessera", as, line);
    else
      std::cerr << "tessera: " << line << "\n";
  };
}

// The dispatch libraries' verdicts for the app; each prefer-recompile one
// is logged once, as a warning, where cache lines go.
std::vector<BytecodeCompatibility> CompatibilityOf(const LoadedModel& loaded, const EnvironmentOptions& options) {
  std::vector<BytecodeCompatibility> out;
  for (const BlobCompatibility& c : loaded.compatibility()) {
    out.push_back({c.vendor, c.soc, CompatibilityVerdictName(c.verdict), c.stamped, c.message});
    if (c.verdict != CompatibilityVerdict::kPreferRecompile || options.log_level > LogLevel::kWarning) continue;
    if (options.log_sink)
      options.log_sink("tessera", LogLevel::kWarning, c.message);
    else
      std::cerr << "tessera: warning: " << c.message << "\n";
  }
  return out;
}

CompileCacheInfo ToPublic(const CompileCacheReport& r) {
  return {r.enabled,
          r.disabled_reason,
          r.key,
          r.hit,
          r.counters.hits,
          r.counters.misses,
          r.counters.invalidations,
          r.counters.evictions,
          r.directory,
          r.counters.stores};
}

// A compiled model run with no SoC named runs for the one it was compiled
// for; one compiled for another SoC than the named one is refused.
absl::Status TargetCompiledModel(const tessera::Graph& graph, const std::string& soc_directory, SocSelection& soc) {
  if (soc.name.empty())
    if (const std::optional<std::string> own = CompiledSoc(graph)) {
      absl::StatusOr<SocSelection> found = FindSoc(*own, soc_directory);
      soc = found.ok() ? *std::move(found) : SocSelection{*own, ""};
    }
  return CheckCompiledTarget(graph, soc.name);
}

// The ranges that may prove FP16 safe (precision_policy.h): the graph run
// on the reference kernels over calibration_dir's input sets and
// range_samples, each tensor's largest |value| by name.
absl::StatusOr<tessera::CompileOptions> WithProvenRanges(const tessera::Graph& graph, const CompileOptions& options,
                                                         tessera::CompileOptions internal) {
  if (internal.precision.precision == Precision::kFp32) return internal;
  // A partly compiled model (ops left for JIT beside bytecode) cannot run
  // on the reference kernels, so no range is proven: its bytecode keeps
  // the precision it was compiled with, and the ops left here are offered
  // in FP16 only with ranges proven, that is never.
  for (const tessera::Op& op : graph.ops)
    if (op.type == TSR_OP_DISPATCH) return internal;
  PrecisionOptions& precision = internal.precision;
  std::vector<quantize::CalibrationSample> samples;
  std::vector<std::string> origins;
  if (!options.calibration_dir.empty()) {
    absl::StatusOr<std::vector<quantize::CalibrationSample>> read =
        quantize::ReadCalibrationSamples(options.calibration_dir, graph);
    if (!read.ok()) return read.status();
    samples = *std::move(read);
    origins.push_back(absl::StrCat(samples.size(), " input set(s) of ", options.calibration_dir));
  }
  for (const std::vector<Tensor>& set : options.range_samples) {
    quantize::CalibrationSample sample{"range_samples", {}};
    for (const Tensor& t : set) sample.inputs.push_back(ToHostTensor(t));
    samples.push_back(std::move(sample));
  }
  if (!options.range_samples.empty())
    origins.push_back(absl::StrCat(options.range_samples.size(), " input set(s) the app gave"));
  if (samples.empty()) return internal;
  absl::StatusOr<quantize::Calibration> calibration = quantize::Calibrate(graph, samples);
  if (!calibration.ok())
    return absl::Status(calibration.status().code(),
                        absl::StrCat("proving FP16 ranges: ", calibration.status().message()));
  for (size_t t = 0; t < calibration->ranges.size() && t < graph.tensors.size(); ++t) {
    const quantize::TensorRange& r = calibration->ranges[t];
    if (!r.seen || graph.tensors[t].name.empty()) continue;
    precision.observed_max_abs[graph.tensors[t].name] =
        r.finite ? std::max(std::fabs(static_cast<double>(r.min)), std::fabs(static_cast<double>(r.max))) : INFINITY;
  }
  precision.samples = absl::StrJoin(origins, " and ");
  return internal;
}

// background_warmup: Compile returns on the cpu plan; the JIT compile for
// the accelerators proceeds on the warm-up's worker.
absl::Status StartWarmup(CompiledModel::Impl& impl, const Model& model, const CompileOptions& options,
                         const tessera::CompileOptions& internal, const RuntimeOptions& runtime,
                         const PluginRegistry& registry) {
  if (options.mode != CompileMode::kJit)
    return absl::InvalidArgumentError(
        "background_warmup needs CompileMode::kJit (an AOT model is compiled once, or taken from the cache)");
  if (!options.quantize.empty())
    return absl::InvalidArgumentError("background_warmup cannot quantize (quantize is AOT)");
  const tessera::Graph& graph = model.impl()->graph;
  absl::StatusOr<tessera::CompileOptions> with_ranges = WithProvenRanges(graph, options, internal);
  if (!with_ranges.ok()) return with_ranges.status();
  absl::StatusOr<std::unique_ptr<BackgroundWarmup>> warm =
      BackgroundWarmup::Start(graph, registry, *with_ranges, runtime);
  if (!warm.ok()) return warm.status();
  ReportJitCacheBypass({options.cache_dir}, CacheLogOf(impl.environment->options), &impl.cache_report);
  impl.warmup = *std::move(warm);
  impl.compiled.graph = impl.warmup->cpu_model().graph;
  impl.compiled.source = graph;
  impl.compiled.mode = tessera::CompileMode::kJit;
  impl.loaded = impl.warmup->cpu_executor().model();
  // The cpu plan's verdicts until the switch (compatibility() then gives
  // the accelerated plan's), as the foreground path reports its own.
  impl.compatibility = CompatibilityOf(*impl.loaded, impl.environment->options);
  return absl::OkStatus();
}

absl::StatusOr<tessera::CompileOptions> InternalOptions(const CompileOptions& options, const Model& model,
                                                        const std::string& soc_directory) {
  tessera::CompileOptions internal;
  if (!options.accelerators.empty()) internal.accelerators = options.accelerators;
  internal.mode = options.mode == CompileMode::kJit ? tessera::CompileMode::kJit : tessera::CompileMode::kAot;
  internal.jit_only = options.leave_jit_only_ops ? JitOnlyInAot::kLeaveAsOps : JitOnlyInAot::kCompileJit;
  internal.plugin_options = options.plugin_options;
  // The app's texts name the option field, the same in C and C++.
  absl::StatusOr<PartitionPolicy> policy = ParsePartitionPolicy(options.policy);
  if (!policy.ok()) return absl::InvalidArgumentError(absl::StrCat("policy: ", policy.status().message()));
  if (options.min_ops < 0 || options.max_partitions < 0)
    return absl::InvalidArgumentError("min_ops and max_partitions must not be negative");
  internal.partitioning = {*policy, options.min_ops, options.max_partitions};
  const std::optional<Precision> precision = ParsePrecisionPolicy(options.precision);
  if (!precision)
    return absl::InvalidArgumentError(
        absl::StrCat("precision: unknown '", options.precision, "' (fp32, allow-fp16 or allow-int8)"));
  internal.precision.precision = *precision;
  internal.budgets = model.impl()->budgets;
  if (!options.soc.empty()) {
    absl::StatusOr<SocSelection> soc = FindSoc(options.soc, soc_directory);
    if (!soc.ok()) return soc.status();
    internal.soc = *std::move(soc);
  }
  return internal;
}

// Compiles the model (quantized first when asked) into `impl`, through
// the compile cache when options.cache_dir is set.
absl::Status CompileInto(CompiledModel::Impl& impl, const Model& model, const CompileOptions& options,
                         const tessera::CompileOptions& internal, const PluginRegistry& registry) {
  const tessera::Graph* graph = &model.impl()->graph;
  if (!options.quantize.empty()) {
    if (options.quantize != "int8")
      return absl::InvalidArgumentError("quantize supports only int8 (post-training, calibrated), not '" +
                                        options.quantize + "'");
    if (options.calibration_dir.empty())
      return absl::InvalidArgumentError("quantize int8 needs calibration_dir (representative inputs)");
    if (internal.mode == tessera::CompileMode::kJit)
      return absl::InvalidArgumentError("quantize measures accuracy through an AOT compile; use mode AOT");
    absl::StatusOr<quantize::PtqModel> ptq = quantize::QuantizeInt8(*graph, options.calibration_dir);
    if (!ptq.ok()) return ptq.status();
    impl.ptq = *std::move(ptq);
    graph = &impl.ptq->graph;
  } else if (!options.calibration_dir.empty() && internal.precision.precision == Precision::kFp32) {
    return absl::InvalidArgumentError(
        "calibration_dir is only used with quantize int8, or to prove FP16 ranges under precision allow-fp16 or "
        "allow-int8");
  }
  absl::StatusOr<tessera::CompileOptions> with_ranges = WithProvenRanges(*graph, options, internal);
  if (!with_ranges.ok()) return with_ranges.status();
  CompileCacheOptions cache{options.cache_dir};
  if (options.cache_max_bytes != 0) cache.max_bytes = options.cache_max_bytes;
  absl::StatusOr<tessera::CompiledGraph> compiled = CompileWithCache(
      *graph, registry, *with_ranges, cache, CacheLogOf(impl.environment->options), &impl.cache_report);
  if (!compiled.ok()) return compiled.status();
  impl.compiled = *std::move(compiled);
  // A hit compiled nothing here: it reports like a precompiled model (no
  // partitioning), but its source ops are this model's own (the key covers
  // them), so its partitions get cpu plans like a fresh compile's.
  if (impl.cache_report.hit) impl.compiled.source = *graph;
  if (impl.ptq) {
    // Ops left for JIT (leave_jit_only_ops) are JIT-compiled for the
    // measurement only: the model itself keeps them as ops.
    std::optional<tessera::CompiledGraph> runnable;
    if (!impl.compiled.left_for_jit.empty()) {
      absl::StatusOr<tessera::CompiledGraph> jit = CompileOpsLeftForJit(impl.compiled.graph, registry, internal);
      if (!jit.ok()) return jit.status();
      runnable = *std::move(jit);
    }
    if (absl::Status s = quantize::MeasureAccuracy(runnable ? *runnable : impl.compiled, registry,
                                                   {internal.soc, internal.plugin_options}, *impl.ptq);
        !s.ok())
      return s;
  }
  if (impl.cache_report.hit) return absl::OkStatus();
  impl.internal_report = BuildPartitionReport(impl.compiled);
  impl.internal_report.timings.load_ms = model.load_ms();
  impl.report = ToPublic(impl.internal_report);
  return absl::OkStatus();
}

// The compiled model loaded for running, with its cpu plans. The cpu plans
// exist only where the source ops do: a precompiled model has none
// (docs/resilience.md).
absl::StatusOr<std::shared_ptr<const LoadedModel>> LoadToRun(CompiledModel::Impl& impl, const CompileOptions& options,
                                                             const tessera::CompileOptions& internal,
                                                             RuntimeOptions runtime, const PluginRegistry& registry) {
  if (options.fallback && !impl.precompiled) {
    ASSIGN_OR_RETURN(CpuPlanSet plans, BuildCpuFallbackPlans(impl.compiled, registry, internal));
    impl.cpu_plan_count = plans.plans.size();
    impl.cpu_plan_notes = plans.notes;
    runtime.cpu_plans = std::move(plans.plans);
  }
  return LoadedModel::Create(impl.compiled.graph, impl.compiled.jit_slots, registry, runtime);
}

// Every name in `accelerators` must be a loaded compiler, by vendor or
// short name, resolved as the compile resolves them (FindCompilerByName),
// or the list must be empty or "auto". Checked before anything compiles,
// so a mistyped name is refused with the names that would work, whether
// it came through C or C++, instead of surfacing from deep in a compile.
absl::Status CheckAccelerators(const std::vector<std::string>& accelerators, const PluginRegistry& registry) {
  if (accelerators.empty() || (accelerators.size() == 1 && accelerators[0] == "auto")) return absl::OkStatus();
  for (const std::string& name : accelerators) {
    if (registry.FindCompilerByName(name) != nullptr) continue;
    std::vector<std::string> known;
    for (const CompilerPluginLibrary& c : registry.compilers()) {
      const char* alias = CompilerShortName(c);
      known.push_back(alias != nullptr && c.vendor != alias ? absl::StrCat(alias, " (", c.vendor, ")") : c.vendor);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("accelerators: unknown accelerator '", name, "'; the loaded compilers are ",
                     known.empty() ? "none" : absl::StrJoin(known, ", "),
                     " (by short name or vendor), or \"auto\" for all of them by priority"));
  }
  return absl::OkStatus();
}

// The model, its constants all aligned: kernels (the compilers' constant
// folding and packing, the cpu plans, the reference interpreter of
// quantize) read them through typed pointers, and an ONNX file's large
// initializers are views of the file at any offset (graph/graph.h,
// kConstantAlignment). Those are copied here, once per compile, in a copy of
// the graph: the Model itself stays as loaded, shared and immutable.
Model AlignedForKernels(const Model& model) {
  if (!HasUnalignedConstants(model.impl()->graph)) return model;
  auto impl = std::make_shared<Model::Impl>(*model.impl());
  AlignConstants(impl->graph);
  return Model(std::move(impl));
}

// What a precompiled model takes as it is: the partitioning options name
// choices its bytecode already made.
std::vector<std::string> IgnoredByCompiledModel(const CompileOptions& options, const std::string& soc) {
  std::vector<std::string> ignored;
  const std::string fixed = "ignored: the model is already compiled" + (soc.empty() ? "" : " for " + soc) +
                            " and its partitions are fixed; compile the source model to choose them";
  const bool auto_only = options.accelerators.size() == 1 && options.accelerators[0] == "auto";
  if (!options.accelerators.empty() && !auto_only) {
    std::string names;
    for (const std::string& a : options.accelerators) names += (names.empty() ? "" : ",") + a;
    ignored.push_back("CompileOptions::accelerators {" + names + "} " + fixed);
  }
  const CompileOptions defaults;
  if (options.policy != defaults.policy) ignored.push_back("CompileOptions::policy '" + options.policy + "' " + fixed);
  if (options.min_ops != defaults.min_ops || options.max_partitions != defaults.max_partitions)
    ignored.push_back("CompileOptions::min_ops/max_partitions " + fixed);
  return ignored;
}

}  // namespace

size_t PartitionReport::fallback_op_count() const {
  std::vector<uint32_t> ops;
  for (const Fallback& f : fallbacks) ops.push_back(f.op_id);
  for (const CompileFallback& f : compile_fallbacks) ops.insert(ops.end(), f.op_ids.begin(), f.op_ids.end());
  std::sort(ops.begin(), ops.end());
  return static_cast<size_t>(std::unique(ops.begin(), ops.end()) - ops.begin());
}

Result<CompiledModel> CompiledModel::Compile(const Environment& environment, const Model& loaded_model,
                                             const CompileOptions& options) {
  const Model model = AlignedForKernels(loaded_model);
  auto impl = std::make_shared<Impl>();
  impl->environment = environment.impl();
  absl::StatusOr<tessera::CompileOptions> internal = InternalOptions(options, model, impl->environment->soc_directory);
  if (!internal.ok()) return FromAbsl(internal.status());
  impl->precompiled = model.is_compiled();
  // A compiled model needs dispatch libraries only: no compiler is opened.
  const PluginRegistry& registry = impl->environment->Registry(/*with_compilers=*/!impl->precompiled);
  // A compiled model takes no accelerators (its partitions are fixed), and
  // checking them would open the compilers it does without.
  if (!impl->precompiled)
    if (absl::Status s = CheckAccelerators(options.accelerators, registry); !s.ok()) return FromAbsl(s);
  if (options.max_retries < 0 || options.max_retries > 100)
    return Status(TSR_INVALID_ARGUMENT, "max_retries must be in [0, 100]");
  // The fallback's steps are the last resort, never abandoned at the
  // deadline. A compiled model opens no compiler and has no cpu plans:
  // nothing is exempt then.
  const CompilerPluginLibrary* fallback = impl->precompiled ? nullptr : FallbackCompiler(registry);
  RuntimeOptions runtime{internal->soc,
                         internal->plugin_options,
                         {options.max_retries, options.fallback, options.deadline_ms,
                          fallback != nullptr ? fallback->vendor : std::string()},
                         {}};
  runtime.budgets = internal->budgets;  // max_device_memory_bytes
  // A partly compiled model (a JIT-only accelerator's ops left beside
  // bytecode) compiles those ops for the SoC of its bytecode.
  if (!impl->precompiled && !model.compiled_soc().empty()) {
    if (absl::Status s = TargetCompiledModel(model.impl()->graph, impl->environment->soc_directory, internal->soc);
        !s.ok())
      return FromAbsl(s);
    runtime.soc = internal->soc;
  }
  if (options.background_warmup && !impl->precompiled) {
    if (absl::Status s = StartWarmup(*impl, model, options, *internal, runtime, registry); !s.ok()) return FromAbsl(s);
    impl->cache = ToPublic(impl->cache_report);
    return CompiledModel(std::move(impl));
  }
  if (impl->precompiled) {
    if (!options.quantize.empty()) return Status(TSR_INVALID_ARGUMENT, "a compiled model cannot be quantized");
    if (absl::Status s = TargetCompiledModel(model.impl()->graph, impl->environment->soc_directory, internal->soc);
        !s.ok())
      return FromAbsl(s);
    runtime.soc = internal->soc;
    impl->ignored_options = IgnoredByCompiledModel(options, internal->soc.name);
    if (!options.cache_dir.empty())
      impl->cache_report = {false, "the model is already compiled: nothing to cache", options.cache_dir, "", false, {}};
    impl->compiled.graph = model.impl()->graph;
    impl->compiled.source = model.impl()->graph;
    impl->compiled.soc = internal->soc;
  } else if (absl::Status s = CompileInto(*impl, model, options, *internal, registry); !s.ok()) {
    return FromAbsl(s);
  }
  impl->cache = ToPublic(impl->cache_report);
  // Ops left for JIT (leave_jit_only_ops) are compiled where the saved
  // model is loaded: this compile is for saving, not for running.
  if (!options.prepare_to_run || !impl->compiled.left_for_jit.empty()) return CompiledModel(std::move(impl));
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded = LoadToRun(*impl, options, *internal, runtime, registry);
  // A cache entry that passed every check of the cache (checksums, its key)
  // but that a dispatch library refuses at load would fail every later run
  // the same way: it is evicted and the model compiled once more (a miss,
  // then a store), and that result alone is loaded.
  if (!loaded.ok() && impl->cache_report.hit) {
    CompileCacheOptions cache{options.cache_dir};
    DiscardCompileCacheEntry(cache, impl->cache_report.key,
                             absl::StrCat("it failed to load (", loaded.status().message(), ")"),
                             CacheLogOf(impl->environment->options));
    if (absl::Status s = CompileInto(*impl, model, options, *internal, registry); !s.ok()) return FromAbsl(s);
    ++impl->cache_report.counters.invalidations;
    impl->cache = ToPublic(impl->cache_report);
    loaded = LoadToRun(*impl, options, *internal, runtime, registry);
  }
  if (!loaded.ok()) return FromAbsl(loaded.status());
  impl->loaded = *std::move(loaded);
  impl->compatibility = CompatibilityOf(*impl->loaded, impl->environment->options);
  if (!impl->NoPartitioningHere()) impl->latency = RunLatencyModel(impl->compiled);
  return CompiledModel(std::move(impl));
}

std::vector<TensorInfo> CompiledModel::inputs() const {
  return TensorInfos(impl_->compiled.graph, impl_->compiled.graph.inputs);
}
std::vector<TensorInfo> CompiledModel::outputs() const {
  return TensorInfos(impl_->compiled.graph, impl_->compiled.graph.outputs);
}
bool CompiledModel::was_precompiled() const { return impl_->precompiled; }
const std::vector<std::string>& CompiledModel::ignored_options() const { return impl_->ignored_options; }
const tessera::PartitionReport* CompiledModel::Impl::AcceleratedReport() const {
  if (warmup == nullptr) return nullptr;
  const tessera::CompiledGraph* accelerated = warmup->accelerated_model();
  if (accelerated == nullptr) return nullptr;
  std::call_once(accelerated_report_once, [&] {
    accelerated_internal_report = BuildPartitionReport(*accelerated);
    accelerated_report = ToPublic(accelerated_internal_report);
  });
  return &accelerated_internal_report;
}

const PartitionReport& CompiledModel::partition_report() const {
  return impl_->AcceleratedReport() != nullptr ? impl_->accelerated_report : impl_->report;
}
const CompileCacheInfo& CompiledModel::cache_info() const { return impl_->cache; }
const std::vector<BytecodeCompatibility>& CompiledModel::compatibility() const {
  if (impl_->warmup == nullptr) return impl_->compatibility;
  // A background warm-up reports the plan that runs use now: the cpu
  // plan's verdicts, then, once it has switched, the accelerated plan's
  // (computed and logged once).
  std::shared_ptr<ModelExecutor> accelerated = impl_->warmup->accelerated_executor();
  if (accelerated == nullptr) return impl_->compatibility;
  std::call_once(impl_->accelerated_compatibility_once, [&] {
    impl_->accelerated_compatibility = CompatibilityOf(*accelerated->model(), impl_->environment->options);
  });
  return impl_->accelerated_compatibility;
}
std::string CompiledModel::cache_info_json() const {
  if (impl_->cache_report.directory.empty()) return "";
  JsonWriter j;
  WriteCompileCacheReportJson(impl_->cache_report, j);
  return j.str();
}
bool CompiledModel::accelerated() const { return impl_->warmup == nullptr || impl_->warmup->accelerated_ready(); }
Status CompiledModel::WaitForAccelerated() const {
  return impl_->warmup == nullptr ? Status() : FromAbsl(impl_->warmup->WaitForAccelerated());
}

std::string CompiledModel::partition_report_json() const {
  if (impl_->NoPartitioningHere()) return "";
  JsonWriter j;
  WritePartitionReportJson(impl_->InternalReport(), j);
  return j.str();
}

std::string CompiledModel::partition_report_text() const {
  return impl_->NoPartitioningHere() ? "" : FormatPartitionReport(impl_->InternalReport());
}

Result<std::string> CompiledModel::partition_picture(PictureFormat format) const {
  if (impl_->NoPartitioningHere())
    return Status(TSR_FAILED_PRECONDITION,
                  "this model was not partitioned here (precompiled, a compile-cache hit or a warm-up's cpu plan): "
                  "nothing to draw");
  const tessera::CompiledGraph& plan =
      impl_->AcceleratedReport() != nullptr ? *impl_->warmup->accelerated_model() : impl_->compiled;
  return format == PictureFormat::kDot ? PlanPictureDot(plan, impl_->InternalReport())
                                       : PlanPictureHtml(plan, impl_->InternalReport());
}

std::string CompiledModel::quantization_report_json() const {
  if (!impl_->ptq) return "";
  JsonWriter j;
  quantize::WriteQuantizationReportJson(impl_->ptq->report, j);
  return j.str();
}

std::string CompiledModel::quantization_report_text() const {
  return impl_->ptq ? quantize::FormatQuantizationReport(impl_->ptq->report) : "";
}

CompiledModel::OutputTolerance CompiledModel::output_tolerance(size_t index, double own_rtol, double own_atol) const {
  if (impl_->loaded == nullptr) return {own_rtol, own_atol, {}, ""};
  const tessera::OutputTolerance t = impl_->loaded->OutputToleranceFor(index, own_rtol, own_atol);
  OutputTolerance out{t.relative, t.absolute, {}, t.Describe(), t.depth};
  for (const DeclaredNumerics& n : t.reduced_by)
    out.reduced_by.push_back({n.vendor, PrecisionName(n.precision), n.relative_tolerance, n.absolute_tolerance,
                              n.description, n.declared, n.reduced(), n.precision});
  return out;
}

std::vector<CompiledModel::OpsLeftForJit> CompiledModel::ops_left_for_jit() const {
  std::vector<OpsLeftForJit> out;
  if (const auto& stamp = impl_->compiled.graph.build_stamp)
    for (const BuildStamp::LeftForJit& l : stamp->left_for_jit) out.push_back({l.vendor, l.op_ids});
  return out;
}

size_t CompiledModel::cpu_plan_count() const { return impl_->cpu_plan_count; }
const std::vector<std::string>& CompiledModel::cpu_plan_notes() const { return impl_->cpu_plan_notes; }

Status CompiledModel::Save(const std::string& path) const {
  if (impl_->compiled.mode == tessera::CompileMode::kJit)
    return Status(TSR_FAILED_PRECONDITION,
                  "a JIT-compiled model cannot be saved: JIT results live in process memory only (compile AOT)");
  // An AOT compile beside a JIT-only accelerator holds its JIT handles.
  if (!impl_->compiled.jit_slots.empty())
    return Status(TSR_FAILED_PRECONDITION,
                  "this model holds JIT handles of a JIT-only accelerator, which live in process memory only: compile "
                  "with leave_jit_only_ops to save it (its partitions then stay in the file as ops, JIT-compiled "
                  "when the file is loaded)");
  return FromAbsl(WriteModelFile(impl_->compiled.graph, path));
}

}  // namespace tessera::app
