// The entry symbols are declared in the headers, inside extern "C" and with
// TSR_EXPORT (since 1.4). So a vendor who defines them in C++ and forgets
// both still ships the C names the host dlsyms, exported: this file defines
// them exactly that way, and the test looks them up as the loader does.
// Without the prototypes the definitions below would be mangled
// (_Z22tsr_dispatch_negotiate...) and dlsym would find nothing.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"

namespace {
const tsr_compiler_plugin_api kCompiler{};
const tsr_dispatch_api kDispatch{};
}  // namespace

// No extern "C", no TSR_EXPORT: the header's prototype supplies both.
tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                         const tsr_compiler_plugin_api** out_api) {
  *out_version = {1, static_cast<uint16_t>(host.minor > 2 ? 2 : host.minor)};
  *out_api = &kCompiler;
  return TSR_OK;
}

tsr_status tsr_dispatch_negotiate(tsr_version host, tsr_version* out_version, const tsr_dispatch_api** out_api) {
  *out_version = {1, static_cast<uint16_t>(host.minor > 3 ? 3 : host.minor)};
  *out_api = &kDispatch;
  return TSR_OK;
}

namespace {
int failures = 0;
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  void* self = dlopen(nullptr, RTLD_NOW);
  Check(self != nullptr, "dlopen(NULL)");
  auto compiler = reinterpret_cast<tsr_compiler_plugin_negotiate_fn>(dlsym(self, TSR_COMPILER_PLUGIN_ENTRY));
  auto dispatch = reinterpret_cast<tsr_dispatch_negotiate_fn>(dlsym(self, TSR_DISPATCH_ENTRY));
  Check(compiler != nullptr, "dlsym(\"tsr_compiler_plugin_negotiate\") found the C name");
  Check(dispatch != nullptr, "dlsym(\"tsr_dispatch_negotiate\") found the C name");
  if (compiler != nullptr && dispatch != nullptr) {
    // The symbol is the definition above, not something else of that name.
    tsr_version v{};
    const tsr_compiler_plugin_api* capi = nullptr;
    const tsr_dispatch_api* dapi = nullptr;
    Check(compiler({1, 4}, &v, &capi) == TSR_OK && v.major == 1 && v.minor == 2 && capi == &kCompiler,
          "the compiler entry answers 1.2 with its table");
    Check(dispatch({1, 4}, &v, &dapi) == TSR_OK && v.major == 1 && v.minor == 3 && dapi == &kDispatch,
          "the dispatch entry answers 1.3 with its table");
  }
  if (self != nullptr) dlclose(self);
  if (failures == 0) std::puts("entry prototypes: both C names exported");
  return failures == 0 ? 0 : 1;
}
