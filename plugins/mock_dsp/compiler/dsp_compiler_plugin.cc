// The mock DSP compiler plugin: claims the vector-unit ops (op_support.h)
// with a cost estimate from the SoC's [mock_dsp] section, and compiles a
// partition into a JIT handle holding its graph encoding. JIT only: the
// DSP has no stable bytecode, so the info declares TSR_COMPILE_MODE_JIT
// alone and an AOT compile is refused (the framework then gives every op
// to the next accelerator and says why). Built only against api/ and
// plugins/kit.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/kit/build_identity.h"
#include "plugins/kit/claims.h"
#include "plugins/mock_dsp/shared/cost_model.h"
#include "plugins/mock_dsp/shared/dsp_contract.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/shared/dsp_soc.h"
#include "plugins/mock_dsp/shared/hold_file.h"
#include "plugins/mock_dsp/shared/op_support.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/entry_point.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/kit/plugin_status.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  tessera::mock_dsp::DspOptions options;
  std::vector<std::string> refusal_texts;  // reason_detail storage (1.0/1.1 path)
};

namespace tessera::mock_dsp {
namespace {

const char* const kSocModels[] = {"any"};

const tsr_compiler_plugin_info kInfo = {
    .header = {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kDspVendor,
    .plugin_version = "0.1.0",
    .soc_models = kSocModels,
    .soc_model_count = 1,
    .compile_modes = TSR_COMPILE_MODE_JIT,
    .reserved0 = 0,
    .default_priority = 200,  // after the NPU, before the cpu fallback (compiler_plugin.h)
    .sanitizer = kit::BuildSanitizer(),
    .short_name = kDspShortName,
    .build_id = kit::kBuildId,
};

// The attribute keys the DSP kernels read; an op carrying another key is
// refused rather than run with the key ignored.
const std::vector<int32_t>& KnownAttributes() {
  static const std::vector<int32_t> keys = {
      TSR_ATTR_AXIS,     TSR_ATTR_AXES,     TSR_ATTR_KEEP_DIMS, TSR_ATTR_PERM,     TSR_ATTR_SHAPE,
      TSR_ATTR_STARTS,   TSR_ATTR_ENDS,     TSR_ATTR_STEPS,     TSR_ATTR_CLIP_MIN, TSR_ATTR_CLIP_MAX,
      TSR_ATTR_EPSILON,  TSR_ATTR_NOOP_WITH_EMPTY_AXES};
  return keys;
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
    const bool has = TSR_ABI_HAS_FIELD(options, tsr_compiler_plugin_options, option_count);
    absl::StatusOr<DspOptions> parsed = ParseDspOptions(has ? options->options : nullptr, has ? options->option_count : 0);
    if (!parsed.ok()) return parsed.status();
    if (parsed->refuse_load)
      return absl::UnavailableError("mock_dsp: refusing to load (fault injection: mock_dsp.refuse_load=1)");
    auto* plugin = new tsr_compiler_plugin_s();
    plugin->options = *parsed;
    *out = plugin;
    return absl::OkStatus();
  });
}

void Destroy(tsr_compiler_plugin plugin) { delete plugin; }

absl::StatusOr<kit::ClaimSet> Judge(const tsr_graph_view_api* view, tsr_graph graph, const tsr_partition_options* options) {
  absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, graph, /*reference_constants=*/true);
  if (!g.ok()) return g.status();
  const bool has_soc = TSR_ABI_HAS_FIELD(options, tsr_partition_options, soc_description_size);
  absl::StatusOr<DspSoc> soc = ReadDspSoc(has_soc ? options->soc_description : nullptr,
                                          has_soc ? options->soc_description_size : 0);
  kit::ClaimSet claims;
  claims.ops.resize(g->ops.size());
  for (size_t i = 0; i < g->ops.size(); ++i) {
    const kit::SnapshotOp& op = g->ops[i];
    kit::OpVerdict& v = claims.ops[i];
    int32_t unknown_key = 0;
    if (!soc.ok()) {
      // No [mock_dsp] section (or a broken one): this SoC has no usable DSP.
      v = {.supported = false, .reason = TSR_REFUSAL_OTHER,
           .detail = absl::StrCat("mock_dsp: no usable DSP on this SoC: ", soc.status().message())};
      continue;
    }
    const Verdict verdict = JudgeOp(*g, op);
    if (!verdict.ok()) {
      v = {.supported = false, .reason = verdict.reason, .detail = verdict.detail};
    } else if (kit::HasUnknownAttribute(view, graph, i, KnownAttributes(), &unknown_key)) {
      v = {.supported = false, .reason = TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
           .detail = absl::StrCat("mock_dsp: ", OpName(op.type), ": attribute key ", unknown_key,
                                  " is not implemented by the DSP kernels")};
    } else {
      const uint64_t cycles = OpCycles(*soc, *g, op);
      v = {.supported = true, .reason = TSR_REFUSAL_NONE, .detail = "",
           .estimated_time_us = CyclesToMicroseconds(*soc, cycles), .estimated_cycles = cycles,
           // A lone data move is not worth a trip to the DSP and back.
           .flags = ClassOf(op.type) == OpClass::kLayout ? TSR_CLAIM_FLAG_NOT_ALONE : 0u};
    }
  }
  return claims;
}

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out_support == nullptr)
      return absl::InvalidArgumentError("partition: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(view, graph, options);
    if (!claims.ok()) return claims.status();
    return kit::WriteLegacySupport(*claims, out_support, &plugin->refusal_texts);
  });
}

tsr_status ClaimOps(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                    const tsr_partition_options* options, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr) return absl::InvalidArgumentError("claim_ops: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(view, graph, options);
    if (!claims.ok()) return claims.status();
    return kit::ReportClaims(*claims, sink_api, sink);
  });
}

// JIT only: an AOT request is refused here too, for hosts that ignore
// compile_modes.
absl::Status RequireJit(const tsr_compile_options* options, const char* call) {
  absl::StatusOr<uint32_t> mode = kit::CompileModeOf(options, call);
  if (!mode.ok()) return mode.status();
  if (*mode != TSR_COMPILE_MODE_JIT)
    return absl::UnimplementedError(absl::StrCat("mock_dsp: ", call, ": AOT is not supported (the DSP compiles JIT only)"));
  return absl::OkStatus();
}

tsr_status Compile(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, const tsr_graph* partitions,
                   size_t partition_count, const tsr_compile_options* options, tsr_compiled* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out == nullptr || (partition_count > 0 && partitions == nullptr))
      return absl::InvalidArgumentError("compile: NULL argument");
    if (absl::Status s = RequireJit(options, "compile"); !s.ok()) return s;
    if (plugin->options.hold_compile && !HoldUntilReleased(plugin->options.hold_file, plugin->options.hang_ms))
      return absl::DeadlineExceededError(absl::StrCat("mock_dsp: compile was held ", plugin->options.hang_ms,
                                                      " ms and never released (fault injection: "
                                                      "mock_dsp.hold_compile=1, nothing created ",
                                                      plugin->options.hold_file, ")"));
    const uint32_t flags = TSR_ABI_HAS_FIELD(options, tsr_compile_options, flags) ? options->flags : 0;
    absl::StatusOr<std::vector<kit::PartitionCode>> code =
        kit::CompileEach(partition_count, flags, [&](size_t p) -> absl::StatusOr<kit::PartitionCode> {
          absl::StatusOr<kit::GraphSnapshot> g = kit::SnapshotGraph(view, partitions[p], /*reference_constants=*/true);
          if (!g.ok()) return g.status();
          for (const kit::SnapshotOp& op : g->ops) {
            const Verdict v = JudgeOp(*g, op);
            if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("op id ", op.id, ": ", v.detail));
            if (op.type == plugin->options.fail_compile_op) {
              // Named as the culprit, so the host can split around it.
              kit::PartitionCode failed;
              failed.status = absl::InternalError(absl::StrCat("mock_dsp: compiling ", OpName(op.type), " (op id ",
                                                               op.id, ") failed (fault injection: mock_dsp.fail_compile_op)"));
              failed.culprit_op_ids.push_back(op.id);
              if ((flags & TSR_COMPILE_FLAG_PARTIAL_OK) == 0) return failed.status;
              return failed;
            }
          }
          return kit::PartitionCode{.entry_point = absl::StrCat("mock_dsp_partition_", p),
                                    .body = kit::EncodeSnapshot(*g),
                                    .input_count = static_cast<uint32_t>(g->inputs.size()),
                                    .output_count = static_cast<uint32_t>(g->outputs.size())};
        });
    if (!code.ok()) return code.status();
    absl::StatusOr<tsr_compiled> compiled = kit::MakeCompiledResult(
        TSR_COMPILE_MODE_JIT, {kDspVendor, "any", kDspBodyFormatVersion}, kDspJitMagic, *std::move(code));
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
    .compiled_bytecode = kit::CompiledBytecode,  // JIT results have none: TSR_NOT_FOUND
    .compiled_entry_point = kit::CompiledEntryPoint,
    .compiled_jit_handle = kit::CompiledJitHandle,
    .release_compiled = kit::ReleaseCompiled,
    .claim_ops = ClaimOps,
    .estimate_partition = nullptr,  // per-op estimates add up: no fusion, no residency
    .compiled_partition_status = kit::CompiledPartitionStatus,
    .compiled_partition_culprits = kit::CompiledPartitionCulprits,
    .compatibility_info = nullptr,  // JIT only: nothing is cached or shipped
};

}  // namespace
}  // namespace tessera::mock_dsp

// The ABI this library implements (1.4 rules; partition() kept for 1.0/1.1
// hosts), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::mock_dsp::kApi);
}
