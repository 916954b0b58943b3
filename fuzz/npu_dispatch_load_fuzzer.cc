// systolic_npu bytecode -> the NPU dispatch library's load_executable,
// linked in from its source (see cpu_dispatch_load_fuzzer.cc for why). The
// context targets the default SoC (ref-phone), which the seeds were
// compiled for, so mutated seeds get past the target check.
#include "fuzz/dispatch_fuzz.h"

extern "C" tsr_status tsr_dispatch_negotiate(tsr_version, tsr_version*, const tsr_dispatch_api**);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const tessera::fuzz::DispatchUnderTest dispatch = tessera::fuzz::OpenDispatch(tsr_dispatch_negotiate);
  tessera::fuzz::FuzzLoadExecutable(dispatch, data, size);
  return 0;
}
