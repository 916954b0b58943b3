// The systolic_npu compiler plugin: claims the ops the reference NPU runs
// (compiler/lowering.h), estimates their cost with the cycle model, and
// compiles partitions into NPU bytecode (docs/systolic_npu_isa.md) inside
// the standard envelope. Built only against api/, plugins/kit and core/.
//
// Options (all "systolic_npu."-prefixed):
//   dataflow = ws | os | is     tiling / MATMUL_TILE dataflow (default: the
//                               SoC's default_dataflow)
//   overlap  = default | none   cycle-model convention of the estimates
//   mode     = fast | cycle_stepped   (dispatch-time; accepted here so one
//                               option list can go to both libraries)
//   tune     = off | search     search each GEMM-family layer's dataflow and
//                               tile size for the fewest modelled cycles
//                               (compiler/layer_tuner.h; default off)
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/kit/build_identity.h"
#include "plugins/kit/bytecode_builder.h"
#include "plugins/kit/claims.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/entry_point.h"
#include "plugins/systolic_npu/shared/vendor.h"
#include "plugins/systolic_npu/compiler/layer_tuner.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/kit/options.h"
#include "plugins/kit/plugin_status.h"
#include "plugins/systolic_npu/machine/program.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  bool dataflow_set = false;
  tessera::systolic::Dataflow dataflow = tessera::systolic::Dataflow::kWeightStationary;
  tessera::systolic::Overlap overlap = tessera::systolic::Overlap::kDefault;
  bool tune = false;
  // Each distinct layer is searched once per instance: claims, estimates
  // and compile of one model lower the same ops (compiler/layer_tuner.h).
  mutable tessera::systolic::TuningMemo tuning_memo;
  tsr_log_fn log = nullptr;
  void* log_user_data = nullptr;
  std::vector<std::string> refusal_texts;  // reason_detail storage (1.0/1.1 path)
  std::string estimate_detail;             // tsr_partition_estimate.detail storage
  std::vector<std::pair<std::string, std::string>> options;  // for the compatibility string
};

namespace tessera::systolic {
namespace {

const char* const kSocModels[] = {"ref-edge", "ref-phone", "ref-server"};

const tsr_compiler_plugin_info kInfo = {
    .header = {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .vendor = kVendor,
    .plugin_version = kPluginVersion,
    .soc_models = kSocModels,
    .soc_model_count = 3,
    .compile_modes = TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT,
    .reserved0 = 0,
    .default_priority = 100,  // the first accelerator tried under "auto"
    .sanitizer = kit::BuildSanitizer(),
    .short_name = "npu",
    .build_id = kit::kBuildId,
};

const std::map<std::string, std::set<std::string>> kOptions = {
    {"dataflow", {"ws", "os", "is"}},
    {"overlap", {"default", "none"}},
    {"mode", {"fast", "cycle_stepped"}},
    {"tune", {"off", "search"}},
};

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
    auto parsed = kit::ParseVendorOptions(kv, count, kVendor, kOptions);
    if (!parsed.ok()) return parsed.status();
    auto plugin = std::make_unique<tsr_compiler_plugin_s>();
    plugin->options.assign(parsed->begin(), parsed->end());
    if (auto it = parsed->find("dataflow"); it != parsed->end()) {
      plugin->dataflow_set = true;
      plugin->dataflow = *ParseDataflow(it->second);
    }
    if (auto it = parsed->find("overlap"); it != parsed->end())
      plugin->overlap = *ParseOverlap(it->second);
    if (auto it = parsed->find("tune"); it != parsed->end()) plugin->tune = it->second == "search";
    if (TSR_ABI_HAS_FIELD(options, tsr_compiler_plugin_options, log_user_data)) {
      plugin->log = options->log;
      plugin->log_user_data = options->log_user_data;
    }
    *out = plugin.release();
    return absl::OkStatus();
  });
}

void Destroy(tsr_compiler_plugin plugin) { delete plugin; }

LoweringOptions Lowering(const tsr_compiler_plugin_s& p, const SystolicSocConfig& soc) {
  LoweringOptions lo{p.dataflow_set ? p.dataflow : soc.npu.default_dataflow};
  lo.tune = p.tune;
  lo.memo = &p.tuning_memo;
  return lo;
}

// One line per compile: what the search bought for this compile's layers,
// and what every search of this instance cost (the claims and estimates
// search first; the compile mostly finds their answers remembered).
void LogTuning(const tsr_compiler_plugin_s& plugin, const TuningTally& t) {
  const double gain = t.tuned_cycles > 0 ? static_cast<double>(t.rule_cycles) / t.tuned_cycles : 1.0;
  const TuningMemo::Totals all = plugin.tuning_memo.totals();
  const std::string line = absl::StrCat(
      "tuned ", t.layers, " GEMM-family layers (ws ", t.chosen[0], ", os ", t.chosen[1], ", is ", t.chosen[2],
      "; ", t.capped, " with a capped tile): ", t.rule_cycles, " -> ", t.tuned_cycles, " cycles (layers alone, ",
      absl::StrFormat("%.2f", gain), "x); ", t.programs_kept_rule,
      " partition(s) kept the rule's tiling (the whole program was not faster tuned); this instance searched ", all.layers, " distinct layers over ",
      all.candidates, " tilings in ", absl::StrFormat("%.1f", all.search_ms), " ms");
  plugin.log(plugin.log_user_data, TSR_LOG_INFO, line.c_str());
}

struct SocArgs {
  const char* model = nullptr;
  const char* desc = nullptr;
  size_t desc_size = 0;
};

SocArgs SocOf(const tsr_partition_options* options) {
  SocArgs a;
  if (TSR_ABI_HAS_FIELD(options, tsr_partition_options, soc_description_size)) {
    a.model = options->soc_model;
    a.desc = options->soc_description;
    a.desc_size = options->soc_description_size;
  }
  return a;
}

// What the NPU claims: the ops compiler/lowering.h lowers, each with its
// cycle-model estimate; an op whose estimate fails (too large even after
// tiling) is refused.
absl::StatusOr<kit::ClaimSet> Judge(const tsr_compiler_plugin_s& plugin, const tsr_graph_view_api* view,
                                    tsr_graph graph, const tsr_partition_options* options) {
  auto g = kit::SnapshotGraph(view, graph, /*reference_constants=*/true);
  if (!g.ok()) return g.status();
  const SocArgs a = SocOf(options);
  kit::ClaimSet claims;
  claims.ops.resize(g->ops.size());
  absl::StatusOr<SystolicSocConfig> soc = SelectSoc(a.model, a.desc, a.desc_size);
  if (!soc.ok()) {
    // A SoC without a (valid) [systolic_npu] section: nothing runs here.
    const std::string why = absl::StrCat("systolic_npu: no usable NPU on this SoC: ", soc.status().message());
    for (kit::OpVerdict& v : claims.ops) v = {.supported = false, .reason = TSR_REFUSAL_OTHER, .detail = why};
    return claims;
  }
  const LoweringOptions lo = Lowering(plugin, *soc);
  for (size_t i = 0; i < g->ops.size(); ++i) {
    OpSupport sup = CheckOpSupport(*g, g->ops[i]);
    RunMetrics m;
    bool fp16 = false;
    if (sup.supported) {
      absl::StatusOr<RunMetrics> est = EstimateOp(*g, i, soc->npu, lo, plugin.overlap, &fp16);
      if (est.ok()) {
        m = *est;
      } else {
        sup.supported = false;
        sup.reason = est.status().code() == absl::StatusCode::kResourceExhausted ? TSR_REFUSAL_TOO_LARGE
                                                                                 : TSR_REFUSAL_OTHER;
        sup.detail = std::string(est.status().message());
      }
    }
    claims.ops[i] = {.supported = sup.supported,
                     .reason = sup.supported ? TSR_REFUSAL_NONE : sup.reason,
                     .detail = sup.supported ? "" : sup.detail,
                     .estimated_time_us = sup.supported ? m.time_us : -1.0,
                     .estimated_cycles = sup.supported ? m.cycles_total : 0,
                     .flags = sup.supported && fp16 ? TSR_CLAIM_FLAG_COMPUTES_FP16 : 0u};
  }
  return claims;
}

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out_support == nullptr)
      return absl::InvalidArgumentError("partition: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(*plugin, view, graph, options);
    if (!claims.ok()) return claims.status();
    return kit::WriteLegacySupport(*claims, out_support, &plugin->refusal_texts);
  });
}

tsr_status ClaimOps(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                    const tsr_partition_options* options, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr) return absl::InvalidArgumentError("claim_ops: NULL argument");
    absl::StatusOr<kit::ClaimSet> claims = Judge(*plugin, view, graph, options);
    if (!claims.ok()) return claims.status();
    return kit::ReportClaims(*claims, sink_api, sink);
  });
}

uint64_t TensorBytes(const kit::SnapshotTensor& t) {
  return static_cast<uint64_t>(kit::ElementCount(t.shape)) * kit::DTypeByteSize(t.dtype);
}

// The partition as a whole: lowered once, costed by the cycle model over
// the whole program (fusion and weight residency included).
tsr_status EstimatePartition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph partition,
                             const tsr_partition_options* options, tsr_partition_estimate* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || !TSR_ABI_HAS_FIELD(out, tsr_partition_estimate, detail))
      return absl::InvalidArgumentError("estimate_partition: NULL argument or struct too small");
    auto g = kit::SnapshotGraph(view, partition, /*reference_constants=*/true);
    if (!g.ok()) return g.status();
    const SocArgs a = SocOf(options);
    absl::StatusOr<SystolicSocConfig> soc = SelectSoc(a.model, a.desc, a.desc_size);
    if (!soc.ok()) return soc.status();
    tsr_partition_estimate e = *out;
    e.boundary_bytes_in = e.boundary_bytes_out = e.resident_weight_bytes = 0;
    for (int32_t t : g->inputs) e.boundary_bytes_in += TensorBytes(g->tensors[t]);
    for (int32_t t : g->outputs) e.boundary_bytes_out += TensorBytes(g->tensors[t]);
    for (const kit::SnapshotTensor& t : g->tensors)
      if (t.is_constant) e.resident_weight_bytes += TensorBytes(t);
    absl::StatusOr<Program> program = LowerGraph(*g, soc->npu, Lowering(*plugin, *soc), "estimate");
    if (!program.ok()) {
      plugin->estimate_detail = std::string(program.status().message());
      e.fits = 0;
      e.reason = program.status().code() == absl::StatusCode::kResourceExhausted ? TSR_REFUSAL_TOO_LARGE
                                                                                 : TSR_REFUSAL_OTHER;
      e.detail = plugin->estimate_detail.c_str();
      e.device_time_us = -1;
      e.cycles = 0;
    } else {
      const RunMetrics m = EstimateEntry(*program, program->entries.at(0), soc->npu, plugin->overlap);
      e.fits = 1;
      e.reason = TSR_REFUSAL_NONE;
      e.detail = nullptr;
      e.device_time_us = m.time_us;
      e.cycles = m.cycles_total;
    }
    *out = e;
    return absl::OkStatus();
  });
}

tsr_status CompatibilityInfo(tsr_compiler_plugin plugin, const tsr_compile_options* options, char* out,
                             size_t capacity, size_t* out_length) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || !TSR_ABI_HAS_FIELD(options, tsr_compile_options, soc_description_size))
      return absl::InvalidArgumentError("compatibility_info: NULL plugin or options");
    // Options compile() would refuse describe no code.
    if (absl::StatusOr<uint32_t> mode = kit::CompileModeOf(options, "compatibility_info"); !mode.ok())
      return mode.status();
    // The code depends on the build, the options and the SoC tables read.
    const std::string text = kit::CompatibilityString(kVendor, options->soc_model, options->soc_description,
                                                      options->soc_description_size, plugin->options);
    tsr_copy_text(text.c_str(), out, capacity, out_length);
    return absl::OkStatus();
  });
}

tsr_status Compile(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, const tsr_graph* partitions,
                   size_t partition_count, const tsr_compile_options* options, tsr_compiled* out) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out == nullptr || (partition_count > 0 && partitions == nullptr))
      return absl::InvalidArgumentError("compile: NULL argument");
    absl::StatusOr<uint32_t> checked_mode = kit::CompileModeOf(options, "compile");
    if (!checked_mode.ok()) return checked_mode.status();
    const uint32_t mode = *checked_mode;
    const char* model = options->soc_model;
    const char* desc = nullptr;
    size_t desc_size = 0;
    if (TSR_ABI_HAS_FIELD(options, tsr_compile_options, soc_description_size)) {
      desc = options->soc_description;
      desc_size = options->soc_description_size;
    }
    absl::StatusOr<SystolicSocConfig> soc = SelectSoc(model, desc, desc_size);
    if (!soc.ok()) return soc.status();
    LoweringOptions lo = Lowering(*plugin, *soc);
    TuningTally tally;
    lo.tally = &tally;
    const uint32_t flags = TSR_ABI_HAS_FIELD(options, tsr_compile_options, flags) ? options->flags : 0;
    absl::StatusOr<std::vector<kit::PartitionCode>> code =
        kit::CompileEach(partition_count, flags, [&](size_t p) -> absl::StatusOr<kit::PartitionCode> {
          // Weights are copied into the constant pool, so constants may be
          // referenced in place while compiling.
          auto g = kit::SnapshotGraph(view, partitions[p], /*reference_constants=*/true);
          if (!g.ok()) return g.status();
          const std::string name = absl::StrCat("systolic_npu_partition_", p);
          absl::StatusOr<Program> program = LowerGraph(*g, soc->npu, lo, name);
          if (!program.ok())
            return absl::Status(program.status().code(), absl::StrCat("partition ", p, ": ", program.status().message()));
          return kit::PartitionCode{.entry_point = name,
                                    .body = SerializeProgram(*program),
                                    .input_count = static_cast<uint32_t>(g->inputs.size()),
                                    .output_count = static_cast<uint32_t>(g->outputs.size())};
        });
    if (!code.ok()) return code.status();
    if (lo.tune && plugin->log != nullptr) LogTuning(*plugin, tally);
    // The envelope names the SoC the host asked for (abi.md §10): with a
    // description that is the host's label for it (the file's stem), which
    // need not equal the description's own [soc] name.
    const std::string envelope_soc = model != nullptr && model[0] != '\0' ? std::string(model) : soc->name;
    absl::StatusOr<tsr_compiled> compiled =
        kit::MakeCompiledResult(mode, {kVendor, envelope_soc, kBodyVersion}, kJitMagic, *std::move(code));
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
    .estimate_partition = EstimatePartition,
    .compiled_partition_status = kit::CompiledPartitionStatus,
    .compiled_partition_culprits = kit::CompiledPartitionCulprits,
    .compatibility_info = CompatibilityInfo,
};

}  // namespace
}  // namespace tessera::systolic

// The ABI this library implements (1.4 rules; partition() kept for 1.0/1.1
// hosts), stated here and never read from the headers' version macros.
constexpr tessera::kit::ImplementedAbi kImplementedAbi{.newest = {1, 4}, .oldest = {1, 0}};

extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, kImplementedAbi, out_version, out_api, &tessera::systolic::kApi);
}
