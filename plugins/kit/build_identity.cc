#include "plugins/kit/build_identity.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "tessera/bytecode.h"

#ifndef TESSERA_BUILD_ID
#define TESSERA_BUILD_ID "unknown"
#endif

namespace tessera::kit {

const char kBuildId[] = TESSERA_BUILD_ID;

std::string CompatibilityString(const char* vendor, const char* soc_model, const char* soc_description,
                                size_t soc_description_size,
                                const std::vector<std::pair<std::string, std::string>>& options) {
  char crc[16];
  std::snprintf(crc, sizeof(crc), "%08x",
                soc_description == nullptr ? 0u : tsr_crc32_update(0, soc_description, soc_description_size));
  std::string out = absl::StrCat("vendor=", vendor, ";build=", kBuildId, ";soc=", soc_model ? soc_model : "",
                                 ";soc_crc32=", crc, ";options=");
  for (size_t i = 0; i < options.size(); ++i)
    absl::StrAppend(&out, i ? "," : "", options[i].first, "=", options[i].second);
  return out;
}

}  // namespace tessera::kit
