#include "plugins/mock_dsp/shared/dsp_soc.h"

#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace tessera::mock_dsp {
namespace {

struct KeyRange {
  double min, max;
  bool integer;
};

// The keys of [mock_dsp]. Unknown keys are errors: a typo would silently
// change the cost model (the rule docs/soc.md §7 gives vendors).
const std::map<std::string, KeyRange, std::less<>>& Keys() {
  static const auto* keys = new std::map<std::string, KeyRange, std::less<>>{
      {"clock_mhz", {1, 10000, false}},
      {"vector_lanes", {1, 4096, true}},
      {"transcendental_cycles", {1, 100000, true}},
      {"accepts_dmabuf", {0, 1, true}},
  };
  return *keys;
}

}  // namespace

absl::StatusOr<DspSoc> ReadDspSoc(const char* text, size_t size) {
  if (text == nullptr || size == 0) return absl::NotFoundError("no SoC description (no [mock_dsp] section)");
  absl::string_view rest(text, size);
  bool in_section = false, seen_section = false;
  std::map<std::string, double> values;
  for (int line_no = 1; !rest.empty(); ++line_no) {
    const size_t eol = rest.find('\n');
    absl::string_view line = absl::StripAsciiWhitespace(rest.substr(0, eol));
    rest = eol == absl::string_view::npos ? absl::string_view() : rest.substr(eol + 1);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      in_section = absl::StripAsciiWhitespace(line.substr(1, line.size() - 2)) == "mock_dsp";
      seen_section |= in_section;
      continue;
    }
    if (!in_section) continue;
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos)
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", line_no, ": expected 'key = value' in [mock_dsp]"));
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, eq)));
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(eq + 1));
    auto range = Keys().find(key);
    if (range == Keys().end())
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", line_no, ": unknown key '", key, "' in [mock_dsp]"));
    double v = 0;
    if (!absl::SimpleAtod(value, &v))
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": [mock_dsp] ", key, " = '", value, "' is not a number"));
    if (!(v >= range->second.min && v <= range->second.max) || (range->second.integer && v != static_cast<int64_t>(v)))
      return absl::InvalidArgumentError(absl::StrCat("soc: line ", line_no, ": [mock_dsp] ", key, " = ", value,
                                                     " must be ", range->second.integer ? "an integer " : "", "in [",
                                                     range->second.min, ", ", range->second.max, "]"));
    if (!values.emplace(key, v).second)
      return absl::InvalidArgumentError(
          absl::StrCat("soc: line ", line_no, ": duplicate key '", key, "' in [mock_dsp]"));
  }
  if (!seen_section) return absl::NotFoundError("the SoC description has no [mock_dsp] section");
  for (const char* required : {"clock_mhz", "vector_lanes", "transcendental_cycles"})
    if (!values.count(required))
      return absl::InvalidArgumentError(absl::StrCat("soc: section [mock_dsp] is missing key '", required, "'"));
  DspSoc soc;
  soc.clock_mhz = values["clock_mhz"];
  soc.vector_lanes = static_cast<int64_t>(values["vector_lanes"]);
  soc.transcendental_cycles = static_cast<int64_t>(values["transcendental_cycles"]);
  soc.accepts_dmabuf = values.count("accepts_dmabuf") && values["accepts_dmabuf"] == 1;
  return soc;
}

}  // namespace tessera::mock_dsp
