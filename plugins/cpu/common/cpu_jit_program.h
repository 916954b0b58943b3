// The cpu vendor's JIT handle, shared by its compiler and dispatch
// libraries (a vendor-internal contract, not part of the Tessera ABI). It is
// plain C data so the two .so files need not agree on C++ layouts.
#ifndef TESSERA_PLUGINS_CPU_COMMON_CPU_JIT_PROGRAM_H_
#define TESSERA_PLUGINS_CPU_COMMON_CPU_JIT_PROGRAM_H_

#include <cstddef>
#include <cstdint>

namespace tessera::cpu {

inline constexpr uint32_t kCpuJitMagic = 0x4A555043;  // "CPUJ"
inline constexpr char kCpuVendor[] = "cpu";
inline constexpr uint32_t kCpuBodyFormatVersion = 1;

// Lives inside the compiler's tsr_compiled; valid until release_compiled.
struct CpuJitProgram {
  uint32_t magic;             // kCpuJitMagic
  uint32_t format_version;    // kCpuBodyFormatVersion
  const uint8_t* encoded;     // kit::EncodeSnapshot bytes
  size_t encoded_size;
  uint32_t input_count;
  uint32_t output_count;
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_COMMON_CPU_JIT_PROGRAM_H_
