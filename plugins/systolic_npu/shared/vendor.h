// Vendor-internal contract between the systolic_npu compiler and dispatch
// libraries (not part of the Tessera ABI). Plain C data only, so the two
// .so files need not agree on C++ layouts.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_SHARED_VENDOR_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_SHARED_VENDOR_H_

#include <cstdint>

namespace tessera::systolic {

inline constexpr char kVendor[] = "systolic_npu";
inline constexpr char kPluginVersion[] = "0.1.0";
// JIT handles are kit::JitPayload (plugins/kit/compiled_result.h) with this
// magic and the body version (program.h) as format_version.
inline constexpr uint32_t kJitMagic = 0x4A50534E;  // "NSPJ"

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_SHARED_VENDOR_H_
