// Vendor-internal contract between the systolic_npu compiler and dispatch
// libraries (not part of the Tessera ABI). Plain C data only, so the two
// .so files need not agree on C++ layouts.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMMON_VENDOR_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMMON_VENDOR_H_

#include <cstddef>
#include <cstdint>

namespace tessera::systolic {

inline constexpr char kVendor[] = "systolic_npu";
inline constexpr char kPluginVersion[] = "0.1.0";
inline constexpr uint32_t kJitMagic = 0x4A50534E;  // "NSPJ"

// A JIT result: one serialized body (program.h) holding one entry point.
// Lives inside the compiler's tsr_compiled; valid until release_compiled.
struct SystolicJitProgram {
  uint32_t magic;           // kJitMagic
  uint32_t body_version;    // kBodyVersion
  const uint8_t* body;
  size_t body_size;
  uint32_t input_count;
  uint32_t output_count;
};

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMMON_VENDOR_H_
