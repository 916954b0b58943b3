#include "framework/cli/shorthand_flags.h"

namespace tessera::cli {

std::optional<std::string> OptionValue(const OptionList& options, std::string_view option) {
  std::optional<std::string> value;
  for (const auto& [key, v] : options)
    if (key == option) value = v;
  return value;
}

void SetOptionUnlessGiven(OptionList& options, std::string_view option, std::string value) {
  if (!OptionValue(options, option)) options.emplace_back(std::string(option), std::move(value));
}

}  // namespace tessera::cli
