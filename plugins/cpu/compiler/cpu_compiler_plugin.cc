// The cpu compiler plugin: claims every op its reference kernels support
// (all of the v1 op set, for the dtypes docs/ops.md lists) and "compiles" a
// partition into a portable encoding of its subgraph, which the cpu
// dispatch library interprets. Built only against api/ and plugins/kit.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiled_result.h"
#include "entry_point.h"
#include "common/cpu_jit_program.h"
#include "graph_snapshot.h"
#include "kernel_api.h"
#include "options.h"
#include "plugin_status.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  std::vector<std::string> refusal_texts;  // reason_detail storage
};


namespace tessera::cpu {
namespace {

const char* const kSocModels[] = {"any"};

const tsr_compiler_plugin_info kInfo = {
    {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    kCpuVendor, "0.1.0", kSocModels, 1, TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT};

TensorRef TypeOnly(const kit::SnapshotTensor& t) {
  TensorRef r;
  r.dtype = t.dtype;
  r.shape = t.shape;
  r.quant.scales = t.quant.scales;
  r.quant.zero_points = t.quant.zero_points;
  r.quant.axis = t.quant.axis;
  return r;
}

const char* GetLastError() { return kit::LastErrorMessage(); }

tsr_status GetInfo(const tsr_compiler_plugin_info** out) {
  if (out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "out_info is NULL");
  *out = &kInfo;
  return TSR_OK;
}

tsr_status Create(const tsr_compiler_plugin_options* options, tsr_compiler_plugin* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("out_plugin is NULL");
    const tsr_key_value* kv = nullptr;
    size_t count = 0;
    if (TSR_ABI_HAS_FIELD(options, tsr_compiler_plugin_options, option_count)) {
      kv = options->options;
      count = options->option_count;
    }
    // The cpu compiler has no options of its own; kernel choice and thread
    // count are dispatch-time options (cpu.kernels, cpu.threads), accepted
    // here so one option list can go to both libraries.
    absl::StatusOr<std::map<std::string, std::string>> parsed =
        kit::ParseVendorOptions(kv, count, kCpuVendor, {{"kernels", {"reference", "fast"}}, {"threads", {}}});
    if (!parsed.ok()) return parsed.status();
    *out = new tsr_compiler_plugin_s();
    return absl::OkStatus();
  });
}

void Destroy(tsr_compiler_plugin plugin) { delete plugin; }

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out_support == nullptr)
      return absl::InvalidArgumentError("partition: NULL argument");
    absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, graph, /*reference_constants=*/true);
    if (!g.ok()) return g.status();
    plugin->refusal_texts.clear();
    plugin->refusal_texts.reserve(g->ops.size());
    for (size_t i = 0; i < g->ops.size(); ++i) {
      const kit::SnapshotOp& op = g->ops[i];
      tsr_op_support& s = out_support[i];
      const uint32_t size = s.header.struct_size;
      std::vector<TensorRef> ins, outs;
      for (int32_t t : op.inputs) ins.push_back(t >= 0 ? TypeOnly(g->tensors[t]) : TensorRef{});
      for (int32_t t : op.outputs) outs.push_back(TypeOnly(g->tensors[t]));
      std::string reason;
      bool ok = op.type != TSR_OP_DISPATCH && ReferenceSupports(op.type, ins, outs, &reason);
      if (op.type == TSR_OP_DISPATCH) reason = "DISPATCH is already compiled";
      if (size >= offsetof(tsr_op_support, supported) + sizeof(uint32_t)) s.supported = ok ? 1 : 0;
      if (size >= offsetof(tsr_op_support, reason) + sizeof(int32_t))
        s.reason = ok ? TSR_REFUSAL_NONE
                      : (op.type == TSR_OP_DISPATCH || op.type <= TSR_OP_UNKNOWN || op.type >= TSR_OP_COUNT_V1
                             ? TSR_REFUSAL_UNSUPPORTED_OP
                             : TSR_REFUSAL_UNSUPPORTED_DTYPE);
      plugin->refusal_texts.push_back(ok ? "" : reason);
      if (size >= offsetof(tsr_op_support, reason_detail) + sizeof(const char*))
        s.reason_detail = ok ? nullptr : plugin->refusal_texts.back().c_str();
      // The framework's cost model times the CPU itself from the SoC file.
      if (size >= offsetof(tsr_op_support, estimated_time_us) + sizeof(double)) s.estimated_time_us = -1.0;
      if (size >= offsetof(tsr_op_support, estimated_cycles) + sizeof(uint64_t)) s.estimated_cycles = 0;
    }
    return absl::OkStatus();
  });
}

tsr_status Compile(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, const tsr_graph* partitions,
                   size_t partition_count, const tsr_compile_options* options, tsr_compiled* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out == nullptr || (partition_count > 0 && partitions == nullptr))
      return absl::InvalidArgumentError("compile: NULL argument");
    if (!TSR_ABI_HAS_FIELD(options, tsr_compile_options, mode))
      return absl::InvalidArgumentError("compile: options missing or too old (no mode)");
    std::vector<kit::PartitionCode> code;
    for (size_t p = 0; p < partition_count; ++p) {
      absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, partitions[p], /*reference_constants=*/true);
      if (!g.ok()) return g.status();
      for (const kit::SnapshotOp& op : g->ops)
        if (op.type == TSR_OP_DISPATCH)
          return absl::InvalidArgumentError(absl::StrCat("partition ", p, " contains a DISPATCH op"));
      // The cpu's "code" is the partition itself, encoded; the dispatch
      // library interprets it (and packs weights for the fast kernels when
      // it loads, since packing is specific to the CPU it runs on).
      code.push_back({absl::StrCat("cpu_partition_", p), kit::EncodeSnapshot(*g),
                      static_cast<uint32_t>(g->inputs.size()), static_cast<uint32_t>(g->outputs.size())});
    }
    const char* soc = TSR_ABI_HAS_FIELD(options, tsr_compile_options, soc_model) && options->soc_model
                          ? options->soc_model : "any";
    absl::StatusOr<tsr_compiled> compiled =
        kit::MakeCompiledResult(options->mode, {kCpuVendor, soc, kCpuBodyFormatVersion}, kCpuJitMagic, std::move(code));
    if (!compiled.ok()) return compiled.status();
    *out = *compiled;
    return absl::OkStatus();
  });
}

const tsr_compiler_plugin_api kApi = {
    {sizeof(tsr_compiler_plugin_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    GetLastError, GetInfo, Create, Destroy, Partition, Compile,
    kit::CompiledBytecode, kit::CompiledEntryPoint, kit::CompiledJitHandle, kit::ReleaseCompiled,
};

}  // namespace
}  // namespace tessera::cpu

extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, out_version, out_api, &tessera::cpu::kApi);
}
