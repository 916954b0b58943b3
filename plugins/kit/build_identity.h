// What every bundled plugin reports as its identity (ABI 1.2 info members):
// the exact build and the sanitizer it was compiled with.
#ifndef TESSERA_PLUGINS_KIT_BUILD_IDENTITY_H_
#define TESSERA_PLUGINS_KIT_BUILD_IDENTITY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/common.h"

namespace tessera::kit {

// "<project version>+<git commit at configure time>.<build type>", static.
extern const char kBuildId[];

// The tsr_sanitizer this code was compiled with.
constexpr int32_t BuildSanitizer() {
#if defined(__SANITIZE_THREAD__)
  return TSR_SANITIZER_THREAD;
#elif defined(__SANITIZE_ADDRESS__)
  return TSR_SANITIZER_ADDRESS;
#else
  return TSR_SANITIZER_NONE;
#endif
}

// A compatibility string (compiler_plugin.h compatibility_info): the fields
// that change a vendor's code, in a fixed order, "key=value" joined by ';'.
// `soc_description` is reduced to its CRC-32, so two different SoC files of
// the same name give different strings.
std::string CompatibilityString(const char* vendor, const char* soc_model, const char* soc_description,
                                size_t soc_description_size,
                                const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_BUILD_IDENTITY_H_
