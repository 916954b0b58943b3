// The cpu dispatch library's one exported symbol, in a library of its own
// (libtessera_dispatch_cpu.so) that loads the implementation
// (libtessera_cpu_dispatch_impl.so: the program, the kernels, oneDNN and
// the OpenMP runtime) from its own directory on the first negotiation.
//
// Why the split: Debian's oneDNN runs on libgomp, whose worker threads
// spin-wait (GOMP_SPINCOUNT, 300000 iterations by default) between
// parallel regions. On a busy machine the spinning workers take the cores
// from the thread doing the work: `--threads 2` on a loaded 2-core machine
// ran 8x slower than one thread. libgomp reads OMP_WAIT_POLICY and
// GOMP_SPINCOUNT once, in its constructor, when it is loaded; a library
// that links it is too late to set them (its dependencies' constructors run
// first, checked with OMP_DISPLAY_ENV=verbose). This library has no
// dependency on it, so it can choose the policy before the implementation,
// and with it libgomp, is loaded:
//   * OMP_WAIT_POLICY=passive (idle workers sleep in the kernel) unless the
//     user set OMP_WAIT_POLICY or GOMP_SPINCOUNT: their choice wins.
//   * When libgomp is already in the process (the application or another
//     plugin uses OpenMP), its settings stand; nothing here can change them.
// See docs/benchmarks.md ("Threads").
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/dispatch.h"

namespace {

using Negotiate = tsr_status (*)(tsr_version, tsr_version*, const tsr_dispatch_api**);

constexpr char kImplementation[] = "libtessera_cpu_dispatch_impl.so";
constexpr char kImplementationEntry[] = "tessera_cpu_dispatch_impl_negotiate";

void ChoosePassiveWaitPolicy() {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr)
    setenv("OMP_WAIT_POLICY", "passive", /*overwrite=*/0);
}

// Loaded once per process (function-local static: thread-safe) and never
// unloaded: the table it hands out must stay valid while the host holds it.
Negotiate Implementation() {
  static const Negotiate negotiate = []() -> Negotiate {
    ChoosePassiveWaitPolicy();
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&ChoosePassiveWaitPolicy), &self) == 0 || self.dli_fname == nullptr) {
      std::fprintf(stderr, "tessera cpu dispatch: cannot locate its own library\n");
      return nullptr;
    }
    const std::string own(self.dli_fname);
    const std::string path = own.substr(0, own.rfind('/') + 1) + kImplementation;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "tessera cpu dispatch: cannot load %s: %s\n", path.c_str(), dlerror());
      return nullptr;
    }
    auto fn = reinterpret_cast<Negotiate>(dlsym(handle, kImplementationEntry));
    if (fn == nullptr) std::fprintf(stderr, "tessera cpu dispatch: %s has no %s\n", path.c_str(), kImplementationEntry);
    return fn;
  }();
  return negotiate;
}

}  // namespace

extern "C" TSR_EXPORT tsr_status tsr_dispatch_negotiate(tsr_version host, tsr_version* out_version,
                                                        const tsr_dispatch_api** out_api) {
  const Negotiate negotiate = Implementation();
  if (negotiate == nullptr) return TSR_UNAVAILABLE;
  return negotiate(host, out_version, out_api);
}
