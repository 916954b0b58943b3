// Constants shared by the cpu vendor's compiler and dispatch libraries (a
// vendor-internal contract, not part of the Tessera ABI). A cpu JIT handle
// is a kit::JitPayload carrying kCpuJitMagic; its body is the same graph
// encoding an AOT entry point holds.
#ifndef TESSERA_PLUGINS_CPU_SHARED_CPU_JIT_PROGRAM_H_
#define TESSERA_PLUGINS_CPU_SHARED_CPU_JIT_PROGRAM_H_

#include <cstdint>

namespace tessera::cpu {

inline constexpr uint32_t kCpuJitMagic = 0x4A555043;  // "CPUJ"
inline constexpr char kCpuVendor[] = "cpu";
inline constexpr uint32_t kCpuBodyFormatVersion = 1;

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_SHARED_CPU_JIT_PROGRAM_H_
