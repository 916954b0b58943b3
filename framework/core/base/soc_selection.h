// Which SoC a compile or a run targets: a name the plugins know, and the
// SoC description file's contents (docs/soc.md). Both sides use it, the
// compiler (partition and compile options) and the runtime (device context
// options), so it lives with the plugin host, below both.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_SOC_SELECTION_H_
#define TESSERA_FRAMEWORK_CORE_BASE_SOC_SELECTION_H_

#include <string>

namespace tessera {

struct SocSelection {
  std::string name;         // "" = plugin default
  std::string description;  // SoC file contents, "" = none
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_SOC_SELECTION_H_
