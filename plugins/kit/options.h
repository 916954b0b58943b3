// Parsing of "<vendor>.<name>=value" plugin options.
#ifndef TESSERA_PLUGINS_KIT_OPTIONS_H_
#define TESSERA_PLUGINS_KIT_OPTIONS_H_

#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "tessera/common.h"

namespace tessera::kit {

// Keeps the options whose key starts with "<vendor>." (prefix stripped);
// ignores other vendors' keys; rejects unknown names in our namespace and
// values outside `allowed_values` when that map names the option.
absl::StatusOr<std::map<std::string, std::string>> ParseVendorOptions(
    const tsr_key_value* options, size_t count, const std::string& vendor,
    const std::map<std::string, std::set<std::string>>& allowed_values);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_OPTIONS_H_
