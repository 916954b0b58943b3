#include "plugins/systolic_npu/machine/soc_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace tessera::systolic {
namespace {

#define SOC_ASSIGN(lhs, expr)         \
  do {                                \
    auto _r = (expr);                 \
    if (!_r.ok()) return _r.status(); \
    lhs = *_r;                        \
  } while (0)

const std::vector<std::string> kNpuKeys = {
    "array_rows",     "array_cols",          "clock_mhz",           "sram_input_kib", "sram_weight_kib",
    "sram_accum_kib", "dram_bandwidth_gbps", "dram_latency_cycles", "vector_width",   "default_dataflow"};

}  // namespace

const char* DataflowName(Dataflow d) {
  switch (d) {
    case Dataflow::kOutputStationary:
      return "os";
    case Dataflow::kInputStationary:
      return "is";
    case Dataflow::kWeightStationary:
      return "ws";
  }
  return "?";  // a value no verifier accepts (disassembly of raw bytes)
}

absl::StatusOr<Dataflow> ParseDataflow(std::string_view s) {
  if (s == "ws") return Dataflow::kWeightStationary;
  if (s == "os") return Dataflow::kOutputStationary;
  if (s == "is") return Dataflow::kInputStationary;
  return absl::InvalidArgumentError(absl::StrCat("unknown dataflow '", std::string(s), "' (want ws, os or is)"));
}

absl::StatusOr<SystolicSocConfig> ParseSocConfig(std::string_view text) {
  auto doc_or = ParseIni(text);
  if (!doc_or.ok()) return doc_or.status();
  const IniDocument& doc = *doc_or;
  SystolicSocConfig cfg;

  const IniSection* soc = doc.Find("soc");
  if (soc == nullptr) return absl::InvalidArgumentError("soc: missing section [soc]");
  {
    SectionReader r(*soc);
    SOC_ASSIGN(cfg.name, r.String("name"));
    auto d = soc->values.find("description");
    if (d != soc->values.end()) cfg.description = d->second.text;
  }

  {
    absl::StatusOr<kit::CpuSection> cpu = kit::ParseCpuSection(doc);
    if (!cpu.ok()) return cpu.status();
    cfg.has_cpu = cpu->present;
    cfg.cpu = cpu->model;
  }

  const IniSection* npu = doc.Find("systolic_npu");
  if (npu == nullptr) return absl::InvalidArgumentError("soc: missing section [systolic_npu]");
  {
    SectionReader r(*npu);
    if (absl::Status st = r.OnlyKeys(kNpuKeys); !st.ok()) return st;
    SystolicNpuConfig& n = cfg.npu;
    SOC_ASSIGN(n.array_rows, r.Integer("array_rows", 1, 1024));
    SOC_ASSIGN(n.array_cols, r.Integer("array_cols", 1, 1024));
    SOC_ASSIGN(n.clock_mhz, r.Number("clock_mhz", 1, 10000));
    // Banks: at least 1 KiB, at most 1 GiB (addresses are 30-bit).
    SOC_ASSIGN(n.sram_input_kib, r.Integer("sram_input_kib", 1, 1 << 20));
    SOC_ASSIGN(n.sram_weight_kib, r.Integer("sram_weight_kib", 1, 1 << 20));
    SOC_ASSIGN(n.sram_accum_kib, r.Integer("sram_accum_kib", 1, 1 << 20));
    SOC_ASSIGN(n.dram_bandwidth_gbps, r.Number("dram_bandwidth_gbps", 0.001, 100000));
    SOC_ASSIGN(n.dram_latency_cycles, r.Integer("dram_latency_cycles", 0, 1000000));
    SOC_ASSIGN(n.vector_width, r.Integer("vector_width", 1, 4096));
    std::string df;
    SOC_ASSIGN(df, r.String("default_dataflow"));
    auto d = ParseDataflow(df);
    if (!d.ok())
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", npu->values.at("default_dataflow").line,
                                                     ": [systolic_npu] ", d.status().message()));
    n.default_dataflow = *d;
    // The tiler needs a weight tile (rows x cols fp16) and an accumulator
    // row strip to fit in half a bank (double buffering).
    const int64_t tile_bytes = n.array_rows * n.array_cols * 2;
    if (tile_bytes * 2 > n.weight_bank_bytes() || n.array_cols * 4 * 2 > n.accum_bank_bytes() ||
        n.array_rows * 2 * 2 > n.input_bank_bytes())
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", npu->line,
                                                     ": [systolic_npu] SRAM banks too small for two ", n.array_rows,
                                                     "x", n.array_cols, " tiles"));
  }

  if (const IniSection* dsp = doc.Find("mock_dsp")) {
    SectionReader r(*dsp);
    cfg.has_mock_dsp = true;
    SOC_ASSIGN(cfg.mock_dsp.clock_mhz, r.Number("clock_mhz", 1, 10000));
    SOC_ASSIGN(cfg.mock_dsp.vector_lanes, r.Integer("vector_lanes", 1, 4096));
    SOC_ASSIGN(cfg.mock_dsp.transcendental_cycles, r.Integer("transcendental_cycles", 1, 100000));
  }

  // The framework's sections are checked here too, so a file the NPU
  // accepts is one the cost model accepts.
  SOC_ASSIGN(cfg.transfers, kit::ParseTransferSections(doc));
  SOC_ASSIGN(cfg.dispatch, kit::ParseDispatchSections(doc));
  return cfg;
}

absl::StatusOr<SystolicSocConfig> LoadSocConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("soc: cannot open '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  auto cfg = ParseSocConfig(ss.str());
  if (!cfg.ok()) return absl::Status(cfg.status().code(), absl::StrCat(path, ": ", cfg.status().message()));
  return cfg;
}

absl::StatusOr<SystolicSocConfig> SelectSoc(const char* soc_model, const char* description, size_t description_size) {
  const std::string model = soc_model != nullptr ? soc_model : "";
  if (description != nullptr && description_size > 0) {
    // The description wins; soc_model is only a label then (the framework
    // passes the file's stem, which need not equal the [soc] name).
    return ParseSocConfig(std::string_view(description, description_size));
  }
  return BuiltinSocConfig(model.empty() ? kDefaultSocModel : model);
}

}  // namespace tessera::systolic
