// cpu bytecode -> the cpu dispatch library's load_executable, linked in
// (its sources, not the .so: a sanitized plugin .so cannot link with
// -Wl,--no-undefined under clang, and this skips the libgomp loader shim,
// which has no parsing in it).
#include "dispatch_fuzz.h"

extern "C" tsr_status tessera_cpu_dispatch_impl_negotiate(tsr_version, tsr_version*, const tsr_dispatch_api**);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tessera::fuzz::DispatchUnderTest dispatch =
      tessera::fuzz::OpenDispatch(tessera_cpu_dispatch_impl_negotiate);
  tessera::fuzz::FuzzLoadExecutable(dispatch, data, size);
  return 0;
}
