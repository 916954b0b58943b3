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
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bytecode_builder.h"
#include "compiled_result.h"
#include "entry_point.h"
#include "common/vendor.h"
#include "compiler/lowering.h"
#include "graph_snapshot.h"
#include "options.h"
#include "plugin_status.h"
#include "program.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  bool dataflow_set = false;
  tessera::systolic::Dataflow dataflow = tessera::systolic::Dataflow::kWeightStationary;
  tessera::systolic::Overlap overlap = tessera::systolic::Overlap::kDefault;
  tsr_log_fn log = nullptr;
  void* log_user_data = nullptr;
  std::vector<std::string> refusal_texts;  // reason_detail storage
};

namespace tessera::systolic {
namespace {

const char* const kSocModels[] = {"ref-edge", "ref-phone", "ref-server"};

const tsr_compiler_plugin_info kInfo = {
    {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    kVendor, kPluginVersion, kSocModels, 3, TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT};

const std::map<std::string, std::set<std::string>> kOptions = {
    {"dataflow", {"ws", "os", "is"}},
    {"overlap", {"default", "none"}},
    {"mode", {"fast", "cycle_stepped"}},
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
    if (auto it = parsed->find("dataflow"); it != parsed->end()) {
      plugin->dataflow_set = true;
      plugin->dataflow = *ParseDataflow(it->second);
    }
    if (auto it = parsed->find("overlap"); it != parsed->end())
      plugin->overlap = *ParseOverlap(it->second);
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
  return LoweringOptions{p.dataflow_set ? p.dataflow : soc.npu.default_dataflow};
}

void Fill(tsr_op_support& s, bool ok, int32_t reason, const char* detail, double time_us,
          uint64_t cycles) {
  const uint32_t size = s.header.struct_size;
  if (size >= offsetof(tsr_op_support, supported) + sizeof(uint32_t)) s.supported = ok ? 1 : 0;
  if (size >= offsetof(tsr_op_support, reason) + sizeof(int32_t)) s.reason = ok ? TSR_REFUSAL_NONE : reason;
  if (size >= offsetof(tsr_op_support, reason_detail) + sizeof(const char*))
    s.reason_detail = ok ? nullptr : detail;
  if (size >= offsetof(tsr_op_support, estimated_time_us) + sizeof(double)) s.estimated_time_us = time_us;
  if (size >= offsetof(tsr_op_support, estimated_cycles) + sizeof(uint64_t)) s.estimated_cycles = cycles;
}

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  return kit::Guarded([&]() -> absl::Status {
    if (plugin == nullptr || view == nullptr || out_support == nullptr)
      return absl::InvalidArgumentError("partition: NULL argument");
    const char* model = nullptr;
    const char* desc = nullptr;
    size_t desc_size = 0;
    if (TSR_ABI_HAS_FIELD(options, tsr_partition_options, soc_description_size)) {
      model = options->soc_model;
      desc = options->soc_description;
      desc_size = options->soc_description_size;
    }
    auto g = kit::SnapshotGraph(view, graph, /*reference_constants=*/true);
    if (!g.ok()) return g.status();
    plugin->refusal_texts.clear();
    plugin->refusal_texts.reserve(g->ops.size() + 1);
    absl::StatusOr<SystolicSocConfig> soc = SelectSoc(model, desc, desc_size);
    if (!soc.ok()) {
      // A SoC without a (valid) [systolic_npu] section: nothing runs here.
      plugin->refusal_texts.push_back(absl::StrCat("systolic_npu: no usable NPU on this SoC: ",
                                                   soc.status().message()));
      for (size_t i = 0; i < g->ops.size(); ++i)
        Fill(out_support[i], false, TSR_REFUSAL_OTHER, plugin->refusal_texts.back().c_str(), -1.0, 0);
      return absl::OkStatus();
    }
    const LoweringOptions lo = Lowering(*plugin, *soc);
    for (size_t i = 0; i < g->ops.size(); ++i) {
      OpSupport sup = CheckOpSupport(*g, g->ops[i]);
      RunMetrics m;
      if (sup.supported) {
        absl::StatusOr<RunMetrics> est = EstimateOp(*g, i, soc->npu, lo, plugin->overlap);
        if (est.ok()) {
          m = *est;
        } else {
          sup.supported = false;
          sup.reason = est.status().code() == absl::StatusCode::kResourceExhausted
                           ? TSR_REFUSAL_TOO_LARGE
                           : TSR_REFUSAL_OTHER;
          sup.detail = std::string(est.status().message());
        }
      }
      plugin->refusal_texts.push_back(sup.detail);
      Fill(out_support[i], sup.supported, sup.reason,
           sup.supported ? nullptr : plugin->refusal_texts.back().c_str(),
           sup.supported ? m.time_us : -1.0, sup.supported ? m.cycles_total : 0);
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
    const uint32_t mode = options->mode;
    if (mode != TSR_COMPILE_MODE_AOT && mode != TSR_COMPILE_MODE_JIT)
      return absl::InvalidArgumentError("compile: mode must be exactly one of AOT or JIT");
    const char* model = options->soc_model;
    const char* desc = nullptr;
    size_t desc_size = 0;
    if (TSR_ABI_HAS_FIELD(options, tsr_compile_options, soc_description_size)) {
      desc = options->soc_description;
      desc_size = options->soc_description_size;
    }
    absl::StatusOr<SystolicSocConfig> soc = SelectSoc(model, desc, desc_size);
    if (!soc.ok()) return soc.status();
    const LoweringOptions lo = Lowering(*plugin, *soc);
    std::vector<kit::PartitionCode> code;
    for (size_t p = 0; p < partition_count; ++p) {
      // Weights are copied into the constant pool, so constants may be
      // referenced in place while compiling.
      auto g = kit::SnapshotGraph(view, partitions[p], /*reference_constants=*/true);
      if (!g.ok()) return g.status();
      const std::string name = absl::StrCat("systolic_npu_partition_", p);
      absl::StatusOr<Program> program = LowerGraph(*g, soc->npu, lo, name);
      if (!program.ok())
        return absl::Status(program.status().code(),
                            absl::StrCat("partition ", p, ": ", program.status().message()));
      code.push_back({name, SerializeProgram(*program), static_cast<uint32_t>(g->inputs.size()),
                      static_cast<uint32_t>(g->outputs.size())});
    }
    absl::StatusOr<tsr_compiled> compiled =
        kit::MakeCompiledResult(mode, {kVendor, soc->name, kBodyVersion}, kJitMagic, std::move(code));
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
}  // namespace tessera::systolic

extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  return tessera::kit::AnswerNegotiation(host, out_version, out_api, &tessera::systolic::kApi);
}
