#include "support/soc/soc_format.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera::kit {
namespace {

// (This abseil build's string_view is not std::string_view.)
std::string_view Strip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; }

bool IsName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsNameChar(c)) return false;
  return true;
}

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
  // The names seen, for the duplicate check: a hash set keeps the parse
  // linear (a scan of the sections so far made 40k sections take 17 s).
  // The views point into `text`, which outlives the parse.
  std::unordered_set<std::string_view> section_names;
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
        return absl::InvalidArgumentError(absl::StrCat("soc: line ", line_no, ": control character"));
    }
    if (line[0] == '[') {
      if (line.back() != ']')
        return absl::InvalidArgumentError(absl::StrCat("soc: line ", line_no, ": section header missing ']'"));
      std::string_view name = Strip(line.substr(1, line.size() - 2));
      if (!IsName(name))
        return absl::InvalidArgumentError(
            absl::StrCat("soc: line ", line_no, ": bad section name '", std::string(name), "' (want [a-z0-9_.-]+)"));
      if (!section_names.insert(name).second)
        return absl::InvalidArgumentError(
            absl::StrCat("soc: line ", line_no, ": duplicate section [", std::string(name), "]"));
      doc.sections.push_back(IniSection{std::string(name), line_no, {}});
      current = &doc.sections.back();
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": expected 'key = value', '[section]' or '# comment'"));
    std::string_view key = Strip(line.substr(0, eq));
    std::string_view value = Strip(line.substr(eq + 1));
    if (current == nullptr)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": key '", std::string(key), "' before any [section]"));
    if (!IsName(key))
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": bad key '", std::string(key), "' (want [a-z0-9_.-]+)"));
    if (value.empty())
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": key '", std::string(key), "' has an empty value"));
    if (current->values.count(std::string(key)))
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": duplicate key '", std::string(key), "' in [", current->name, "]"));
    current->values[std::string(key)] = IniValue{std::string(value), line_no};
  }
  return doc;
}

absl::StatusOr<const IniValue*> SectionReader::Get(const std::string& key) const {
  auto it = s_.values.find(key);
  if (it == s_.values.end())
    return absl::InvalidArgumentError(
        absl::StrCat("soc: line ", s_.line, ": section [", s_.name, "] is missing key '", key, "'"));
  return &it->second;
}

absl::StatusOr<double> SectionReader::Number(const std::string& key, double lo, double hi) const {
  absl::StatusOr<const IniValue*> v = Get(key);
  if (!v.ok()) return v.status();
  const std::string& t = (*v)->text;
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(d))
    return absl::InvalidArgumentError(
        absl::StrCat("soc: line ", (*v)->line, ": [", s_.name, "] ", key, " = '", t, "' is not a number"));
  if (d < lo || d > hi)
    return absl::InvalidArgumentError(absl::StrCat("soc: line ", (*v)->line, ": [", s_.name, "] ", key, " = ", t,
                                                   " is out of range [", lo, ", ", hi, "]"));
  return d;
}

absl::StatusOr<int64_t> SectionReader::Integer(const std::string& key, int64_t lo, int64_t hi) const {
  absl::StatusOr<double> d = Number(key, static_cast<double>(lo), static_cast<double>(hi));
  if (!d.ok()) return d.status();
  if (std::floor(*d) != *d) {
    const IniValue* v = *Get(key);
    return absl::InvalidArgumentError(
        absl::StrCat("soc: line ", v->line, ": [", s_.name, "] ", key, " = ", v->text, " must be an integer"));
  }
  return static_cast<int64_t>(*d);
}

absl::StatusOr<std::string> SectionReader::String(const std::string& key) const {
  absl::StatusOr<const IniValue*> v = Get(key);
  if (!v.ok()) return v.status();
  return (*v)->text;
}

absl::StatusOr<std::string> SectionReader::Word(const std::string& key, const std::vector<std::string>& words) const {
  absl::StatusOr<const IniValue*> v = Get(key);
  if (!v.ok()) return v.status();
  for (const std::string& w : words)
    if ((*v)->text == w) return w;
  return absl::InvalidArgumentError(absl::StrCat("soc: line ", (*v)->line, ": [", s_.name, "] ", key, " = '",
                                                 (*v)->text, "' (want one of ", absl::StrJoin(words, ", "), ")"));
}

absl::Status SectionReader::OnlyKeys(const std::vector<std::string>& known) const {
  for (const auto& [key, v] : s_.values) {
    bool ok = false;
    for (const std::string& k : known) ok = ok || key == k;
    if (!ok)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", v.line, ": unknown key '", key, "' in [", s_.name, "]"));
  }
  return absl::OkStatus();
}

#define KIT_SOC_ASSIGN(lhs, expr)     \
  do {                                \
    auto _r = (expr);                 \
    if (!_r.ok()) return _r.status(); \
    lhs = *_r;                        \
  } while (0)

const std::vector<std::string>& MemoryKinds() {
  static const std::vector<std::string> kinds = {"host", "dmabuf", "device_dram", "dsp_tcm"};
  return kinds;
}

const std::vector<std::string>& CpuOpClassNames() {
  static const std::vector<std::string> names = {"gemm", "depthwise", "elementwise", "reduction", "data_movement"};
  return names;
}

absl::StatusOr<CpuSection> ParseCpuSection(const IniDocument& doc) {
  CpuSection out;
  const IniSection* cpu = doc.Find("cpu");
  if (cpu == nullptr) return out;
  SectionReader r(*cpu);
  out.present = true;
  KIT_SOC_ASSIGN(out.model.gflops_f32, r.Number("gflops_f32", 1e-3, 1e9));
  KIT_SOC_ASSIGN(out.model.gops_int8, r.Number("gops_int8", 1e-3, 1e9));
  KIT_SOC_ASSIGN(out.model.threads, r.Integer("threads", 1, 4096));
  for (size_t c = 0; c < kCpuOpClassCount; ++c) {
    const std::string key = "efficiency_" + CpuOpClassNames()[c];
    if (cpu->values.count(key) != 0) KIT_SOC_ASSIGN(out.model.efficiency[c], r.Number(key, 1e-6, 1));
  }
  // Other keys are ignored, but a misspelt class would silently price its
  // ops at the GEMM rate.
  for (const auto& [key, v] : cpu->values) {
    if (key.rfind("efficiency_", 0) != 0) continue;
    bool known = false;
    for (const std::string& name : CpuOpClassNames()) known = known || key == "efficiency_" + name;
    if (!known)
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", v.line, ": unknown op class in '", key,
                                                     "' (want efficiency_",
                                                     absl::StrJoin(CpuOpClassNames(), ", efficiency_"), ")"));
  }
  return out;
}

// "[prefix.a.b]" -> (a, b); "[prefix.a]" -> (a, ""). `parts` is 1 or 2.
absl::StatusOr<std::pair<std::string, std::string>> SplitSectionName(const IniSection& s, std::string_view prefix,
                                                                     int parts, std::string_view shape) {
  std::string_view rest = std::string_view(s.name).substr(prefix.size());
  const size_t dot = rest.find('.');
  const bool ok = parts == 1 ? (!rest.empty() && dot == std::string_view::npos)
                             : (dot != std::string_view::npos && dot > 0 && dot + 1 < rest.size() &&
                                rest.find('.', dot + 1) == std::string_view::npos);
  if (!ok)
    return absl::InvalidArgumentError(absl::StrCat("soc: line ", s.line, ": ",
                                                   std::string(prefix.substr(0, prefix.size() - 1)), " section [",
                                                   s.name, "] must be [", std::string(shape), "]"));
  if (parts == 1) return std::make_pair(std::string(rest), std::string());
  return std::make_pair(std::string(rest.substr(0, dot)), std::string(rest.substr(dot + 1)));
}

bool HasPrefix(const std::string& name, std::string_view prefix) {
  return name.size() >= prefix.size() && std::string_view(name).substr(0, prefix.size()) == prefix;
}

absl::StatusOr<TransferTable> ParseTransferSections(const IniDocument& doc) {
  TransferTable out;
  for (const IniSection& s : doc.sections) {
    if (!HasPrefix(s.name, "transfer.")) continue;
    std::pair<std::string, std::string> ends;
    KIT_SOC_ASSIGN(ends, SplitSectionName(s, "transfer.", 2, "transfer.<from>.<to>"));
    SectionReader r(s);
    TransferLink link;
    KIT_SOC_ASSIGN(link.bandwidth_gbps, r.Number("bandwidth_gbps", 1e-6, 1e6));
    KIT_SOC_ASSIGN(link.latency_us, r.Number("latency_us", 0, 1e9));
    out[ends] = link;
  }
  return out;
}

absl::StatusOr<DispatchTable> ParseDispatchSections(const IniDocument& doc) {
  DispatchTable out;
  for (const IniSection& s : doc.sections) {
    if (!HasPrefix(s.name, "dispatch.")) continue;
    std::pair<std::string, std::string> vendor;
    KIT_SOC_ASSIGN(vendor, SplitSectionName(s, "dispatch.", 1, "dispatch.<vendor>"));
    SectionReader r(s);
    if (absl::Status st = r.OnlyKeys({"overhead_us", "memory"}); !st.ok()) return st;
    DispatchModel d;
    KIT_SOC_ASSIGN(d.overhead_us, r.Number("overhead_us", 0, 1e9));
    KIT_SOC_ASSIGN(d.memory, r.Word("memory", MemoryKinds()));
    out[vendor.first] = d;
  }
  return out;
}

#undef KIT_SOC_ASSIGN

}  // namespace tessera::kit
