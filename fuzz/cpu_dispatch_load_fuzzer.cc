// cpu bytecode -> the cpu dispatch library's load_executable, linked in
// (its sources, not the .so: a sanitized plugin .so cannot link with
// -Wl,--no-undefined under clang, and this skips the libgomp loader shim,
// which has no parsing in it).
#include "fuzz/dispatch_fuzz.h"

extern "C" tsr_status tessera_cpu_dispatch_impl_negotiate(tsr_version, tsr_version*, const tsr_dispatch_api**);

// The context has a 256 MiB memory budget (cpu.max_memory_bytes), as an
// app on a phone would set: a bytecode whose tensors need more is refused
// at load, before anything is prepared, and the budget check itself is
// under test. Under the 16 GiB default a legitimate 2 GB convolution
// prepares for 2 GB (fuzz finding 9), past libFuzzer's 2 GB RSS limit.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tessera::fuzz::DispatchUnderTest dispatch = tessera::fuzz::OpenDispatch(
      tessera_cpu_dispatch_impl_negotiate, {{"cpu.max_memory_bytes", "268435456"}});
  tessera::fuzz::FuzzLoadExecutable(dispatch, data, size);
  return 0;
}
