#include "plugins/kit/options.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera::kit {

absl::StatusOr<std::map<std::string, std::string>> ParseVendorOptions(
    const tsr_key_value* options, size_t count, const std::string& vendor,
    const std::map<std::string, std::set<std::string>>& allowed) {
  std::map<std::string, std::string> out;
  if (count > 0 && options == nullptr)
    return absl::InvalidArgumentError("options array is NULL");
  const std::string prefix = vendor + ".";
  for (size_t i = 0; i < count; ++i) {
    if (options[i].key == nullptr || options[i].value == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("option ", i, " has a NULL key or value"));
    std::string key = options[i].key;
    if (key.rfind(prefix, 0) != 0) continue;
    std::string name = key.substr(prefix.size());
    auto it = allowed.find(name);
    if (it == allowed.end()) {
      std::vector<std::string> names;
      for (const auto& [n, _] : allowed) names.push_back(prefix + n);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", key, "'; known: ", names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
    }
    const std::string value = options[i].value;
    if (!it->second.empty() && !it->second.count(value))
      return absl::InvalidArgumentError(absl::StrCat(
          "option '", key, "' has value '", value, "'; allowed: ", absl::StrJoin(it->second, ", ")));
    out[name] = value;
  }
  return out;
}

}  // namespace tessera::kit
