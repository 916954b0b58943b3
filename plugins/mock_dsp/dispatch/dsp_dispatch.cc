// The mock DSP dispatch library: loads the JIT handles the mock DSP
// compiler made (it has no bytecode: TSR_DISPATCH_CAP_JIT_HANDLE only) and
// runs them with the DSP's own kernels on host memory standing in for the
// DSP's TCM. Buffers are the vendor type dsp_tcm, which no other library
// accepts, with float rows padded to 128-byte lines (dsp_layouts.h), plus
// the shared dense DMABUF where the SoC's [mock_dsp] says accepts_dmabuf =
// 1; the runtime converts (type and layout) on every other edge. Invocation
// metrics carry the modelled device time of the [mock_dsp] throughput
// model; plugin options inject faults (dsp_options.h).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/kit/build_identity.h"
#include "plugins/mock_dsp/shared/cost_model.h"
#include "plugins/mock_dsp/shared/dsp_contract.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/shared/dsp_soc.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/mock_dsp/dispatch/dsp_async.h"
#include "plugins/mock_dsp/dispatch/dsp_layouts.h"
#include "plugins/mock_dsp/dispatch/dsp_program.h"
#include "plugins/mock_dsp/dispatch/fault_injector.h"
#include "plugins/kit/dispatch_support.h"
#include "plugins/kit/entry_point.h"
#include "plugins/kit/host_buffers.h"
#include "plugins/kit/plugin_status.h"
#include "tessera/dispatch.h"

struct tsr_device_context_s {
  tessera::mock_dsp::DspSoc soc;
  std::unique_ptr<tessera::mock_dsp::FaultInjector> faults;
  tsr_log_fn log = nullptr;
  void* log_user_data = nullptr;
  // What the host still holds of this context. The ABI makes it release
  // everything before destroy_device_context; a host that leaks after a
  // fault (a retry, a cpu fallback, a lost device) is caught here and
  // logged as an error (docs/resilience.md: "never leaks").
  std::atomic<int64_t> live_executables{0}, live_invocations{0}, live_buffers{0};
  // The async queue and its worker (dsp_async.h), made with the first
  // timeline; declared last so it is joined before the rest goes.
  std::mutex async_lock;
  std::unique_ptr<tessera::mock_dsp::AsyncQueue> async;
};

struct tsr_executable_s {
  tsr_device_context context = nullptr;
  tessera::mock_dsp::DspProgram program;
};

struct tsr_invocation_s {
  tsr_executable executable = nullptr;
  std::vector<tsr_buffer> inputs;
  std::vector<tsr_buffer> outputs;
  double host_time_us = 0;
  bool ran = false;  // the last invoke reached the kernels
  uint64_t start_ns = 0, end_ns = 0;
};

namespace tessera::mock_dsp {
namespace {

constexpr uint32_t kAlignment = kDspAlignment;
const char* const kSocModels[] = {"any"};
const tsr_dispatch_info kInfo = {
    .header = {sizeof(tsr_dispatch_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kDspVendor,
    .library_version = "0.1.0",
    .soc_models = kSocModels,
    .soc_model_count = 1,
    .capabilities = TSR_DISPATCH_CAP_JIT_HANDLE,
    .reserved0 = 0,
    .sanitizer = kit::BuildSanitizer(),
    .reserved1 = 0,
    .build_id = kit::kBuildId,
};

tsr_status Report(const Fault& f) { return kit::ReportError(f.code, f.message); }

// Buffers carry no context (plugins/kit's struct), so the library keeps
// which context made each one.
std::mutex buffer_owner_lock;
std::unordered_map<tsr_buffer, tsr_device_context>& BufferOwners() {
  static auto* owners = new std::unordered_map<tsr_buffer, tsr_device_context>();
  return *owners;
}

tsr_status Owned(tsr_device_context ctx, tsr_status code, tsr_buffer* out) {
  if (code != TSR_OK) return code;
  std::lock_guard<std::mutex> lock(buffer_owner_lock);
  BufferOwners()[*out] = ctx;
  ++ctx->live_buffers;
  return TSR_OK;
}

void ReleaseBuffer(tsr_buffer b) {
  if (b == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(buffer_owner_lock);
    auto it = BufferOwners().find(b);
    if (it != BufferOwners().end()) {
      --it->second->live_buffers;
      BufferOwners().erase(it);
    }
  }
  kit::ReleaseHostBuffer(b);
}

const char* GetLastError() { return kit::LastErrorMessage(); }

tsr_status GetInfo(const tsr_dispatch_info** out) {
  if (out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "out_info is NULL");
  *out = &kInfo;
  return TSR_OK;
}

tsr_status CreateContext(const tsr_device_context_options* opts, tsr_device_context* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("out_context is NULL");
    const bool has_options = TSR_ABI_HAS_FIELD(opts, tsr_device_context_options, option_count);
    absl::StatusOr<DspOptions> options =
        ParseDspOptions(has_options ? opts->options : nullptr, has_options ? opts->option_count : 0);
    if (!options.ok()) return options.status();
    if (options->refuse_load)
      return absl::UnavailableError("mock_dsp: refusing to create a device context (fault injection: "
                                    "mock_dsp.refuse_load=1)");
    const bool has_soc = TSR_ABI_HAS_FIELD(opts, tsr_device_context_options, soc_description_size);
    absl::StatusOr<DspSoc> soc = ReadDspSoc(has_soc ? opts->soc_description : nullptr,
                                            has_soc ? opts->soc_description_size : 0);
    if (!soc.ok())
      return absl::FailedPreconditionError(absl::StrCat("mock_dsp: no usable DSP on this SoC: ", soc.status().message()));
    auto ctx = std::make_unique<tsr_device_context_s>();
    ctx->soc = *soc;
    if (TSR_ABI_HAS_FIELD(opts, tsr_device_context_options, log_user_data)) {
      ctx->log = opts->log;
      ctx->log_user_data = opts->log_user_data;
    }
    ctx->faults = std::make_unique<FaultInjector>(*options);
    *out = ctx.release();
    return absl::OkStatus();
  });
}

void DestroyContext(tsr_device_context c) {
  if (c == nullptr) return;
  const int64_t e = c->live_executables, i = c->live_invocations, b = c->live_buffers;
  if ((e != 0 || i != 0 || b != 0) && c->log != nullptr) {
    const std::string text = absl::StrCat("mock_dsp: destroy_device_context with ", e, " executables, ", i,
                                          " invocations and ", b, " buffers still live (the host leaked them)");
    c->log(c->log_user_data, TSR_LOG_ERROR, text.c_str());
  }
  c->async.reset();  // joins the worker before the kernels' context goes
  delete c;
}

tsr_status LoadExecutable(tsr_device_context ctx, const tsr_executable_source* src, tsr_executable* out) {
  if (ctx != nullptr && ctx->faults->device_lost()) return Report(ctx->faults->LostFault("load_executable"));
  bool malformed = false;
  const tsr_status code = kit::Guarded([&]() -> absl::Status {
    if (ctx == nullptr || out == nullptr || !TSR_ABI_HAS_FIELD(src, tsr_executable_source, jit_handle))
      return absl::InvalidArgumentError("load_executable: NULL argument or source struct too old");
    if (src->kind != TSR_EXECUTABLE_JIT_HANDLE)
      return absl::UnimplementedError("mock_dsp: load_executable: the DSP runs JIT handles only (it has no bytecode)");
    absl::StatusOr<const kit::JitPayload*> jit = kit::JitPayloadFromHandle(src->jit_handle, kDspJitMagic, kDspBodyFormatVersion);
    if (!jit.ok()) return jit.status();
    absl::StatusOr<DspProgram> program = LoadDspProgram({(*jit)->body, (*jit)->body_size}, ctx->soc);
    if (!program.ok()) {
      malformed = true;
      return program.status();
    }
    auto exe = std::make_unique<tsr_executable_s>();
    exe->context = ctx;
    exe->program = *std::move(program);
    *out = exe.release();
    ++ctx->live_executables;
    return absl::OkStatus();
  });
  return code != TSR_OK && malformed ? TSR_BYTECODE_INVALID : code;
}

void UnloadExecutable(tsr_executable e) {
  if (e == nullptr) return;
  --e->context->live_executables;
  delete e;
}

tsr_status IoCount(tsr_executable e, size_t* ins, size_t* outs) {
  if (e == nullptr || ins == nullptr || outs == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *ins = e->program.graph.inputs.size();
  *outs = e->program.graph.outputs.size();
  return TSR_OK;
}

tsr_status Requirements(tsr_executable e, int32_t io_kind, size_t index, tsr_buffer_requirements* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (io_kind != TSR_IO_INPUT && io_kind != TSR_IO_OUTPUT) return kit::ReportError(TSR_INVALID_ARGUMENT, "bad io_kind");
  const auto& list = io_kind == TSR_IO_INPUT ? e->program.graph.inputs : e->program.graph.outputs;
  if (index >= list.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "io index out of range");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_requirements, dtype))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "requirements struct too small");
  const int32_t t = list[index];
  const kit::SnapshotTensor& tensor = e->program.graph.tensors[t];
  // Where the SoC wires the DSP to shared dma-buf memory, that is preferred
  // (another library accepting DMABUF can then share the buffer); the TCM
  // otherwise. The layout and size are alternative 0's (dsp_layouts.h).
  const bool dmabuf = e->context->soc.accepts_dmabuf;
  const size_t n = LayoutCount(dmabuf);
  for (size_t i = 0; i < n; ++i) out->buffer_types[i] = LayoutBufferType(dmabuf, i);
  out->buffer_type_count = static_cast<uint32_t>(n);
  out->alignment = kAlignment;
  out->size_bytes = BufferBytes(out->buffer_types[0], tensor);
  const int64_t row_stride = BufferRowStride(out->buffer_types[0], tensor);
  out->layout = row_stride == 0 ? TSR_LAYOUT_DENSE : TSR_LAYOUT_STRIDED;
  out->row_stride_bytes = static_cast<uint64_t>(row_stride);
  out->dtype = tensor.dtype;
  return TSR_OK;
}

tsr_status AllocateBuffer(tsr_device_context ctx, const tsr_buffer_desc* desc, tsr_buffer* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "allocate_buffer: NULL context");
  if (ctx->soc.accepts_dmabuf)
    return Owned(ctx, kit::AllocateHostBuffer(desc, {kDspTcmBufferType, TSR_BUFFER_TYPE_DMABUF}, kAlignment, out), out);
  return Owned(ctx, kit::AllocateHostBuffer(desc, {kDspTcmBufferType}, kAlignment, out), out);
}

// Imports of shared memory only: the TCM is the DSP's own and cannot be
// registered from outside; a DMABUF (simulated: by address) can, where the
// SoC allows it.
tsr_status RegisterBuffer(tsr_device_context ctx, const tsr_buffer_desc* desc, tsr_buffer* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "register_buffer: NULL context");
  if (!ctx->soc.accepts_dmabuf)
    return kit::ReportError(TSR_UNIMPLEMENTED, "mock_dsp: register_buffer: this SoC's DSP imports no memory "
                                               "([mock_dsp] accepts_dmabuf = 0)");
  return Owned(ctx, kit::RegisterHostBuffer(desc, {TSR_BUFFER_TYPE_DMABUF}, out), out);
}

tsr_status CreateInvocation(tsr_executable e, tsr_invocation* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  return kit::Guarded([&]() -> absl::Status {
    auto inv = std::make_unique<tsr_invocation_s>();
    inv->executable = e;
    inv->inputs.assign(e->program.graph.inputs.size(), nullptr);
    inv->outputs.assign(e->program.graph.outputs.size(), nullptr);
    *out = inv.release();
    ++e->context->live_invocations;
    return absl::OkStatus();
  });
}

void DestroyInvocation(tsr_invocation inv) {
  if (inv == nullptr) return;
  --inv->executable->context->live_invocations;
  delete inv;
}

tsr_status Attach(tsr_invocation inv, int32_t io_kind, size_t index, tsr_buffer b) {
  if (inv == nullptr || b == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  auto& slots = io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs;
  if (index >= slots.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "attach: index out of range");
  const DspProgram& p = inv->executable->program;
  const int32_t t = io_kind == TSR_IO_INPUT ? p.graph.inputs[index] : p.graph.outputs[index];
  if (b->type != kDspTcmBufferType && b->type != TSR_BUFFER_TYPE_DMABUF)
    return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("attach: buffer type ", b->type, " is not one the DSP accepts"));
  // Padded rows start on TCM lines: so must the buffer (an import too).
  if (reinterpret_cast<uintptr_t>(b->host) % kAlignment != 0)
    return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("attach: buffer of tensor '", p.graph.tensors[t].name,
                                                               "' is not ", kAlignment, "-byte aligned"));
  // The buffer's type says its layout: a TCM buffer holds padded rows.
  const uint64_t need = BufferBytes(b->type, p.graph.tensors[t]);
  if (b->size < need)
    return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("attach: buffer of ", b->size, " bytes is smaller than tensor '",
                                                               p.graph.tensors[t].name, "' (", need, " bytes in ",
                                                               b->type == kDspTcmBufferType ? "the TCM" : "dense", ")"));
  slots[index] = b;
  return TSR_OK;
}

tsr_status AttachInput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_INPUT, i, b); }
tsr_status AttachOutput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_OUTPUT, i, b); }

tsr_status Invoke(tsr_invocation inv) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "invoke: NULL invocation");
  inv->ran = false;
  std::vector<DspIo> ins, outs;
  const kit::GraphSnapshot& g = inv->executable->program.graph;
  for (size_t i = 0; i < inv->inputs.size(); ++i) {
    if (inv->inputs[i] == nullptr) return kit::ReportError(TSR_FAILED_PRECONDITION, absl::StrCat("invoke: input ", i, " not attached"));
    ins.push_back({inv->inputs[i]->host, BufferRowStride(inv->inputs[i]->type, g.tensors[g.inputs[i]])});
  }
  for (size_t i = 0; i < inv->outputs.size(); ++i) {
    if (inv->outputs[i] == nullptr) return kit::ReportError(TSR_FAILED_PRECONDITION, absl::StrCat("invoke: output ", i, " not attached"));
    outs.push_back({inv->outputs[i]->host, BufferRowStride(inv->outputs[i]->type, g.tensors[g.outputs[i]])});
  }
  FaultInjector& faults = *inv->executable->context->faults;
  inv->start_ns = kit::MonotonicNowNs();
  if (Fault f = faults.BeforeInvoke(); !f.ok()) {
    inv->end_ns = kit::MonotonicNowNs();
    return Report(f);
  }
  const tsr_status code = kit::Guarded([&]() -> absl::Status { return RunDspProgram(inv->executable->program, ins, outs); });
  inv->end_ns = kit::MonotonicNowNs();
  inv->host_time_us = static_cast<double>(inv->end_ns - inv->start_ns) / 1000.0;
  if (code != TSR_OK) return code;
  inv->ran = true;
  if (Fault f = faults.AfterInvoke(); !f.ok()) return Report(f);
  return TSR_OK;
}

// The async table (dsp_async.h): the worker runs Invoke itself, so an
// asynchronous invoke meets the same faults and keeps the same timing and
// metrics as a synchronous one.
tsr_status RunQueued(tsr_invocation inv, std::string* error) {
  const tsr_status code = Invoke(inv);
  if (code != TSR_OK) *error = kit::LastErrorMessage();
  return code;
}

tsr_status CreateTimeline(tsr_device_context ctx, uint64_t initial_value, tsr_timeline* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "create_timeline: NULL context");
  AsyncQueue* queue = nullptr;
  {
    std::lock_guard<std::mutex> lock(ctx->async_lock);
    if (ctx->async == nullptr) ctx->async = std::make_unique<AsyncQueue>(RunQueued);
    queue = ctx->async.get();
  }
  return queue->CreateTimeline(initial_value, out);
}

void DestroyTimeline(tsr_timeline t) {
  if (t != nullptr) t->queue->DestroyTimeline(t);
}

tsr_status InvokeAsync(tsr_invocation inv, const tsr_timeline_point* waits, size_t wait_count, tsr_timeline_point signal) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "invoke_async: NULL invocation");
  tsr_device_context ctx = inv->executable->context;
  AsyncQueue* queue = nullptr;
  {
    std::lock_guard<std::mutex> lock(ctx->async_lock);
    queue = ctx->async.get();
  }
  if (queue == nullptr)
    return kit::ReportError(TSR_INVALID_ARGUMENT, "invoke_async: the signal timeline is not one of this device context "
                                                  "(it has none)");
  return queue->Enqueue(inv, waits, wait_count, signal);
}

tsr_status WaitTimeline(tsr_timeline_point point, uint64_t timeout_ns) {
  if (point.timeline == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "wait: NULL timeline");
  return point.timeline->queue->Wait(point, timeout_ns);
}

tsr_status QueryTimeline(tsr_timeline t, uint64_t* out_value, tsr_status* out_failure, char* out_text, size_t capacity,
                         size_t* out_length) {
  if (t == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "query: NULL timeline");
  return t->queue->Query(t, out_value, out_failure, out_text, capacity, out_length);
}

tsr_status SignalTimeline(tsr_timeline_point point) {
  if (point.timeline == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "signal: NULL timeline");
  return point.timeline->queue->Signal(point);
}

const tsr_dispatch_async_api kAsyncApi = {
    .header = {sizeof(tsr_dispatch_async_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .create_timeline = CreateTimeline,
    .destroy_timeline = DestroyTimeline,
    .invoke_async = InvokeAsync,
    .wait = WaitTimeline,
    .query = QueryTimeline,
    .signal = SignalTimeline,
};

// Descriptors are fixed per library; values per invoke.
constexpr kit::MetricDescriptor kMetrics[] = {
    {"cycles", "cycles"},          // modelled vector-unit cycles ([mock_dsp] throughput model)
    {"time_us", "us"},             // the same at clock_mhz: the modelled device time
    {"kernel_time_us", "us"},      // host time of the simulation
    {"ops_executed", "ops"},
};
constexpr size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

void MetricValues(const tsr_invocation_s& inv, double* out) {
  const DspProgram& p = inv.executable->program;
  out[0] = static_cast<double>(p.cycles);
  out[1] = CyclesToMicroseconds(inv.executable->context->soc, p.cycles);
  out[2] = inv.host_time_us;
  out[3] = inv.ran ? static_cast<double>(p.graph.ops.size()) : 0.0;
}

tsr_status MetricCount(tsr_invocation inv, size_t* out) {
  if (inv == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = kMetricCount;
  return TSR_OK;
}

tsr_status GetMetric(tsr_invocation inv, size_t index, tsr_metric* out) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  double values[kMetricCount];
  MetricValues(*inv, values);
  return kit::FillMetric(kMetrics, index, index < kMetricCount ? values[index] : 0, out);
}

tsr_status ExecutableMetricCount(tsr_executable exe, size_t* out) {
  if (exe == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = kMetricCount;
  return TSR_OK;
}

tsr_status ExecutableMetricInfo(tsr_executable exe, size_t index, tsr_metric* out) {
  if (exe == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL executable");
  return kit::FillMetric(kMetrics, index, 0, out);
}

tsr_status InvocationMetricValues(tsr_invocation inv, double* out, size_t count) {
  if (inv == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (count != kMetricCount) return kit::ReportError(TSR_INVALID_ARGUMENT, "count differs from executable_metric_count");
  MetricValues(*inv, out);
  return TSR_OK;
}

tsr_status InvocationTiming(tsr_invocation inv, tsr_invocation_timing* out) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  const DspProgram& p = inv->executable->program;
  return kit::FillTiming(inv->start_ns, inv->end_ns, CyclesToMicroseconds(inv->executable->context->soc, p.cycles), out);
}

tsr_status Detach(tsr_invocation inv, int32_t io_kind, size_t index) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  return kit::DetachSlot(io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs, index);
}
tsr_status DetachInput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_INPUT, i); }
tsr_status DetachOutput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_OUTPUT, i); }

tsr_status BufferTypeCount(tsr_device_context ctx, size_t* out) {
  if (ctx == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = ctx->soc.accepts_dmabuf ? 2 : 1;
  return TSR_OK;
}

tsr_status GetBufferTypeInfo(tsr_device_context ctx, size_t index, tsr_buffer_type_info* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL context");
  if (index >= (ctx->soc.accepts_dmabuf ? 2u : 1u)) return kit::ReportError(TSR_OUT_OF_RANGE, "buffer type index out of range");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_type_info, max_size_bytes))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "get_buffer_type_info: struct too small");
  // Both are host memory in this simulation, hence mappable (the runtime
  // converts through map_buffer).
  out->type = index == 0 ? kDspTcmBufferType : TSR_BUFFER_TYPE_DMABUF;
  out->flags = TSR_BUFFER_TYPE_FLAG_HOST_MAPPABLE | TSR_BUFFER_TYPE_FLAG_HOST_COHERENT |
               (index == 0 ? 0u : TSR_BUFFER_TYPE_FLAG_IMPORT_DMABUF);
  out->name = index == 0 ? kDspTcmBufferName : "dmabuf";
  out->min_alignment = kAlignment;
  out->reserved0 = 0;
  out->max_size_bytes = 0;
  return TSR_OK;
}

// f16 tensors are rounded once from f32 lanes (the cpu reference rounds
// once from f64), so they may differ by one f16 step (2^-10 relative);
// f32 results by a few f32 roundings (docs/mock_dsp.md).
tsr_status ExecutableNumerics(tsr_executable exe, tsr_numerics* out) {
  if (exe == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_numerics, description))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "executable_numerics: NULL argument or struct too small");
  out->float_precision = TSR_PRECISION_FP32;
  out->reserved = 0;
  out->relative_tolerance = exe->program.has_f16 ? 9.765625e-4 : 1e-5;
  out->absolute_tolerance = exe->program.has_f16 ? 6.103515625e-5 : 1e-5;
  out->description = exe->program.has_f16 ? "FP32 vector lanes, f16 rounded once on store"
                                          : "FP32 vector lanes, wide accumulator for sums";
  return TSR_OK;
}

tsr_status BufferLayoutCount(tsr_executable e, int32_t io_kind, size_t index, size_t* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (io_kind != TSR_IO_INPUT && io_kind != TSR_IO_OUTPUT) return kit::ReportError(TSR_INVALID_ARGUMENT, "bad io_kind");
  if (index >= (io_kind == TSR_IO_INPUT ? e->program.graph.inputs : e->program.graph.outputs).size())
    return kit::ReportError(TSR_OUT_OF_RANGE, "io index out of range");
  *out = LayoutCount(e->context->soc.accepts_dmabuf);
  return TSR_OK;
}

tsr_status GetBufferLayout(tsr_executable e, int32_t io_kind, size_t index, size_t alternative, tsr_buffer_layout* out) {
  size_t count = 0;
  if (tsr_status s = BufferLayoutCount(e, io_kind, index, &count); s != TSR_OK) return s;
  if (alternative >= count) return kit::ReportError(TSR_OUT_OF_RANGE, "layout alternative out of range");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_layout, vendor_layout_id))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "get_buffer_layout: struct too small");
  const auto& list = io_kind == TSR_IO_INPUT ? e->program.graph.inputs : e->program.graph.outputs;
  FillLayout(e->program.graph.tensors[list[index]], e->context->soc.accepts_dmabuf, alternative, out);
  return TSR_OK;
}

// Between two buffers of this context only: the TCM is this DSP's memory.
tsr_status ConvertBuffer(tsr_device_context ctx, tsr_buffer src, const tsr_buffer_layout* src_layout, tsr_buffer dst,
                         const tsr_buffer_layout* dst_layout) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "convert_buffer: NULL context");
  {
    std::lock_guard<std::mutex> lock(buffer_owner_lock);
    auto owned = [&](tsr_buffer b) {
      auto it = BufferOwners().find(b);
      return it != BufferOwners().end() && it->second == ctx;
    };
    if (!owned(src) || !owned(dst))
      return kit::ReportError(TSR_INVALID_ARGUMENT, "convert_buffer: both buffers must be this context's");
  }
  return ConvertRows(src, src_layout, dst, dst_layout);
}

tsr_status CheckCompatibility(tsr_device_context ctx, const void*, size_t, const char*, int32_t* out) {
  if (ctx == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = TSR_COMPATIBILITY_UNSUPPORTED;  // no bytecode exists for the DSP
  return TSR_OK;
}

const tsr_dispatch_api kApi = {
    .header = {sizeof(tsr_dispatch_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .get_last_error = GetLastError,
    .get_info = GetInfo,
    .create_device_context = CreateContext,
    .destroy_device_context = DestroyContext,
    .load_executable = LoadExecutable,
    .unload_executable = UnloadExecutable,
    .executable_io_count = IoCount,
    .buffer_requirements = Requirements,
    .allocate_buffer = AllocateBuffer,
    .register_buffer = RegisterBuffer,
    .release_buffer = ReleaseBuffer,
    .map_buffer = kit::MapHostBuffer,
    .unmap_buffer = kit::UnmapHostBuffer,
    .create_invocation = CreateInvocation,
    .destroy_invocation = DestroyInvocation,
    .attach_input = AttachInput,
    .attach_output = AttachOutput,
    .invoke = Invoke,
    .metric_count = MetricCount,
    .get_metric = GetMetric,
    .executable_numerics = ExecutableNumerics,
    .check_compatibility = CheckCompatibility,
    .detach_input = DetachInput,
    .detach_output = DetachOutput,
    .buffer_type_count = BufferTypeCount,
    .get_buffer_type_info = GetBufferTypeInfo,
    .buffer_layout_count = BufferLayoutCount,
    .get_buffer_layout = GetBufferLayout,
    .convert_buffer = ConvertBuffer,
    .async = &kAsyncApi,
    .executable_metric_count = ExecutableMetricCount,
    .executable_metric_info = ExecutableMetricInfo,
    .invocation_metric_values = InvocationMetricValues,
    .invocation_timing = InvocationTiming,
};

}  // namespace
}  // namespace tessera::mock_dsp

// The ABI this library implements (1.4 rules, and every version down to
// 1.0), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

extern "C" TSR_EXPORT tsr_status tsr_dispatch_negotiate(tsr_version host, tsr_version* out_version,
                                                        const tsr_dispatch_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::mock_dsp::kApi);
}
