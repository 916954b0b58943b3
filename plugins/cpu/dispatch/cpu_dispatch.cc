// The cpu dispatch library: loads what the cpu compiler produced (AOT
// bytecode or a JIT handle) and runs it on host memory, with the fast
// kernels (oneDNN, the default, cpu.kernels=fast) where they apply and the
// reference kernels elsewhere, or with the reference kernels only
// (cpu.kernels=reference). Loading is the cpu plugin's compile step: with
// the fast kernels it packs the weights for this CPU and creates the
// primitives, once; cpu.threads=N (default 1) sets their thread count.
// Only HOST buffers are accepted; anything else is converted by the
// runtime before it reaches us.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "plugins/kit/bytecode_builder.h"
#include "plugins/kit/build_identity.h"
#include "plugins/kit/constant_references.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/dispatch_support.h"
#include "plugins/kit/entry_point.h"
#include "plugins/kit/host_buffers.h"
#include "plugins/cpu/shared/cpu_jit_program.h"
#include "plugins/cpu/dispatch/cpu_program.h"
#include "plugins/kit/options.h"
#include "plugins/kit/plugin_status.h"
#include "tessera/dispatch.h"

struct tsr_device_context_s {
  std::string kernels = "fast";
  int threads = 1;
  uint64_t max_memory_bytes = tessera::cpu::kDefaultMaxMemoryBytes;  // cpu.max_memory_bytes
  std::unique_ptr<tessera::cpu::fast::FastEngine> fast;  // null with reference kernels
  // The version the host negotiated (its options' header says it): codes
  // added after it are not returned to this host.
  tsr_version negotiated{1, 0};
};

struct tsr_executable_s {
  tsr_device_context context = nullptr;
  tessera::cpu::CpuProgram program;
};


struct tsr_invocation_s {
  tsr_executable executable = nullptr;
  std::vector<tsr_buffer> inputs;
  std::vector<tsr_buffer> outputs;
  tessera::cpu::CpuRunState state;
  // The attached buffers' host pointers, refilled by each invoke (kept so
  // that a steady-state invoke allocates nothing).
  std::vector<void*> input_ptrs, output_ptrs;
  double host_time_us = 0;
  double ops = 0;
  uint64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC of the last invoke
};

namespace tessera::cpu {
namespace {

constexpr uint32_t kAlignment = 64;
const char* const kSocModels[] = {"any"};
const tsr_dispatch_info kInfo = {
    .header = {sizeof(tsr_dispatch_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kCpuVendor,
    .library_version = "0.1.0",
    .soc_models = kSocModels,
    .soc_model_count = 1,
    .capabilities = TSR_DISPATCH_CAP_BYTECODE | TSR_DISPATCH_CAP_JIT_HANDLE,
    .reserved0 = 0,
    .sanitizer = kit::BuildSanitizer(),
    .reserved1 = 0,
    .build_id = kit::kBuildId,
};

const char* GetLastError() { return kit::LastErrorMessage(); }

tsr_status GetInfo(const tsr_dispatch_info** out) {
  if (out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "out_info is NULL");
  *out = &kInfo;
  return TSR_OK;
}

tsr_status CreateContext(const tsr_device_context_options* opts, tsr_device_context* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("out_context is NULL");
    const tsr_key_value* kv = nullptr;
    size_t count = 0;
    if (TSR_ABI_HAS_FIELD(opts, tsr_device_context_options, option_count)) {
      kv = opts->options;
      count = opts->option_count;
    }
    absl::StatusOr<std::map<std::string, std::string>> parsed =
        kit::ParseVendorOptions(kv, count, kCpuVendor,
                                {{"kernels", {"reference", "fast"}}, {"threads", {}}, {"max_memory_bytes", {}}});
    if (!parsed.ok()) return parsed.status();
    auto ctx = std::make_unique<tsr_device_context_s>();
    if (opts != nullptr) ctx->negotiated = {opts->header.major, opts->header.minor};
    if (auto it = parsed->find("kernels"); it != parsed->end()) ctx->kernels = it->second;
    if (auto it = parsed->find("threads"); it != parsed->end()) {
      if (!absl::SimpleAtoi(it->second, &ctx->threads) || ctx->threads < 1 || ctx->threads > 1024)
        return absl::InvalidArgumentError(
            absl::StrCat("option 'cpu.threads' has value '", it->second, "'; expected an integer in [1, 1024]"));
    }
    if (auto it = parsed->find("max_memory_bytes"); it != parsed->end()) {
      if (!absl::SimpleAtoi(it->second, &ctx->max_memory_bytes) || ctx->max_memory_bytes < 1)
        return absl::InvalidArgumentError(absl::StrCat("option 'cpu.max_memory_bytes' has value '", it->second,
                                                       "'; expected a positive integer (bytes)"));
    }
    if (ctx->kernels == "fast") {
      absl::StatusOr<std::unique_ptr<fast::FastEngine>> engine = fast::FastEngine::Create(ctx->threads);
      if (!engine.ok()) return engine.status();
      ctx->fast = *std::move(engine);
    }
    *out = ctx.release();
    return absl::OkStatus();
  });
}

void DestroyContext(tsr_device_context c) { delete c; }

tsr_status LoadExecutable(tsr_device_context ctx, const tsr_executable_source* src, tsr_executable* out) {
  tsr_status special = TSR_OK;
  tsr_status code = kit::Guarded([&]() -> absl::Status {
    if (ctx == nullptr || out == nullptr || !TSR_ABI_HAS_FIELD(src, tsr_executable_source, jit_handle))
      return absl::InvalidArgumentError("load_executable: NULL argument or source struct too old");
    std::span<const uint8_t> encoded;
    if (src->kind == TSR_EXECUTABLE_BYTECODE) {
      if (src->bytecode == nullptr) return absl::InvalidArgumentError("load_executable: bytecode is NULL");
      const uint32_t flags = TSR_ABI_HAS_FIELD(src, tsr_executable_source, flags) ? src->flags : 0;
      absl::StatusOr<kit::VerifiedEntry> entry = kit::VerifyAndFindEntry(
          {static_cast<const uint8_t*>(src->bytecode), src->bytecode_size}, kCpuVendor, src->entry_point, &special,
          flags);
      if (!entry.ok()) return entry.status();
      if (entry->header.vendor_format_version != kCpuBodyFormatVersion) {
        special = TSR_BYTECODE_INCOMPATIBLE;
        return absl::FailedPreconditionError(absl::StrCat("cpu bytecode body format ", entry->header.vendor_format_version,
                                                          " is not supported (this library reads ", kCpuBodyFormatVersion, ")"));
      }
      encoded = entry->body;
    } else if (src->kind == TSR_EXECUTABLE_JIT_HANDLE) {
      absl::StatusOr<const kit::JitPayload*> jit =
          kit::JitPayloadFromHandle(src->jit_handle, kCpuJitMagic, kCpuBodyFormatVersion);
      if (!jit.ok()) return jit.status();
      encoded = {(*jit)->body, (*jit)->body_size};
    } else {
      return absl::InvalidArgumentError(absl::StrCat("load_executable: unknown executable kind ", src->kind));
    }
    absl::StatusOr<std::vector<tsr_constant_binding>> bindings = kit::BindingsOf(src);
    if (!bindings.ok()) return bindings.status();
    absl::StatusOr<CpuProgram> program = LoadCpuProgram(encoded, ctx->fast.get(), ctx->max_memory_bytes, *bindings);
    if (!program.ok()) {
      // Over cpu.max_memory_bytes is a budget, not a malformed blob, and a
      // permanent one: the same load fails until the option changes. A host
      // from before 1.4 does not know BUDGET_EXCEEDED.
      if (program.status().code() != absl::StatusCode::kResourceExhausted)
        special = TSR_BYTECODE_INVALID;
      else if (tsr_version_compare(ctx->negotiated, tsr_version{1, 4}) >= 0)
        special = TSR_BUDGET_EXCEEDED;
      return program.status();
    }
    auto exe = std::make_unique<tsr_executable_s>();
    exe->context = ctx;
    exe->program = *std::move(program);
    *out = exe.release();
    return absl::OkStatus();
  });
  // Bytecode problems keep their own codes (checksum, vendor, malformed).
  if (code != TSR_OK && special != TSR_OK) return special;
  return code;
}

void UnloadExecutable(tsr_executable e) { delete e; }

tsr_status IoCount(tsr_executable e, size_t* ins, size_t* outs) {
  if (e == nullptr || ins == nullptr || outs == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *ins = e->program.graph.inputs.size();
  *outs = e->program.graph.outputs.size();
  return TSR_OK;
}

tsr_status Requirements(tsr_executable e, int32_t io_kind, size_t index, tsr_buffer_requirements* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  const auto& list = io_kind == TSR_IO_INPUT ? e->program.graph.inputs : e->program.graph.outputs;
  if (io_kind != TSR_IO_INPUT && io_kind != TSR_IO_OUTPUT) return kit::ReportError(TSR_INVALID_ARGUMENT, "bad io_kind");
  if (index >= list.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "io index out of range");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_requirements, dtype))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "requirements struct too small");
  const int32_t t = list[index];
  out->buffer_types[0] = TSR_BUFFER_TYPE_HOST;
  out->buffer_type_count = 1;
  out->alignment = kAlignment;
  out->size_bytes = e->program.tensor_bytes[t];
  out->layout = TSR_LAYOUT_DENSE;
  out->row_stride_bytes = 0;
  out->dtype = e->program.graph.tensors[t].dtype;
  return TSR_OK;
}

tsr_status AllocateBuffer(tsr_device_context ctx, const tsr_buffer_desc* desc, tsr_buffer* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "allocate_buffer: NULL context");
  return kit::AllocateHostBuffer(desc, {TSR_BUFFER_TYPE_HOST}, kAlignment, out);
}

tsr_status RegisterBuffer(tsr_device_context ctx, const tsr_buffer_desc* desc, tsr_buffer* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "register_buffer: NULL context");
  return kit::RegisterHostBuffer(desc, {TSR_BUFFER_TYPE_HOST}, out);
}

tsr_status CreateInvocation(tsr_executable e, tsr_invocation* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  // An ABI function: nothing may be thrown across it (bad_alloc included).
  return kit::Guarded([&]() -> absl::Status {
    auto inv = std::make_unique<tsr_invocation_s>();
    inv->executable = e;
    inv->inputs.assign(e->program.graph.inputs.size(), nullptr);
    inv->outputs.assign(e->program.graph.outputs.size(), nullptr);
    *out = inv.release();
    return absl::OkStatus();
  });
}

void DestroyInvocation(tsr_invocation inv) { delete inv; }

tsr_status Attach(tsr_invocation inv, int32_t io_kind, size_t index, tsr_buffer b) {
  if (inv == nullptr || b == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  auto& slots = io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs;
  if (index >= slots.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "attach: index out of range");
  const auto& graph = inv->executable->program.graph;
  const int32_t t = io_kind == TSR_IO_INPUT ? graph.inputs[index] : graph.outputs[index];
  if (b->size < inv->executable->program.tensor_bytes[t])
    return kit::ReportError(TSR_INVALID_ARGUMENT,
                            absl::StrCat("attach: buffer of ", b->size, " bytes is smaller than tensor '",
                                         graph.tensors[t].name, "' (", inv->executable->program.tensor_bytes[t], " bytes)"));
  slots[index] = b;
  return TSR_OK;
}

tsr_status AttachInput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_INPUT, i, b); }
tsr_status AttachOutput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_OUTPUT, i, b); }

tsr_status Invoke(tsr_invocation inv) {
  return kit::Guarded([&]() -> absl::Status {
    if (inv == nullptr) return absl::InvalidArgumentError("invoke: NULL invocation");
    std::vector<void*>& ins = inv->input_ptrs;
    std::vector<void*>& outs = inv->output_ptrs;
    ins.resize(inv->inputs.size());
    outs.resize(inv->outputs.size());
    for (size_t i = 0; i < inv->inputs.size(); ++i) {
      if (inv->inputs[i] == nullptr) return absl::FailedPreconditionError(absl::StrCat("invoke: input ", i, " not attached"));
      ins[i] = inv->inputs[i]->host;
    }
    for (size_t i = 0; i < inv->outputs.size(); ++i) {
      if (inv->outputs[i] == nullptr) return absl::FailedPreconditionError(absl::StrCat("invoke: output ", i, " not attached"));
      outs[i] = inv->outputs[i]->host;
    }
    inv->start_ns = kit::MonotonicNowNs();
    absl::Status s = RunCpuProgram(inv->executable->program, inv->state, ins, outs);
    inv->end_ns = kit::MonotonicNowNs();
    inv->host_time_us = static_cast<double>(inv->end_ns - inv->start_ns) / 1000.0;
    inv->ops = static_cast<double>(inv->executable->program.graph.ops.size());
    return s;
  });
}

// The metrics: descriptors fixed per library (so stable per executable),
// values per invoke.
constexpr kit::MetricDescriptor kMetrics[] = {
    {"kernel_time_us", "us"},
    {"ops_executed", "ops"},
    // How many of them ran a fast kernel (oneDNN or a vectorized loop); the
    // rest ran the reference kernels.
    {"ops_fast", "ops"},
    // The fast kernels launched (a conv chain or fused elementwise group is
    // one, however many ops it does) and the oneDNN layout reorders inside
    // them: what fusion saves shows here.
    {"fast_kernels", "kernels"},
    {"reorders", "reorders"},
};
constexpr size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

void MetricValues(const tsr_invocation_s& inv, double* out) {
  out[0] = inv.host_time_us;
  out[1] = inv.ops;
  out[2] = static_cast<double>(inv.state.last_fast_ops);
  const CpuProgram& program = inv.executable->program;
  const bool fast = inv.state.last_fast_ops > 0;
  out[3] = fast ? static_cast<double>(program.fast_kernel_count) : 0;
  out[4] = fast ? static_cast<double>(program.fast_reorder_count) : 0;
}

tsr_status MetricCount(tsr_invocation inv, size_t* out) {
  if (inv == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = kMetricCount;
  return TSR_OK;
}

tsr_status GetMetric(tsr_invocation inv, size_t index, tsr_metric* out) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
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
  if (exe == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
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
  return kit::FillTiming(inv->start_ns, inv->end_ns, -1.0, out);  // a real CPU: no modelled device time
}

tsr_status Detach(tsr_invocation inv, int32_t io_kind, size_t index) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  return kit::DetachSlot(io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs, index);
}
tsr_status DetachInput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_INPUT, i); }
tsr_status DetachOutput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_OUTPUT, i); }

tsr_status BufferTypeCount(tsr_device_context ctx, size_t* out) {
  if (ctx == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = 1;
  return TSR_OK;
}

tsr_status GetBufferTypeInfo(tsr_device_context ctx, size_t index, tsr_buffer_type_info* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL context");
  if (index != 0) return kit::ReportError(TSR_OUT_OF_RANGE, "buffer type index out of range");
  return kit::HostBufferTypeInfo(kAlignment, out);
}

tsr_status CheckCompatibility(tsr_device_context ctx, const void* bytecode, size_t size, const char* compat,
                              int32_t* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL context");
  return kit::CheckBlobCompatibility(bytecode, size, kCpuVendor, kCpuBodyFormatVersion, kSocModels, "", compat,
                                     kit::kBuildId, out);
}

// Every float op runs in FP32 (the reference kernels accumulate in f64 and
// round once; oneDNN sums in FP32 in its own order), so the runner's own
// FP32 tolerance applies.
tsr_status ExecutableNumerics(tsr_executable exe, tsr_numerics* out) {
  if (exe == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_numerics, description))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "executable_numerics: NULL argument or struct too small");
  out->float_precision = TSR_PRECISION_FP32;
  out->reserved = 0;
  out->relative_tolerance = 0;
  out->absolute_tolerance = 0;
  out->description = exe->program.fast_op_count > 0 ? "FP32 (oneDNN kernels, FP32 accumulation)"
                                                    : "FP32 (reference kernels, f64 accumulation)";
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
    .release_buffer = kit::ReleaseHostBuffer,
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
    .buffer_layout_count = nullptr,  // one dense HOST layout: buffer_requirements says it all
    .get_buffer_layout = nullptr,
    .convert_buffer = nullptr,       // HOST only: the runtime copies
    .async = nullptr,
    .executable_metric_count = ExecutableMetricCount,
    .executable_metric_info = ExecutableMetricInfo,
    .invocation_metric_values = InvocationMetricValues,
    .invocation_timing = InvocationTiming,
};

}  // namespace
}  // namespace tessera::cpu

// The ABI this library implements (1.4 rules, and every version down to
// 1.0), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

// Exported to cpu_dispatch_entry.cc only (the library the host loads),
// which sets the OpenMP wait policy before this library is loaded.
extern "C" TSR_EXPORT tsr_status tessera_cpu_dispatch_impl_negotiate(tsr_version host, tsr_version* out_version,
                                                                     const tsr_dispatch_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::cpu::kApi);
}
