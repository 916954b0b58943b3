// CompiledModel: "compile unless compiled", then loaded into the dispatch
// libraries once, shared by every RunContext made from it.
#include "app_internal.h"
#include "base/install_layout.h"
#include "base/json_writer.h"
#include "declared_numerics.h"
#include "compile/compile_driver.h"
#include "compile/cpu_fallback_plans.h"
#include "model/model_writer.h"
#include "partition/partition_report.h"
#include "partition/plan_picture.h"

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
  for (const ReportedFallbackGroup& g : r.fallback_groups) out.fallback_groups.push_back({g.op_type, g.vendor, g.reasons, g.op_ids});
  for (const FallbackNote& f : r.compile_fallbacks) out.compile_fallbacks.push_back({f.vendor, f.reason, f.op_ids});
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

absl::StatusOr<tessera::CompileOptions> InternalOptions(const CompileOptions& options, const Model& model,
                                                        const std::string& soc_directory) {
  tessera::CompileOptions internal;
  if (!options.accelerators.empty()) internal.accelerators = options.accelerators;
  internal.mode = options.mode == CompileMode::kJit ? tessera::CompileMode::kJit : tessera::CompileMode::kAot;
  internal.plugin_options = options.plugin_options;
  absl::StatusOr<PartitionPolicy> policy = ParsePartitionPolicy(options.policy);
  if (!policy.ok()) return policy.status();
  if (options.min_ops < 0 || options.max_partitions < 0)
    return absl::InvalidArgumentError("min_ops and max_partitions must not be negative");
  internal.partitioning = {*policy, options.min_ops, options.max_partitions};
  internal.budgets = model.impl()->budgets;
  if (!options.soc.empty()) {
    absl::StatusOr<SocSelection> soc = FindSoc(options.soc, soc_directory);
    if (!soc.ok()) return soc.status();
    internal.soc = *std::move(soc);
  }
  return internal;
}

// Compiles the model (quantized first when asked) into `impl`.
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
  } else if (!options.calibration_dir.empty()) {
    return absl::InvalidArgumentError("calibration_dir is only used with quantize int8");
  }
  absl::StatusOr<tessera::CompiledModel> compiled = CompileGraph(*graph, registry, internal);
  if (!compiled.ok()) return compiled.status();
  impl.compiled = *std::move(compiled);
  if (impl.ptq)
    if (absl::Status s = quantize::MeasureAccuracy(impl.compiled, registry, {internal.soc, internal.plugin_options}, *impl.ptq);
        !s.ok())
      return s;
  impl.internal_report = BuildPartitionReport(impl.compiled);
  impl.internal_report.timings.load_ms = model.load_ms();
  impl.report = ToPublic(impl.internal_report);
  return absl::OkStatus();
}

}  // namespace

size_t PartitionReport::fallback_op_count() const {
  std::vector<uint32_t> ops;
  for (const Fallback& f : fallbacks) ops.push_back(f.op_id);
  for (const CompileFallback& f : compile_fallbacks) ops.insert(ops.end(), f.op_ids.begin(), f.op_ids.end());
  std::sort(ops.begin(), ops.end());
  return static_cast<size_t>(std::unique(ops.begin(), ops.end()) - ops.begin());
}

Result<CompiledModel> CompiledModel::Compile(const Environment& environment, const Model& model,
                                             const CompileOptions& options) {
  if (!options.cache_dir.empty())
    return Status(TSR_UNIMPLEMENTED, "the compile cache is not implemented yet: leave cache_dir empty");
  auto impl = std::make_shared<Impl>();
  impl->environment = environment.impl();
  absl::StatusOr<tessera::CompileOptions> internal = InternalOptions(options, model, impl->environment->soc_directory);
  if (!internal.ok()) return FromAbsl(internal.status());
  impl->precompiled = model.is_compiled();
  // A compiled model needs dispatch libraries only: no compiler is opened.
  const PluginRegistry& registry = impl->environment->Registry(/*with_compilers=*/!impl->precompiled);
  if (impl->precompiled) {
    if (!options.quantize.empty()) return Status(TSR_INVALID_ARGUMENT, "a compiled model cannot be quantized");
    impl->compiled.graph = model.impl()->graph;
    impl->compiled.source = model.impl()->graph;
    impl->compiled.soc = internal->soc;
  } else if (absl::Status s = CompileInto(*impl, model, options, *internal, registry); !s.ok()) {
    return FromAbsl(s);
  }
  if (options.max_retries < 0 || options.max_retries > 100)
    return Status(TSR_INVALID_ARGUMENT, "max_retries must be in [0, 100]");
  if (!options.prepare_to_run) return CompiledModel(std::move(impl));
  RuntimeOptions runtime{internal->soc, internal->plugin_options, {options.max_retries, options.fallback, options.deadline_ms, "cpu"}, {}};
  runtime.budgets = internal->budgets;  // max_device_memory_bytes
  // The cpu plans exist only where the source ops do: a precompiled model
  // has none (docs/resilience.md).
  if (options.fallback && !impl->precompiled) {
    absl::StatusOr<CpuPlanSet> plans = BuildCpuFallbackPlans(impl->compiled, registry, *internal);
    if (!plans.ok()) return FromAbsl(plans.status());
    impl->cpu_plan_count = plans->plans.size();
    impl->cpu_plan_notes = plans->notes;
    runtime.cpu_plans = std::move(plans->plans);
  }
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded =
      LoadedModel::Create(impl->compiled.graph, impl->compiled.jit_slots, registry, runtime);
  if (!loaded.ok()) return FromAbsl(loaded.status());
  impl->loaded = *std::move(loaded);
  if (!impl->precompiled) impl->latency = RunLatencyModel(impl->compiled);
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

std::string CompiledModel::partition_report_json() const {
  if (impl_->precompiled) return "";
  JsonWriter j;
  WritePartitionReportJson(impl_->internal_report, j);
  return j.str();
}

std::string CompiledModel::partition_report_text() const {
  return impl_->precompiled ? "" : FormatPartitionReport(impl_->internal_report);
}

Result<std::string> CompiledModel::partition_picture(PictureFormat format) const {
  if (impl_->precompiled)
    return Status(TSR_FAILED_PRECONDITION, "a precompiled model has no partitioning of its own to draw");
  return format == PictureFormat::kDot ? PlanPictureDot(impl_->compiled, impl_->internal_report)
                                       : PlanPictureHtml(impl_->compiled, impl_->internal_report);
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
  OutputTolerance out{t.relative, t.absolute, {}, t.Describe()};
  for (const DeclaredNumerics& n : t.reduced_by)
    out.reduced_by.push_back({n.vendor, PrecisionName(n.precision), n.relative_tolerance, n.absolute_tolerance,
                              n.description, n.declared, n.reduced(), n.precision});
  return out;
}

size_t CompiledModel::cpu_plan_count() const { return impl_->cpu_plan_count; }
const std::vector<std::string>& CompiledModel::cpu_plan_notes() const { return impl_->cpu_plan_notes; }

Status CompiledModel::Save(const std::string& path) const {
  if (impl_->compiled.mode == tessera::CompileMode::kJit)
    return Status(TSR_FAILED_PRECONDITION,
                  "a JIT-compiled model cannot be saved: JIT results live in process memory only (compile AOT)");
  return FromAbsl(WriteModelFile(impl_->compiled.graph, path));
}

}  // namespace tessera::app
