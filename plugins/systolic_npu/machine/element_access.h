// Reading, writing and copying elements of the NPU's dtypes (I8, F16, F32,
// I32) in SRAM and DRAM, shared by the DMA engine and the vector unit.
// Inline on purpose: these run once per element, and the simulator's speed
// on small layers is bounded by them (docs/benchmarks.md), so the dtype
// decision is hoisted out of the loops wherever a whole run of elements
// has one dtype pair.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ELEMENT_ACCESS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ELEMENT_ACCESS_H_

#include <cstdint>
#include <cstring>

#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "tessera/common.h"

namespace tessera::systolic {

inline float LoadFloat(const uint8_t* p, int32_t dtype) {  // F32 / F16
  if (dtype == TSR_DTYPE_F16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

inline void StoreFloat(uint8_t* p, int32_t dtype, float v) {  // F16 rounds
  if (dtype == TSR_DTYPE_F16) {
    const uint16_t h = FloatToHalf(v);
    std::memcpy(p, &h, 2);
  } else {
    std::memcpy(p, &v, 4);
  }
}

inline int32_t LoadInt(const uint8_t* p, int32_t dtype) {  // I8 / I32
  if (dtype == TSR_DTYPE_I8) return static_cast<int8_t>(*p);
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline void StoreInt(uint8_t* p, int32_t dtype, int32_t v) {  // I8 truncates
  if (dtype == TSR_DTYPE_I8) {
    *p = static_cast<uint8_t>(static_cast<int8_t>(v));
  } else {
    std::memcpy(p, &v, 4);
  }
}

// How one element moves from a `from` dtype to a `to` dtype: a copy of
// 1, 2 or 4 bytes, or an F32 <-> F16 conversion (round to nearest even).
enum class ElementMove : uint8_t { kCopy1, kCopy2, kCopy4, kF32ToF16, kF16ToF32 };

inline ElementMove MoveFor(int32_t from, int32_t to) {
  if (from == TSR_DTYPE_F32 && to == TSR_DTYPE_F16) return ElementMove::kF32ToF16;
  if (from == TSR_DTYPE_F16 && to == TSR_DTYPE_F32) return ElementMove::kF16ToF32;
  switch (NpuDtypeSize(from)) {
    case 1:
      return ElementMove::kCopy1;
    case 2:
      return ElementMove::kCopy2;
    default:
      return ElementMove::kCopy4;
  }
}

inline void MoveElement(ElementMove m, const uint8_t* src, uint8_t* dst) {
  switch (m) {
    case ElementMove::kCopy1:
      *dst = *src;
      return;
    case ElementMove::kCopy2:
      std::memcpy(dst, src, 2);
      return;
    case ElementMove::kCopy4:
      std::memcpy(dst, src, 4);
      return;
    case ElementMove::kF32ToF16:
      StoreFloat(dst, TSR_DTYPE_F16, LoadFloat(src, TSR_DTYPE_F32));
      return;
    case ElementMove::kF16ToF32:
      StoreFloat(dst, TSR_DTYPE_F32, LoadFloat(src, TSR_DTYPE_F16));
      return;
  }
}

// `n` elements, source every `src_step` bytes, destination every
// `dst_step` bytes. The move is decided once; each case is a tight loop.
inline void MoveElements(ElementMove m, const uint8_t* src, size_t src_step, uint8_t* dst, size_t dst_step,
                         uint64_t n) {
  switch (m) {
    case ElementMove::kCopy1:
      for (uint64_t i = 0; i < n; ++i) dst[i * dst_step] = src[i * src_step];
      return;
    case ElementMove::kCopy2:
      for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_step, src + i * src_step, 2);
      return;
    case ElementMove::kCopy4:
      for (uint64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_step, src + i * src_step, 4);
      return;
    case ElementMove::kF32ToF16:
      for (uint64_t i = 0; i < n; ++i)
        StoreFloat(dst + i * dst_step, TSR_DTYPE_F16, LoadFloat(src + i * src_step, TSR_DTYPE_F32));
      return;
    case ElementMove::kF16ToF32:
      for (uint64_t i = 0; i < n; ++i)
        StoreFloat(dst + i * dst_step, TSR_DTYPE_F32, LoadFloat(src + i * src_step, TSR_DTYPE_F16));
      return;
  }
}

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ELEMENT_ACCESS_H_
