#include "soc_config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace tessera::systolic {
namespace {

// (This abseil build's string_view is not std::string_view.)
std::string_view Strip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

bool IsName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsNameChar(c)) return false;
  return true;
}

// Reads typed values out of one section, remembering which keys were used.
class SectionReader {
 public:
  SectionReader(const IniSection& s) : s_(s) {}

  absl::StatusOr<const IniValue*> Get(const std::string& key) {
    auto it = s_.values.find(key);
    if (it == s_.values.end())
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", s_.line, ": section [", s_.name,
                       "] is missing key '", std::string(key), "'"));
    return &it->second;
  }

  absl::StatusOr<double> Number(const std::string& key, double lo, double hi) {
    auto v = Get(key);
    if (!v.ok()) return v.status();
    const std::string& t = (*v)->text;
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE ||
        !std::isfinite(d))
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", (*v)->line, ": [", s_.name, "] ", std::string(key),
                       " = '", t, "' is not a number"));
    if (d < lo || d > hi)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", (*v)->line, ": [", s_.name, "] ", std::string(key),
                       " = ", t, " is out of range [", lo, ", ", hi, "]"));
    return d;
  }

  absl::StatusOr<int64_t> Integer(const std::string& key, int64_t lo,
                                  int64_t hi) {
    auto d = Number(key, static_cast<double>(lo), static_cast<double>(hi));
    if (!d.ok()) return d.status();
    if (std::floor(*d) != *d) {
      const IniValue* v = *Get(key);
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", v->line, ": [", s_.name, "] ", std::string(key),
                       " = ", v->text, " must be an integer"));
    }
    return static_cast<int64_t>(*d);
  }

  absl::StatusOr<std::string> String(const std::string& key) {
    auto v = Get(key);
    if (!v.ok()) return v.status();
    return (*v)->text;
  }

 private:
  const IniSection& s_;
};

#define SOC_ASSIGN(lhs, expr)            \
  do {                                   \
    auto _r = (expr);                    \
    if (!_r.ok()) return _r.status();    \
    lhs = *_r;                           \
  } while (0)

const char* const kNpuKeys[] = {
    "array_rows",      "array_cols",          "clock_mhz",
    "sram_input_kib",  "sram_weight_kib",     "sram_accum_kib",
    "dram_bandwidth_gbps", "dram_latency_cycles", "vector_width",
    "default_dataflow"};

}  // namespace

const IniSection* IniDocument::Find(std::string_view name) const {
  for (const IniSection& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

absl::StatusOr<IniDocument> ParseIni(std::string_view text) {
  IniDocument doc;
  int line_no = 0;
  size_t pos = 0;
  IniSection* current = nullptr;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    std::string_view line = Strip(raw);
    if (line.empty() || line[0] == '#') continue;
    for (char c : line) {
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
        return absl::InvalidArgumentError(
            absl::StrCat("soc: line ", line_no, ": control character"));
    }
    if (line[0] == '[') {
      if (line.back() != ']')
        return absl::InvalidArgumentError(absl::StrCat(
            "soc: line ", line_no, ": section header missing ']'"));
      std::string_view name =
          Strip(line.substr(1, line.size() - 2));
      if (!IsName(name))
        return absl::InvalidArgumentError(
            absl::StrCat("soc: line ", line_no, ": bad section name '", std::string(name),
                         "' (want [a-z0-9_.-]+)"));
      if (doc.Find(name) != nullptr)
        return absl::InvalidArgumentError(absl::StrCat(
            "soc: line ", line_no, ": duplicate section [", std::string(name), "]"));
      doc.sections.push_back(IniSection{std::string(name), line_no, {}});
      current = &doc.sections.back();
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return absl::InvalidArgumentError(absl::StrCat(
          "soc: line ", line_no, ": expected 'key = value', '[section]' or '# comment'"));
    std::string_view key = Strip(line.substr(0, eq));
    std::string_view value = Strip(line.substr(eq + 1));
    if (current == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          "soc: line ", line_no, ": key '", std::string(key), "' before any [section]"));
    if (!IsName(key))
      return absl::InvalidArgumentError(absl::StrCat(
          "soc: line ", line_no, ": bad key '", std::string(key), "' (want [a-z0-9_.-]+)"));
    if (value.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          "soc: line ", line_no, ": key '", std::string(key), "' has an empty value"));
    if (current->values.count(std::string(key)))
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": duplicate key '", std::string(key),
                       "' in [", current->name, "]"));
    current->values[std::string(key)] = IniValue{std::string(value), line_no};
  }
  return doc;
}

const char* DataflowName(Dataflow d) {
  switch (d) {
    case Dataflow::kOutputStationary: return "os";
    case Dataflow::kInputStationary: return "is";
    case Dataflow::kWeightStationary: return "ws";
  }
  return "?";  // a value no verifier accepts (disassembly of raw bytes)
}

absl::StatusOr<Dataflow> ParseDataflow(std::string_view s) {
  if (s == "ws") return Dataflow::kWeightStationary;
  if (s == "os") return Dataflow::kOutputStationary;
  if (s == "is") return Dataflow::kInputStationary;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dataflow '", std::string(s), "' (want ws, os or is)"));
}

absl::StatusOr<SystolicSocConfig> ParseSocConfig(std::string_view text) {
  auto doc_or = ParseIni(text);
  if (!doc_or.ok()) return doc_or.status();
  const IniDocument& doc = *doc_or;
  SystolicSocConfig cfg;

  const IniSection* soc = doc.Find("soc");
  if (soc == nullptr)
    return absl::InvalidArgumentError("soc: missing section [soc]");
  {
    SectionReader r(*soc);
    SOC_ASSIGN(cfg.name, r.String("name"));
    auto d = soc->values.find("description");
    if (d != soc->values.end()) cfg.description = d->second.text;
  }

  if (const IniSection* cpu = doc.Find("cpu")) {
    SectionReader r(*cpu);
    cfg.has_cpu = true;
    SOC_ASSIGN(cfg.cpu.gflops_f32, r.Number("gflops_f32", 1e-3, 1e9));
    SOC_ASSIGN(cfg.cpu.gops_int8, r.Number("gops_int8", 1e-3, 1e9));
    SOC_ASSIGN(cfg.cpu.threads, r.Integer("threads", 1, 4096));
  }

  const IniSection* npu = doc.Find("systolic_npu");
  if (npu == nullptr)
    return absl::InvalidArgumentError("soc: missing section [systolic_npu]");
  {
    for (const auto& [key, v] : npu->values) {
      bool known = false;
      for (const char* k : kNpuKeys) known = known || key == k;
      if (!known)
        return absl::InvalidArgumentError(
            absl::StrCat("soc: line ", v.line, ": unknown key '", std::string(key),
                         "' in [systolic_npu]"));
    }
    SectionReader r(*npu);
    SystolicNpuConfig& n = cfg.npu;
    SOC_ASSIGN(n.array_rows, r.Integer("array_rows", 1, 1024));
    SOC_ASSIGN(n.array_cols, r.Integer("array_cols", 1, 1024));
    SOC_ASSIGN(n.clock_mhz, r.Number("clock_mhz", 1, 10000));
    // Banks: at least 1 KiB, at most 1 GiB (addresses are 30-bit).
    SOC_ASSIGN(n.sram_input_kib, r.Integer("sram_input_kib", 1, 1 << 20));
    SOC_ASSIGN(n.sram_weight_kib, r.Integer("sram_weight_kib", 1, 1 << 20));
    SOC_ASSIGN(n.sram_accum_kib, r.Integer("sram_accum_kib", 1, 1 << 20));
    SOC_ASSIGN(n.dram_bandwidth_gbps,
               r.Number("dram_bandwidth_gbps", 0.001, 100000));
    SOC_ASSIGN(n.dram_latency_cycles,
               r.Integer("dram_latency_cycles", 0, 1000000));
    SOC_ASSIGN(n.vector_width, r.Integer("vector_width", 1, 4096));
    std::string df;
    SOC_ASSIGN(df, r.String("default_dataflow"));
    auto d = ParseDataflow(df);
    if (!d.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", npu->values.at("default_dataflow").line,
                       ": [systolic_npu] ", d.status().message()));
    n.default_dataflow = *d;
    // The tiler needs a weight tile (rows x cols fp16) and an accumulator
    // row strip to fit in half a bank (double buffering).
    const int64_t tile_bytes = n.array_rows * n.array_cols * 2;
    if (tile_bytes * 2 > n.weight_bank_bytes() ||
        n.array_cols * 4 * 2 > n.accum_bank_bytes() ||
        n.array_rows * 2 * 2 > n.input_bank_bytes())
      return absl::InvalidArgumentError(absl::StrCat(
          "soc: line ", npu->line,
          ": [systolic_npu] SRAM banks too small for two ", n.array_rows,
          "x", n.array_cols, " tiles"));
  }

  if (const IniSection* dsp = doc.Find("mock_dsp")) {
    SectionReader r(*dsp);
    cfg.has_mock_dsp = true;
    SOC_ASSIGN(cfg.mock_dsp.clock_mhz, r.Number("clock_mhz", 1, 10000));
    SOC_ASSIGN(cfg.mock_dsp.vector_lanes, r.Integer("vector_lanes", 1, 4096));
    SOC_ASSIGN(cfg.mock_dsp.transcendental_cycles,
               r.Integer("transcendental_cycles", 1, 100000));
  }

  for (const IniSection& s : doc.sections) {
    std::string_view name = s.name;
    if (name.substr(0, 9) != "transfer.") continue;
    std::string_view rest = name.substr(9);
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 >= rest.size() ||
        rest.find('.', dot + 1) != std::string_view::npos)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", s.line, ": transfer section [", std::string(name),
                       "] must be [transfer.<from>.<to>]"));
    SectionReader r(s);
    TransferLink link;
    SOC_ASSIGN(link.bandwidth_gbps, r.Number("bandwidth_gbps", 1e-6, 1e6));
    SOC_ASSIGN(link.latency_us, r.Number("latency_us", 0, 1e9));
    cfg.transfers[{std::string(rest.substr(0, dot)),
                   std::string(rest.substr(dot + 1))}] = link;
  }
  return cfg;
}

absl::StatusOr<SystolicSocConfig> LoadSocConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("soc: cannot open '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  auto cfg = ParseSocConfig(ss.str());
  if (!cfg.ok())
    return absl::Status(cfg.status().code(),
                        absl::StrCat(path, ": ", cfg.status().message()));
  return cfg;
}

absl::StatusOr<SystolicSocConfig> SelectSoc(const char* soc_model,
                                            const char* description,
                                            size_t description_size) {
  const std::string model = soc_model != nullptr ? soc_model : "";
  if (description != nullptr && description_size > 0) {
    // The description wins; soc_model is only a label then (the framework
    // passes the file's stem, which need not equal the [soc] name).
    return ParseSocConfig(std::string_view(description, description_size));
  }
  return BuiltinSocConfig(model.empty() ? kDefaultSocModel : model);
}

}  // namespace tessera::systolic
