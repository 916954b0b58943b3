// One vendor library loaded through its single entry symbol, after version
// negotiation and table validation. Compiler plugins and dispatch libraries
// share this shape; the registry holds both kinds.
#ifndef TESSERA_FRAMEWORK_LOADER_PLUGIN_LIBRARY_H_
#define TESSERA_FRAMEWORK_LOADER_PLUGIN_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"

namespace tessera {

enum class PluginRole { kCompiler, kDispatch };
const char* PluginRoleName(PluginRole role);

// dlclose on destruction.
class SharedLibrary {
 public:
  explicit SharedLibrary(void* handle) : handle_(handle) {}
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  void* handle() const { return handle_; }

 private:
  void* handle_;
};

struct CompilerPluginLibrary {
  std::string vendor;
  std::string path;
  tsr_version version{};  // negotiated
  const tsr_compiler_plugin_api* api = nullptr;
  const tsr_compiler_plugin_info* info = nullptr;
  std::shared_ptr<SharedLibrary> library;
};

struct DispatchLibrary {
  std::string vendor;
  std::string path;
  tsr_version version{};
  const tsr_dispatch_api* api = nullptr;
  const tsr_dispatch_info* info = nullptr;
  std::shared_ptr<SharedLibrary> library;
};

// The header of a struct this host fills for a plugin: this host's size
// (presence) and the version negotiated with that plugin (behaviour); never
// the host's own compiled version.
inline tsr_abi_header HostFilledHeader(uint32_t struct_size, tsr_version negotiated) {
  return tsr_abi_header{struct_size, negotiated.major, negotiated.minor};
}

// Turns a plugin's tsr_status into an absl::Status carrying its error text.
absl::Status PluginStatus(tsr_status code, const char* (*get_last_error)(void), const std::string& context);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_PLUGIN_LIBRARY_H_
