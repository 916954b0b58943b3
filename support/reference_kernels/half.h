// IEEE 754 binary16 <-> binary32 conversion. f16 tensors store the raw
// uint16 bit pattern; kernels compute in f32 and round back with
// round-to-nearest-even. Subnormals, infinities and NaNs are handled exactly.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_HALF_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_HALF_H_

#include <cstdint>

namespace tessera::cpu {

// Exact (every half is a float).
float HalfToFloat(uint16_t h);

// Round-to-nearest-even. |x| >= 65520 becomes +-inf; NaN stays NaN (quiet,
// sign and top payload bits kept); results below the smallest subnormal
// (2^-24) round to +-0 with ties to even.
uint16_t FloatToHalf(float x);

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_HALF_H_
