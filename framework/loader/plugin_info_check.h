// A plugin's info struct read defensively: the host follows
// every pointer in it (the vendor and version strings, the SoC model list,
// the build id) and loops over soc_model_count, so a garbage info struct (a
// pointer of 0x10, a count of 2^40) would crash it, even under `--probe`'s
// parent. Before any field is used, the struct, each string and the SoC
// array must lie in loaded, readable memory (code_address.h), strings must
// end within a bound, and the count must be plausible.
#ifndef TESSERA_FRAMEWORK_LOADER_PLUGIN_INFO_CHECK_H_
#define TESSERA_FRAMEWORK_LOADER_PLUGIN_INFO_CHECK_H_

#include <cstddef>

#include "absl/status/status.h"
#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"

namespace tessera {

// No plugin lists more SoC models than this; a larger count is garbage.
inline constexpr size_t kMaxPluginSocModels = 1024;
// Nor names anything longer than this.
inline constexpr size_t kMaxPluginInfoString = 4096;

// OK when `api`, a function table the entry symbol returned, lies in loaded
// memory for its header and then for its whole struct_size.
absl::Status CheckPluginTableMemory(const tsr_abi_header* api);

// OK when `info` (non-NULL) and everything it points to can be read
// safely; FAILED_PRECONDITION naming the first field that cannot.
absl::Status CheckPluginInfo(const tsr_compiler_plugin_info* info);
absl::Status CheckPluginInfo(const tsr_dispatch_info* info);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_PLUGIN_INFO_CHECK_H_
