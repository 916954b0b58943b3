// The systolic_npu dispatch library: verifies and loads what the compiler
// produced (AOT bytecode in the standard envelope, or a JIT handle) and
// runs it on the modelled NPU (core/executor.h). Buffers are host memory;
// DEVICE_DRAM is offered first (the NPU's DRAM carve-out, modelled in host
// memory) and HOST second, so NPU-to-NPU edges stay on the device while the
// application can still hand in plain host buffers without a copy.
//
// Options (all "systolic_npu."-prefixed):
//   mode     = fast | cycle_stepped   matrix-unit execution (same bits, same metrics)
//   overlap  = default | none         cycle-model convention of the metrics
//   dataflow = ws | os | is           compile-time; accepted and ignored here
//   tune     = off | search           compile-time; accepted and ignored here
//
// Metrics of the last invoke: cycles_total, cycles_compute, cycles_dma_stall,
// macs, utilization, sram_read_bytes, sram_write_bytes, dram_read_bytes,
// dram_write_bytes, dram_bytes_compulsory, time_us.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/kit/build_identity.h"
#include "plugins/kit/bytecode_builder.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/dispatch_support.h"
#include "plugins/systolic_npu/shared/vendor.h"
#include "plugins/kit/entry_point.h"
#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/kit/host_buffers.h"
#include "plugins/systolic_npu/machine/lookup_tables.h"
#include "plugins/systolic_npu/machine/numerics.h"
#include "plugins/kit/options.h"
#include "plugins/kit/plugin_status.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/sram_first_touch.h"
#include "plugins/systolic_npu/dispatch/sram_pool.h"
#include "tessera/dispatch.h"

struct tsr_device_context_s {
  tessera::systolic::SystolicSocConfig soc;
  // The SoC's name as bytecode records it: the host's soc_model label (a
  // custom file's stem, which blobs compiled for it carry) when it passed a
  // description, else the SoC's own name.
  std::string soc_label;
  tessera::systolic::ExecOptions exec;
  // The device's SRAM and scratch, shared by every executable on it and
  // borrowed per invoke (sram_pool.h).
  tessera::systolic::SramPool sram;
};

struct tsr_executable_s {
  tsr_device_context context = nullptr;
  tessera::systolic::Program program;  // exactly one entry point
  // SramReadsBeforeWrites of the entry, computed once at load: the pooled
  // memory a run borrows may have served any other executable.
  std::vector<tessera::systolic::Range> first_touch;
  // Metric descriptors, stable until unload (executable_metric_info).
  std::array<tessera::systolic::RunMetrics::Named_, tessera::systolic::RunMetrics::kNamedCount> metric_descriptors{};
};

struct tsr_invocation_s {
  tsr_executable executable = nullptr;
  std::vector<tsr_buffer> inputs;
  std::vector<tsr_buffer> outputs;
  tessera::systolic::RunMetrics metrics;
  std::array<tessera::systolic::RunMetrics::Named_, tessera::systolic::RunMetrics::kNamedCount> named{};
  bool has_metrics = false;
  uint64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC of the last invoke
  // The attached buffers as spans, refilled by each invoke (kept so that a
  // steady-state invoke allocates nothing).
  std::vector<std::span<const uint8_t>> input_spans;
  std::vector<std::span<uint8_t>> output_spans;
};

namespace tessera::systolic {
namespace {

constexpr uint32_t kAlignment = 64;
const char* const kSocModels[] = {"ref-edge", "ref-phone", "ref-server"};
const tsr_dispatch_info kInfo = {
    .header = {sizeof(tsr_dispatch_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kVendor,
    .library_version = kPluginVersion,
    .soc_models = kSocModels,
    .soc_model_count = 3,
    .capabilities = TSR_DISPATCH_CAP_BYTECODE | TSR_DISPATCH_CAP_JIT_HANDLE,
    .reserved0 = 0,
    .sanitizer = kit::BuildSanitizer(),
    .reserved1 = 0,
    .build_id = kit::kBuildId,
};

const std::map<std::string, std::set<std::string>> kOptions = {
    {"dataflow", {"ws", "os", "is"}},
    {"overlap", {"default", "none"}},
    {"tune", {"off", "search"}},
    {"mode", {"fast", "cycle_stepped"}},
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
    const char* model = nullptr;
    const char* desc = nullptr;
    size_t desc_size = 0;
    if (TSR_ABI_HAS_FIELD(opts, tsr_device_context_options, soc_description_size)) {
      kv = opts->options;
      count = opts->option_count;
      model = opts->soc_model;
      desc = opts->soc_description;
      desc_size = opts->soc_description_size;
    }
    auto parsed = kit::ParseVendorOptions(kv, count, kVendor, kOptions);
    if (!parsed.ok()) return parsed.status();
    auto soc = SelectSoc(model, desc, desc_size);
    if (!soc.ok()) return soc.status();
    auto ctx = std::make_unique<tsr_device_context_s>();
    ctx->soc = *std::move(soc);
    ctx->soc_label = desc != nullptr && desc_size > 0 && model != nullptr && *model != '\0' ? model : ctx->soc.name;
    if (auto it = parsed->find("mode"); it != parsed->end()) ctx->exec.mode = *ParseExecMode(it->second);
    if (auto it = parsed->find("overlap"); it != parsed->end()) ctx->exec.overlap = *ParseOverlap(it->second);
    // The banks are touched here, at load, not in the first run:
    // that run's first NPU partition paid ~2 ms of page faults on ref-phone.
    ctx->sram.Warm(ctx->soc.npu);
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
    std::span<const uint8_t> body;
    if (src->kind == TSR_EXECUTABLE_BYTECODE) {
      if (src->bytecode == nullptr) return absl::InvalidArgumentError("load_executable: bytecode is NULL");
      if (src->entry_point == nullptr) return absl::InvalidArgumentError("load_executable: entry_point is NULL");
      const uint32_t flags = TSR_ABI_HAS_FIELD(src, tsr_executable_source, flags) ? src->flags : 0;
      auto entry = kit::VerifyAndFindEntry({static_cast<const uint8_t*>(src->bytecode), src->bytecode_size},
                                           kVendor, src->entry_point, &special, flags);
      if (!entry.ok()) return entry.status();
      if (entry->header.vendor_format_version != kBodyVersion) {
        special = TSR_BYTECODE_INCOMPATIBLE;
        return absl::FailedPreconditionError(
            absl::StrCat("systolic_npu bytecode body format ", entry->header.vendor_format_version,
                         " is not supported (this library reads ", kBodyVersion, ")"));
      }
      body = entry->body;
    } else if (src->kind == TSR_EXECUTABLE_JIT_HANDLE) {
      absl::StatusOr<const kit::JitPayload*> jit = kit::JitPayloadFromHandle(src->jit_handle, kJitMagic, kBodyVersion);
      if (!jit.ok()) return jit.status();
      body = {(*jit)->body, (*jit)->body_size};
    } else {
      return absl::InvalidArgumentError(absl::StrCat("load_executable: unknown executable kind ", src->kind));
    }
    absl::StatusOr<Program> program = ParseProgram(body);
    if (!program.ok()) {
      special = TSR_BYTECODE_INVALID;
      return program.status();
    }
    if (program->entries.size() != 1) {
      special = TSR_BYTECODE_INVALID;
      return absl::InvalidArgumentError("systolic_npu body: an entry must hold exactly one program entry");
    }
    const TargetInfo want = TargetInfo::FromSoc(ctx->soc.npu);
    const TargetInfo& got = program->target;
    if (got.array_rows != want.array_rows || got.array_cols != want.array_cols ||
        got.input_bank_bytes != want.input_bank_bytes || got.weight_bank_bytes != want.weight_bank_bytes ||
        got.accum_bank_bytes != want.accum_bank_bytes) {
      special = TSR_BYTECODE_INCOMPATIBLE;
      return VerifyProgram(*program, ctx->soc.npu);  // names both targets
    }
    if (absl::Status v = VerifyProgram(*program, ctx->soc.npu); !v.ok()) {
      special = TSR_BYTECODE_INVALID;
      return v;
    }
    auto exe = std::make_unique<tsr_executable_s>();
    exe->context = ctx;
    exe->program = *std::move(program);
    exe->first_touch = SramReadsBeforeWrites(exe->program, exe->program.entries[0]);
    exe->metric_descriptors = RunMetrics{}.Named();
    *out = exe.release();
    return absl::OkStatus();
  });
  if (code != TSR_OK && special != TSR_OK) return special;
  return code;
}

void UnloadExecutable(tsr_executable e) { delete e; }

const Region* IoRegion(tsr_executable e, int32_t io_kind, size_t index) {
  const RegionKind kind = io_kind == TSR_IO_INPUT ? RegionKind::kInput : RegionKind::kOutput;
  for (const Region& r : e->program.entries[0].regions)
    if (r.kind == kind && r.io_index == index) return &r;
  return nullptr;
}

tsr_status IoCount(tsr_executable e, size_t* ins, size_t* outs) {
  if (e == nullptr || ins == nullptr || outs == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *ins = e->program.entries[0].CountRegions(RegionKind::kInput);
  *outs = e->program.entries[0].CountRegions(RegionKind::kOutput);
  return TSR_OK;
}

tsr_status Requirements(tsr_executable e, int32_t io_kind, size_t index, tsr_buffer_requirements* out) {
  if (e == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (io_kind != TSR_IO_INPUT && io_kind != TSR_IO_OUTPUT) return kit::ReportError(TSR_INVALID_ARGUMENT, "bad io_kind");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_requirements, dtype))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "requirements struct too small");
  const Region* r = IoRegion(e, io_kind, index);
  if (r == nullptr) return kit::ReportError(TSR_OUT_OF_RANGE, "io index out of range");
  out->buffer_types[0] = TSR_BUFFER_TYPE_DEVICE_DRAM;
  out->buffer_types[1] = TSR_BUFFER_TYPE_HOST;
  out->buffer_type_count = 2;
  out->alignment = kAlignment;
  out->size_bytes = r->size_bytes;
  out->layout = TSR_LAYOUT_DENSE;
  out->row_stride_bytes = 0;
  out->dtype = r->dtype;
  return TSR_OK;
}

// The NPU's DRAM is modelled in host memory, so the kit's host buffers
// serve both types; only HOST memory can be registered (imported).
tsr_status AllocateBuffer(tsr_device_context ctx, const tsr_buffer_desc* desc, tsr_buffer* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "allocate_buffer: NULL context");
  return kit::AllocateHostBuffer(desc, {TSR_BUFFER_TYPE_DEVICE_DRAM, TSR_BUFFER_TYPE_HOST}, kAlignment, out);
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
    inv->inputs.assign(e->program.entries[0].CountRegions(RegionKind::kInput), nullptr);
    inv->outputs.assign(e->program.entries[0].CountRegions(RegionKind::kOutput), nullptr);
    *out = inv.release();
    return absl::OkStatus();
  });
}

void DestroyInvocation(tsr_invocation inv) { delete inv; }

tsr_status Attach(tsr_invocation inv, int32_t io_kind, size_t index, tsr_buffer b) {
  if (inv == nullptr || b == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  auto& slots = io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs;
  if (index >= slots.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "attach: index out of range");
  const Region* r = IoRegion(inv->executable, io_kind, index);
  if (b->size < r->size_bytes)
    return kit::ReportError(TSR_INVALID_ARGUMENT,
                            absl::StrCat("attach: buffer of ", b->size, " bytes is smaller than ",
                                         io_kind == TSR_IO_INPUT ? "input " : "output ", index, " (",
                                         r->size_bytes, " bytes)"));
  slots[index] = b;
  return TSR_OK;
}

tsr_status AttachInput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_INPUT, i, b); }
tsr_status AttachOutput(tsr_invocation inv, size_t i, tsr_buffer b) { return Attach(inv, TSR_IO_OUTPUT, i, b); }

tsr_status Invoke(tsr_invocation inv) {
  return kit::Guarded([&]() -> absl::Status {
    if (inv == nullptr) return absl::InvalidArgumentError("invoke: NULL invocation");
    std::vector<std::span<const uint8_t>>& ins = inv->input_spans;
    std::vector<std::span<uint8_t>>& outs = inv->output_spans;
    ins.resize(inv->inputs.size());
    outs.resize(inv->outputs.size());
    for (size_t i = 0; i < inv->inputs.size(); ++i) {
      if (inv->inputs[i] == nullptr) return absl::FailedPreconditionError(absl::StrCat("invoke: input ", i, " not attached"));
      ins[i] = {static_cast<const uint8_t*>(inv->inputs[i]->host), inv->inputs[i]->size};
    }
    for (size_t i = 0; i < inv->outputs.size(); ++i) {
      if (inv->outputs[i] == nullptr) return absl::FailedPreconditionError(absl::StrCat("invoke: output ", i, " not attached"));
      outs[i] = {static_cast<uint8_t*>(inv->outputs[i]->host), inv->outputs[i]->size};
    }
    const tsr_executable e = inv->executable;
    inv->has_metrics = false;
    SramPool::Lease sram = e->context->sram.Borrow();
    sram.memory().first_touch = &e->first_touch;
    inv->start_ns = kit::MonotonicNowNs();
    absl::StatusOr<RunMetrics> m =
        Execute(e->program, e->program.entries[0], e->context->soc.npu, ins, outs, e->context->exec, &sram.memory());
    inv->end_ns = kit::MonotonicNowNs();
    if (!m.ok()) return m.status();
    inv->metrics = *m;
    inv->named = m->Named();
    inv->has_metrics = true;
    return absl::OkStatus();
  });
}

tsr_status MetricCount(tsr_invocation inv, size_t* out) {
  if (inv == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = inv->has_metrics ? inv->named.size() : 0;
  return TSR_OK;
}

tsr_status GetMetric(tsr_invocation inv, size_t index, tsr_metric* out) {
  if (inv == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_metric, unit))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument or metric struct too small");
  if (!inv->has_metrics || index >= inv->named.size())
    return kit::ReportError(TSR_OUT_OF_RANGE, "metric index out of range");
  const RunMetrics::Named_& m = inv->named[index];
  out->name = m.name;
  out->value = m.value;
  out->unit = m.unit;
  return TSR_OK;
}

tsr_status ExecutableNumerics(tsr_executable exe, tsr_numerics* out) {
  if (exe == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_numerics, description))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "executable_numerics: NULL argument or struct too small");
  const bool fp16 = ComputesInFp16(exe->program.entries[0]);
  // The FP16 bound (2^-9) is far wider than the tables' (2^-16), so it
  // covers FP16 entries that also use them.
  const bool lut = !fp16 && UsesLookupTables(exe->program.entries[0]);
  out->float_precision = fp16 ? TSR_PRECISION_FP16 : TSR_PRECISION_FP32;
  out->reserved = 0;
  out->relative_tolerance = fp16 ? kFp16RelativeTolerance : (lut ? kLutRelativeTolerance : 0);
  out->absolute_tolerance = fp16 ? kFp16AbsoluteTolerance : (lut ? kLutAbsoluteTolerance : 0);
  out->description = fp16  ? "FP16 operands, FP32 accumulation (docs/systolic_npu_isa.md section 9)"
                     : lut ? "FP32 vector math with interpolated function tables "
                             "(docs/systolic_npu_isa.md section 9) and exact INT8"
                           : "FP32 vector math and exact INT8";
  return TSR_OK;
}

tsr_status ExecutableMetricCount(tsr_executable exe, size_t* out) {
  if (exe == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = exe->metric_descriptors.size();
  return TSR_OK;
}

tsr_status ExecutableMetricInfo(tsr_executable exe, size_t index, tsr_metric* out) {
  if (exe == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_metric, unit)) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (index >= exe->metric_descriptors.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "metric index out of range");
  const RunMetrics::Named_& m = exe->metric_descriptors[index];
  out->name = m.name;
  out->value = 0;
  out->unit = m.unit;
  return TSR_OK;
}

tsr_status InvocationMetricValues(tsr_invocation inv, double* out, size_t count) {
  if (inv == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (count != inv->executable->metric_descriptors.size())
    return kit::ReportError(TSR_INVALID_ARGUMENT, "count differs from executable_metric_count");
  if (!inv->has_metrics) return kit::ReportError(TSR_FAILED_PRECONDITION, "no successful invoke yet");
  for (size_t i = 0; i < count; ++i) out[i] = inv->named[i].value;
  return TSR_OK;
}

tsr_status InvocationTiming(tsr_invocation inv, tsr_invocation_timing* out) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  return kit::FillTiming(inv->start_ns, inv->end_ns, inv->has_metrics ? inv->metrics.time_us : -1.0, out);
}

tsr_status Detach(tsr_invocation inv, int32_t io_kind, size_t index) {
  if (inv == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL invocation");
  auto& slots = io_kind == TSR_IO_INPUT ? inv->inputs : inv->outputs;
  if (index >= slots.size()) return kit::ReportError(TSR_OUT_OF_RANGE, "detach: index out of range");
  slots[index] = nullptr;
  return TSR_OK;
}
tsr_status DetachInput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_INPUT, i); }
tsr_status DetachOutput(tsr_invocation inv, size_t i) { return Detach(inv, TSR_IO_OUTPUT, i); }

// DEVICE_DRAM is this library's own (library-scoped, common.h): the NPU's
// DRAM carve-out, modelled in host memory, so it is mappable.
tsr_status BufferTypeCount(tsr_device_context ctx, size_t* out) {
  if (ctx == nullptr || out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = 2;
  return TSR_OK;
}

tsr_status GetBufferTypeInfo(tsr_device_context ctx, size_t index, tsr_buffer_type_info* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL context");
  if (index == 1) return kit::HostBufferTypeInfo(kAlignment, out);
  if (index != 0) return kit::ReportError(TSR_OUT_OF_RANGE, "buffer type index out of range");
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_type_info, max_size_bytes))
    return kit::ReportError(TSR_INVALID_ARGUMENT, "get_buffer_type_info: struct too small");
  out->type = TSR_BUFFER_TYPE_DEVICE_DRAM;
  out->flags = TSR_BUFFER_TYPE_FLAG_HOST_MAPPABLE | TSR_BUFFER_TYPE_FLAG_HOST_COHERENT;
  out->name = "npu_dram";
  out->min_alignment = kAlignment;
  out->reserved0 = 0;
  out->max_size_bytes = 0;
  return TSR_OK;
}

tsr_status CheckCompatibility(tsr_device_context ctx, const void* bytecode, size_t size, const char* compat,
                              int32_t* out) {
  if (ctx == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "NULL context");
  return kit::CheckBlobCompatibility(bytecode, size, kVendor, kBodyVersion, kSocModels, ctx->soc_label, compat,
                                     kit::kBuildId, out);
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
    .buffer_layout_count = nullptr,  // one dense layout per type: buffer_requirements says it all
    .get_buffer_layout = nullptr,
    .convert_buffer = nullptr,       // DRAM is host memory here: the runtime copies
    .async = nullptr,
    .executable_metric_count = ExecutableMetricCount,
    .executable_metric_info = ExecutableMetricInfo,
    .invocation_metric_values = InvocationMetricValues,
    .invocation_timing = InvocationTiming,
};

}  // namespace
}  // namespace tessera::systolic

// The ABI this library implements (1.4 rules, and every version down to
// 1.0), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

extern "C" TSR_EXPORT tsr_status tsr_dispatch_negotiate(tsr_version host, tsr_version* out_version,
                                                        const tsr_dispatch_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::systolic::kApi);
}
