// The cpu compiler plugin: claims every op its reference kernels support
// (all of the v1 op set, for the dtypes docs/ops.md lists) and "compiles" a
// partition into a portable encoding of its subgraph, which the cpu
// dispatch library interprets. Built only against api/ and plugins/kit.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/kit/build_identity.h"
#include "plugins/kit/claims.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/constant_references.h"
#include "plugins/kit/entry_point.h"
#include "plugins/cpu/shared/cpu_jit_program.h"
#include "plugins/kit/graph_snapshot.h"
#include "support/reference_kernels/kernel_api.h"
#include "plugins/kit/options.h"
#include "plugins/kit/plugin_status.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  std::vector<std::string> refusal_texts;  // reason_detail storage (1.0/1.1 path)
  std::vector<std::pair<std::string, std::string>> options;  // for the compatibility string
};


namespace tessera::cpu {
namespace {

const char* const kSocModels[] = {"any"};

const tsr_compiler_plugin_info kInfo = {
    .header = {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kCpuVendor,
    .plugin_version = "0.1.0",
    .soc_models = kSocModels,
    .soc_model_count = 1,
    .compile_modes = TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT,
    .reserved0 = 0,
    // Claims every op, so it goes last: the fallback of every plan.
    .default_priority = TSR_PRIORITY_FALLBACK,
    .sanitizer = kit::BuildSanitizer(),
    .short_name = nullptr,
    .build_id = kit::kBuildId,
};

// The attribute keys the reference kernels implement (docs/ops.md): every
// 1.0 key. An op carrying any other key is refused, not guessed at.
const std::vector<int32_t>& KnownAttributes() {
  static const std::vector<int32_t> keys = [] {
    std::vector<int32_t> k;
    for (int32_t key = TSR_ATTR_UNKNOWN + 1; key < TSR_ATTR_KEY_COUNT_V1; ++key) k.push_back(key);
    // The resize and transposed-convolution keys of ABI 1.3, the arg
    // reduce, top k and cum sum keys of 1.4.
    for (int32_t key = TSR_ATTR_KEY_COUNT_V1_2; key < TSR_ATTR_KEY_COUNT_V1_4; ++key) k.push_back(key);
    return k;
  }();
  return keys;
}

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
        kit::ParseVendorOptions(kv, count, kCpuVendor,
                                {{"kernels", {"reference", "fast"}}, {"threads", {}}, {"max_memory_bytes", {}}});
    if (!parsed.ok()) return parsed.status();
    auto* plugin = new tsr_compiler_plugin_s();
    plugin->options.assign(parsed->begin(), parsed->end());
    *out = plugin;
    return absl::OkStatus();
  });
}

void Destroy(tsr_compiler_plugin plugin) { delete plugin; }

// What the cpu claims: every op its reference kernels support, for the
// dtypes docs/ops.md lists. No estimates: the framework's cost model times
// the CPU itself from the SoC file.
absl::StatusOr<kit::ClaimSet> Judge(const tsr_graph_view_api* view, tsr_graph graph) {
  absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, graph, /*reference_constants=*/true);
  if (!g.ok()) return g.status();
  kit::ClaimSet claims;
  claims.ops.resize(g->ops.size());
  for (size_t i = 0; i < g->ops.size(); ++i) {
    const kit::SnapshotOp& op = g->ops[i];
    kit::OpVerdict& v = claims.ops[i];
    std::vector<TensorRef> ins, outs;
    for (int32_t t : op.inputs) ins.push_back(t >= 0 ? TypeOnly(g->tensors[t]) : TensorRef{});
    for (int32_t t : op.outputs) outs.push_back(TypeOnly(g->tensors[t]));
    int32_t unknown_key = 0;
    if (op.type == TSR_OP_DISPATCH) {
      v = {.supported = false, .reason = TSR_REFUSAL_UNSUPPORTED_OP, .detail = "DISPATCH is already compiled"};
    } else if (tsr_op_type_since_minor(op.type) < 0) {
      v = {.supported = false, .reason = TSR_REFUSAL_UNSUPPORTED_OP, .detail = absl::StrCat("op type ", op.type, " is unknown")};
    } else if (kit::HasUnknownAttribute(view, graph, i, KnownAttributes(), &unknown_key)) {
      v = {.supported = false, .reason = TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
           .detail = absl::StrCat("attribute key ", unknown_key, " is not implemented by the cpu kernels")};
    } else {
      std::string reason;
      const bool ok = ReferenceSupports(op.type, ins, outs, &reason);
      v = {.supported = ok, .reason = ok ? TSR_REFUSAL_NONE : TSR_REFUSAL_UNSUPPORTED_DTYPE, .detail = ok ? "" : reason};
    }
  }
  return claims;
}

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out_support == nullptr)
      return absl::InvalidArgumentError("partition: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(view, graph);
    if (!claims.ok()) return claims.status();
    return kit::WriteLegacySupport(*claims, out_support, &plugin->refusal_texts);
  });
}

tsr_status ClaimOps(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                    const tsr_partition_options* options, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr) return absl::InvalidArgumentError("claim_ops: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(view, graph);
    if (!claims.ok()) return claims.status();
    return kit::ReportClaims(*claims, sink_api, sink);
  });
}

tsr_status CompatibilityInfo(tsr_compiler_plugin plugin, const tsr_compile_options* options, char* out,
                             size_t capacity, size_t* out_length) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr) return absl::InvalidArgumentError("compatibility_info: NULL plugin");
    // Options compile() would refuse describe no code.
    if (absl::StatusOr<uint32_t> mode = kit::CompileModeOf(options, "compatibility_info"); !mode.ok())
      return mode.status();
    // The cpu's code is the encoded subgraph: it depends on the build and the
    // options only, never on the SoC.
    const std::string text = kit::CompatibilityString(kCpuVendor, "any", nullptr, 0, plugin->options);
    tsr_copy_text(text.c_str(), out, capacity, out_length);
    return absl::OkStatus();
  });
}

tsr_status Compile(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, const tsr_graph* partitions,
                   size_t partition_count, const tsr_compile_options* options, tsr_compiled* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out == nullptr || (partition_count > 0 && partitions == nullptr))
      return absl::InvalidArgumentError("compile: NULL argument");
    if (absl::StatusOr<uint32_t> mode = kit::CompileModeOf(options, "compile"); !mode.ok()) return mode.status();
    const uint32_t flags = TSR_ABI_HAS_FIELD(options, tsr_compile_options, flags) ? options->flags : 0;
    // With the host's promise to bind them at load, large constants stay in
    // the model and the bytecode only names them: the compile then holds no
    // copy of the weights (docs/abi.md §7).
    const bool external_constants =
        options->mode == TSR_COMPILE_MODE_AOT && (flags & TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK) != 0;
    absl::StatusOr<std::vector<kit::PartitionCode>> code =
        kit::CompileEach(partition_count, flags, [&](size_t p) -> absl::StatusOr<kit::PartitionCode> {
          absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, partitions[p], /*reference_constants=*/true);
          if (!g.ok()) return g.status();
          for (const kit::SnapshotOp& op : g->ops)
            if (op.type == TSR_OP_DISPATCH)
              return absl::InvalidArgumentError(absl::StrCat("partition ", p, " contains a DISPATCH op"));
          // The cpu's "code" is the partition itself, encoded; the dispatch
          // library interprets it (and packs weights for the fast kernels
          // when it loads, since packing is specific to the CPU it runs on).
          // Encoded straight into the result: the snapshot references the
          // host's constants, so the weights exist once more, not twice.
          const auto input_count = static_cast<uint32_t>(g->inputs.size());
          const auto output_count = static_cast<uint32_t>(g->outputs.size());
          std::vector<tsr_constant_reference> refs;
          if (external_constants) refs = kit::ExternalizeConstants(*g, kit::kExternalConstantMinBytes);
          return kit::PartitionCode{.entry_point = absl::StrCat("cpu_partition_", p),
                                    .input_count = input_count,
                                    .output_count = output_count,
                                    .body_writer = kit::SnapshotBodyWriter(*std::move(g)),
                                    .constant_references = std::move(refs)};
        });
    if (!code.ok()) return code.status();
    const char* soc = TSR_ABI_HAS_FIELD(options, tsr_compile_options, soc_model) && options->soc_model
                          ? options->soc_model : "any";
    absl::StatusOr<tsr_compiled> compiled =
        kit::MakeCompiledResult(options->mode, {kCpuVendor, soc, kCpuBodyFormatVersion}, kCpuJitMagic, *std::move(code));
    if (!compiled.ok()) return compiled.status();
    *out = *compiled;
    return absl::OkStatus();
  });
}

const tsr_compiler_plugin_api kApi = {
    .header = {sizeof(tsr_compiler_plugin_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .get_last_error = GetLastError,
    .get_info = GetInfo,
    .create = Create,
    .destroy = Destroy,
    .partition = Partition,  // for hosts that negotiate 1.0/1.1
    .compile = Compile,
    .compiled_bytecode = kit::CompiledBytecode,
    .compiled_entry_point = kit::CompiledEntryPoint,
    .compiled_jit_handle = kit::CompiledJitHandle,
    .release_compiled = kit::ReleaseCompiled,
    .claim_ops = ClaimOps,
    .estimate_partition = nullptr,  // no device: the framework models the CPU
    .compiled_partition_status = kit::CompiledPartitionStatus,
    .compiled_partition_culprits = kit::CompiledPartitionCulprits,
    .compatibility_info = CompatibilityInfo,
    .compiled_constant_references = kit::CompiledConstantReferences,
};

}  // namespace
}  // namespace tessera::cpu

// The ABI this library implements (1.4 rules; partition() kept for 1.0/1.1
// hosts), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::cpu::kApi);
}
