// Where an installed (or built) Tessera keeps its parts, relative to the
// running executable: <exe>/../lib for the bundled plugins and
// <exe>/../share/tessera/socs for SoC description files. No environment
// variable is needed to find them. Also: finding a SoC file by name there.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_INSTALL_LAYOUT_H_
#define TESSERA_FRAMEWORK_CORE_BASE_INSTALL_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/base/soc_selection.h"

namespace tessera {

std::string ExecutableDirectory();     // "" when /proc/self/exe is unreadable
std::string BundledPluginDirectory();  // <exe>/../lib
std::string BundledSocDirectory();     // <exe>/../share/tessera/socs

// The NAME of every NAME.soc in `directory`, sorted.
std::vector<std::string> SocNamesIn(const std::string& directory);

// `requested` is a SoC name (looked up as `directory`/NAME.soc) or a path to
// a .soc file (it contains '/' or ends in .soc). NotFound names the SoCs
// that exist when it is neither. Only a regular file of at most
// kMaxSocFileBytes is read: a FIFO or a device is InvalidArgument, a
// larger file ResourceExhausted.
inline constexpr uint64_t kMaxSocFileBytes = uint64_t{1} << 20;  // 1 MiB; the bundled ones are ~2 KB
absl::StatusOr<SocSelection> FindSoc(const std::string& requested, const std::string& directory);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_INSTALL_LAYOUT_H_
