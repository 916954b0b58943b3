// Constants shared by the mock DSP's compiler and dispatch libraries (a
// vendor-internal contract, not part of the Tessera ABI). A mock_dsp JIT
// handle is a kit::JitPayload carrying kDspJitMagic; its body is the
// partition's kit graph encoding, which the dispatch library interprets
// with its own kernels.
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_CONTRACT_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_CONTRACT_H_

#include <cstdint>

#include "tessera/common.h"

namespace tessera::mock_dsp {

inline constexpr char kDspVendor[] = "mock_dsp";
inline constexpr char kDspShortName[] = "dsp";
inline constexpr uint32_t kDspJitMagic = 0x4A505344;  // "DSPJ"
inline constexpr uint32_t kDspBodyFormatVersion = 1;

// The DSP's tightly coupled memory: a library-scoped vendor buffer type
// (common.h's namespace rule), so no other library accepts it and every
// edge to another device goes through a runtime conversion.
inline constexpr int32_t kDspTcmBufferType = TSR_BUFFER_TYPE_VENDOR_BASE + 1;
inline constexpr char kDspTcmBufferName[] = "dsp_tcm";

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_CONTRACT_H_
