// RunContext: buffers and invocations over a shared CompiledModel, with
// host tensors in and out. Every run goes through RunInto on the caller's
// (or Run's freshly allocated) buffers; a context shared between threads
// runs one call at a time (Impl::run_lock).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/declared_numerics.h"
#include "framework/app/app_internal.h"
#include "framework/app/nonfinite_scan.h"
#include "framework/core/base/dtype.h"

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
  absl::StatusOr<std::unique_ptr<tessera::ExecutionContext>> context =
      tessera::ExecutionContext::Create(impl->model->loaded);
  if (!context.ok()) return FromAbsl(context.status());
  impl->context = *std::move(context);
  const tessera::Graph& graph = impl->model->loaded->graph();
  impl->input_views.resize(graph.inputs.size());
  impl->output_views.resize(graph.outputs.size());
  return RunContext(std::move(impl));
}

Result<std::vector<Tensor>> RunContext::Run(const std::vector<Tensor>& inputs, RunProfile* profile) {
  return RunWith(inputs, nullptr, profile);
}
Result<std::vector<Tensor>> RunContext::Run(const std::vector<Tensor>& inputs, const RunOptions& options,
                                            RunProfile* profile) {
  return RunWith(inputs, &options, profile);
}
Status RunContext::RunInto(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile) {
  return RunIntoWith(inputs, outputs, nullptr, profile);
}
Status RunContext::RunInto(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions& options,
                           RunProfile* profile) {
  return RunIntoWith(inputs, outputs, &options, profile);
}

Result<std::vector<Tensor>> RunContext::RunWith(const std::vector<Tensor>& inputs, const RunOptions* options,
                                                RunProfile* profile) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  {
    // Refused before allocating; RunInto checks again under the lock.
    std::lock_guard<std::mutex> lock(impl_->run_lock);
    if (Status s = impl_->CheckIdle("Run"); !s.ok()) return s;
  }
  // Owned outputs, then the one run path.
  const tessera::Graph& graph = impl_->model->loaded->graph();
  std::vector<Tensor> outputs;
  outputs.reserve(graph.outputs.size());
  for (TensorInfo& info : TensorInfos(graph, graph.outputs)) outputs.push_back(Tensor::Allocate(std::move(info)));
  Status s = RunIntoWith(inputs, outputs, options, profile);
  if (!s.ok()) return s;
  return outputs;
}

namespace {

// A tensor handed to RunInto against the model's tensor: the message is
// built only when they differ.
Status CheckTensor(const char* kind, size_t i, const tessera::Tensor& want, const Tensor& got) {
  const TensorInfo& info = got.info();
  if (info.dtype == static_cast<tsr_dtype>(want.dtype) && info.shape == want.shape && got.size() >= want.byte_size() &&
      (got.data() != nullptr || want.byte_size() == 0))
    return Status();
  return Status(TSR_INVALID_ARGUMENT,
                absl::StrCat(kind, " ", i, " ('", want.name, "') must be ", DTypeName(want.dtype), " of shape [",
                             absl::StrJoin(want.shape, ","), "] (", want.byte_size(), " bytes); got ",
                             DTypeName(info.dtype), " [", absl::StrJoin(info.shape, ","), "] (", got.size(),
                             got.data() == nullptr ? " bytes, NULL)" : " bytes)"));
}

}  // namespace

Status RunContext::RunIntoWith(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
                               const RunOptions* options, RunProfile* profile) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  std::lock_guard<std::mutex> lock(impl_->run_lock);
  Status s = impl_->CheckIdle("RunInto");
  if (s.ok()) s = SetViews(inputs, outputs);
  if (!s.ok()) return s;
  return impl_->RunViews(profile, options);
}

Status RunContext::RunAsync(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  std::lock_guard<std::mutex> lock(impl_->run_lock);
  Status s = impl_->CheckIdle("RunAsync");
  if (s.ok()) s = SetViews(inputs, outputs);
  if (!s.ok()) return s;
  impl_->StartAsync(profile, inputs, outputs);
  return Status();
}

Status RunContext::Wait(uint64_t timeout_ns) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  return impl_->WaitAsync(timeout_ns);
}

Status RunContext::Impl::CheckIdle(const char* call) const {
  if (async == nullptr || !async->busy()) return Status();
  return Status(TSR_FAILED_PRECONDITION,
                absl::StrCat(call, ": an asynchronous run of this context is in flight; Wait for it first"));
}

void RunContext::Impl::StartAsync(RunProfile* profile, std::span<const Tensor> inputs,
                                  std::span<const Tensor> outputs) {
  if (async == nullptr) async = std::make_unique<AsyncRunner>(this);
  async->Start(profile, inputs, outputs);
}

Status RunContext::Impl::WaitAsync(uint64_t timeout_ns) {
  if (async == nullptr) return Status(TSR_FAILED_PRECONDITION, "no asynchronous run to wait for (RunAsync first)");
  return async->Wait(timeout_ns);
}

Status RunContext::SetViews(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) {
  const tessera::Graph& graph = impl_->model->loaded->graph();
  if (inputs.size() != graph.inputs.size() || outputs.size() != graph.outputs.size())
    return Status(TSR_INVALID_ARGUMENT,
                  absl::StrCat("the model takes ", graph.inputs.size(), " inputs and gives ", graph.outputs.size(),
                               " outputs, got ", inputs.size(), " and ", outputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const tessera::Tensor& t = graph.tensors[graph.inputs[i]];
    Status s = CheckTensor("input", i, t, inputs[i]);
    if (!s.ok()) return s;
    impl_->input_views[i] = {static_cast<const uint8_t*>(inputs[i].data()), t.byte_size()};
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const tessera::Tensor& t = graph.tensors[graph.outputs[i]];
    Status s = CheckTensor("output", i, t, outputs[i]);
    if (!s.ok()) return s;
    impl_->output_views[i] = {static_cast<uint8_t*>(outputs[i].data()), t.byte_size()};
  }
  return Status();
}

Status RunContext::Impl::RunViews(RunProfile* profile, const RunOptions* options) {
  // RunOptions' limits hold for this run only (the context keeps them
  // until set again: cleared on every way out).
  struct ClearLimits {
    tessera::ExecutionContext* context;
    ~ClearLimits() {
      if (context != nullptr) context->SetRunLimits({});
    }
  } clear{nullptr};
  if (options != nullptr) {
    if (model->warmup != nullptr)
      return Status(TSR_FAILED_PRECONDITION,
                    "RunOptions: a model compiled with CompileOptions::background_warmup runs its plans outside this "
                    "context; run it without RunOptions");
    tessera::ExecutionContext::RunLimits limits;
    limits.cancel = options->cancel.flag();
    if (options->deadline_ms > 0) {
      limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options->deadline_ms);
      limits.deadline_ms = options->deadline_ms;
    }
    context->SetRunLimits(limits);
    clear.context = context.get();
  }
  tessera::ExecutionProfile internal;
  tessera::ExecutionProfile* wanted = profile != nullptr ? &internal : nullptr;
  // With background warm-up the warm-up picks the plan, once per run.
  WarmupPlan used = WarmupPlan::kCpu;
  const absl::Status run = model->warmup != nullptr ? model->warmup->RunInto(input_views, output_views, wanted, &used)
                                                    : context->RunInto(input_views, output_views, wanted);
  if (!run.ok()) return FromAbsl(run);
  if (profile != nullptr) {
    Translate(internal, used, profile);
    profile->tag = options != nullptr ? options->tag : "";
    ScanNonFinite(model->loaded->graph(), input_views, output_views, profile);
  }
  return Status();
}

Status RunContext::Impl::RunBoundBuffers(RunProfile* profile) {
  tessera::ExecutionProfile internal;
  const absl::Status run = context->RunBound(profile != nullptr ? &internal : nullptr);
  if (!run.ok()) return FromAbsl(run);
  if (profile != nullptr) Translate(internal, WarmupPlan::kCpu, profile);
  return Status();
}

void RunContext::Impl::Translate(const tessera::ExecutionProfile& internal, WarmupPlan used,
                                 RunProfile* profile) const {
  *profile = RunProfile{};
  profile->total_us = internal.total_us;
  profile->io_copy_bytes = internal.io_copy_bytes;
  for (const StepProfile& s : internal.steps) {
    RunProfile::Step step{s.vendor, s.entry_point, s.source_op_ids, s.host_time_us, {}, s.op_id,
                          {},       s.start_us,    s.mode};
    for (const StepProfile::Metric& m : s.metrics) step.metrics.push_back({m.name, m.value, m.unit});
    step.numerics = {s.numerics.vendor,
                     PrecisionName(s.numerics.precision),
                     s.numerics.relative_tolerance,
                     s.numerics.absolute_tolerance,
                     s.numerics.description,
                     s.numerics.declared,
                     s.numerics.reduced(),
                     s.numerics.precision};
    profile->steps.push_back(std::move(step));
  }
  for (const ConversionRecord& c : internal.conversions)
    profile->conversions.push_back({c.tensor_name, c.to_vendor, c.from_type, c.to_type, c.bytes, c.host_time_us,
                                    c.from_name, c.to_name, c.start_us, c.kind, c.from_layout, c.to_layout, c.via});
  for (const FallbackRecord& f : internal.fallbacks)
    profile->fallbacks.push_back({f.step, f.op_id, f.from, f.to, f.failure, f.reason, f.attempts});
  if (!model->NoPartitioningHere()) profile->modeled = model->latency.Of(internal);
  if (model->warmup != nullptr) profile->warmup_plan = WarmupPlanName(used);
}

Result<BindingMode> RunContext::Bind(IoKind kind, size_t index, const AppBuffer& buffer) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  std::lock_guard<std::mutex> lock(impl_->run_lock);
  if (Status s = impl_->CheckIdle("Bind"); !s.ok()) return s;
  if (impl_->model->warmup != nullptr)
    return Status(TSR_FAILED_PRECONDITION,
                  "Bind: this model warms up in the background (two plans, switched between runs); bind buffers to a "
                  "model compiled without background_warmup");
  const tessera::AppBuffer b{buffer.buffer_type, buffer.host_address, buffer.fd, buffer.offset, buffer.size};
  absl::StatusOr<tessera::BindingMode> mode =
      kind == IoKind::kOutput ? impl_->context->BindOutput(index, b) : impl_->context->BindInput(index, b);
  if (!mode.ok()) return FromAbsl(mode.status());
  return *mode == tessera::BindingMode::kZeroCopy ? BindingMode::kZeroCopy : BindingMode::kCopied;
}

Status RunContext::Unbind(IoKind kind, size_t index) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  std::lock_guard<std::mutex> lock(impl_->run_lock);
  if (Status s = impl_->CheckIdle("Unbind"); !s.ok()) return s;
  const absl::Status s = impl_->context->Unbind(kind == IoKind::kOutput ? TSR_IO_OUTPUT : TSR_IO_INPUT, index);
  return s.ok() ? Status() : FromAbsl(s);
}

Status RunContext::RunBound(RunProfile* profile) {
  if (impl_ == nullptr) return Status(TSR_FAILED_PRECONDITION, "RunContext was moved from");
  std::lock_guard<std::mutex> lock(impl_->run_lock);
  if (Status s = impl_->CheckIdle("RunBound"); !s.ok()) return s;
  return impl_->RunBoundBuffers(profile);
}

}  // namespace tessera::app
