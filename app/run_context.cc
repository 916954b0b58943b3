// RunContext: one thread's buffers and invocations over a
// shared CompiledModel, with host tensors in and out.
#include "app_internal.h"
#include "declared_numerics.h"

namespace tessera::app {

RunContext::RunContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunContext::~RunContext() = default;
RunContext::RunContext(RunContext&&) noexcept = default;
RunContext& RunContext::operator=(RunContext&&) noexcept = default;

Result<RunContext> RunContext::Create(const CompiledModel& model) {
  auto impl = std::make_unique<Impl>();
  impl->model = model.impl();
  if (impl->model->loaded == nullptr)
    return Status(TSR_FAILED_PRECONDITION,
                  "this model was compiled with prepare_to_run = false, or with leave_jit_only_ops and ops left for "
                  "JIT (save it, and load the file to run it): compile it again to run it");
  absl::StatusOr<std::unique_ptr<tessera::RunContext>> context = tessera::RunContext::Create(impl->model->loaded);
  if (!context.ok()) return FromAbsl(context.status());
  impl->context = *std::move(context);
  return RunContext(std::move(impl));
}

Result<std::vector<Tensor>> RunContext::Run(const std::vector<Tensor>& inputs, RunProfile* profile) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  // The internal runner takes host tensors by value; the copy in is the
  // one the CLI pays too (zero-copy buffers by type come with the dispatch
  // runtime issue).
  std::vector<HostTensor> host;
  host.reserve(inputs.size());
  for (const Tensor& t : inputs) host.push_back(ToHostTensor(t));
  tessera::RunProfile internal;
  // With background warm-up the warm-up picks the plan, once per run.
  WarmupPlan used = WarmupPlan::kCpu;
  absl::StatusOr<std::vector<HostTensor>> out =
      impl_->model->warmup != nullptr ? impl_->model->warmup->Run(host, profile != nullptr ? &internal : nullptr, &used)
                                      : impl_->context->Run(host, profile != nullptr ? &internal : nullptr);
  if (!out.ok()) return FromAbsl(out.status());
  std::vector<Tensor> outputs;
  outputs.reserve(out->size());
  for (HostTensor& h : *out) outputs.push_back(FromHostTensor(std::move(h)));
  if (profile != nullptr) {
    *profile = RunProfile{};
    profile->total_us = internal.total_us;
    for (const StepProfile& s : internal.steps) {
      RunProfile::Step step{s.vendor, s.entry_point, s.source_op_ids, s.host_time_us, {}, s.op_id, {}, s.start_us, s.mode};
      for (const StepProfile::Metric& m : s.metrics) step.metrics.push_back({m.name, m.value, m.unit});
      step.numerics = {s.numerics.vendor, PrecisionName(s.numerics.precision), s.numerics.relative_tolerance, s.numerics.absolute_tolerance,
                       s.numerics.description, s.numerics.declared, s.numerics.reduced(), s.numerics.precision};
      profile->steps.push_back(std::move(step));
    }
    for (const ConversionRecord& c : internal.conversions)
      profile->conversions.push_back(
          {c.tensor_name, c.to_vendor, c.from_type, c.to_type, c.bytes, c.host_time_us, c.from_name, c.to_name, c.start_us});
    for (const FallbackRecord& f : internal.fallbacks)
      profile->fallbacks.push_back({f.step, f.op_id, f.from, f.to, f.failure, f.reason, f.attempts});
    if (!impl_->model->NoPartitioningHere()) profile->modeled = impl_->model->latency.Of(internal);
    if (impl_->model->warmup != nullptr) profile->warmup_plan = WarmupPlanName(used);
  }
  return outputs;
}

}  // namespace tessera::app
