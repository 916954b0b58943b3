// The CLI's shorthand flags that stand for one vendor's option: the one
// place the framework names a vendor, as a documented table (docs/cli.md,
// "Shorthand flags") rather than `if (vendor == ...)` in the commands. Any
// vendor option can always be given in full with --option VENDOR.KEY=VALUE.
#ifndef TESSERA_FRAMEWORK_CLI_SHORTHAND_FLAGS_H_
#define TESSERA_FRAMEWORK_CLI_SHORTHAND_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::cli {

struct ShorthandFlag {
  std::string_view flag;    // without "--"
  std::string_view option;  // the vendor option it sets
};

inline constexpr ShorthandFlag kShorthandFlags[] = {
    {"kernels", "cpu.kernels"},  // reference | fast: the fallback's kernels
    {"threads", "cpu.threads"},  // bench: the fallback's thread count
};

// The vendor option `flag` stands for; aborts at compile time if absent.
constexpr std::string_view OptionForFlag(std::string_view flag) {
  for (const ShorthandFlag& s : kShorthandFlags)
    if (s.flag == flag) return s.option;
  return {};
}

using OptionList = std::vector<std::pair<std::string, std::string>>;

// The last value given for `option`, if any (later --option flags win).
std::optional<std::string> OptionValue(const OptionList& options, std::string_view option);

// Sets `option` unless it was given already (an explicit --option wins).
void SetOptionUnlessGiven(OptionList& options, std::string_view option, std::string value);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_SHORTHAND_FLAGS_H_
