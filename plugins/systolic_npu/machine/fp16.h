// IEEE 754 binary16 <-> binary32 conversions, bit exact and portable (no
// F16C needed). Float -> half rounds to nearest, ties to even; overflow
// gives +-inf; NaN stays NaN (quiet, sign kept).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_FP16_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_FP16_H_

#include <cstdint>
#include <cstring>

namespace tessera::systolic {

// Both conversions are straight-line bit manipulation plus (for
// subnormals) one exact float operation, with no loop and no
// data-dependent branch in the common (normal) case: they run once per
// element of every F16 DMA and vector op, and the branchy versions they
// replace were the simulator's hottest code on small layers
// (docs/benchmarks.md). fp16_test.cc pins them against a plain reference
// conversion on all 2^16 halves and on every 2^13-th float plus all
// rounding boundaries.

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = h & 0x7C00u;
  uint32_t bits = static_cast<uint32_t>(h & 0x7FFFu) << 13;  // exponent and mantissa in place
  float f;
  if (exp == 0x7C00u) {  // inf / NaN: all-ones exponent, NaN made quiet
    bits |= 0x7F800000u | ((h & 0x3FFu) ? 0x400000u : 0u);
    std::memcpy(&f, &bits, 4);
  } else if (exp == 0) {  // zero / subnormal: mant * 2^-24, exact in f32
    bits += 0x38800000u;  // = 2^-14 + mant * 2^-24 as a normal float ...
    std::memcpy(&f, &bits, 4);
    f -= 0x1p-14f;  // ... minus 2^-14 (exact: Sterbenz)
  } else {
    bits += 0x38000000u;  // rebias the exponent, 15 -> 127
    std::memcpy(&f, &bits, 4);
  }
  uint32_t out;
  std::memcpy(&out, &f, 4);
  out |= sign;
  std::memcpy(&f, &out, 4);
  return f;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x477FF000u) {  // inf, NaN, or rounds to >= 65520: inf
    if (abs > 0x7F800000u)   // NaN: quiet, top payload bits kept
      return sign | 0x7E00u | static_cast<uint16_t>((abs >> 13) & 0x3FFu);
    return sign | 0x7C00u;
  }
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or 0, or 2^-14)
    // |f| + 0.5 puts 2^-24 (the subnormal half's unit) at the last bit of
    // the sum's mantissa, so the FPU's own round-to-nearest-even rounds
    // to the half's mantissa: the sum's low bits are that mantissa.
    float a;
    std::memcpy(&a, &abs, 4);
    const float s = a + 0.5f;
    uint32_t b;
    std::memcpy(&b, &s, 4);
    return sign | static_cast<uint16_t>(b - 0x3F000000u);
  }
  // Normal: rebias, then round the 13 dropped bits to nearest even by
  // adding 0xFFF plus the kept mantissa's lowest bit (a carry may move
  // into the exponent, which is the correct rounding up).
  const uint32_t odd = (abs >> 13) & 1u;
  return sign | static_cast<uint16_t>((abs - 0x38000000u + 0xFFFu + odd) >> 13);
}

// Rounds a float to the nearest half and back.
inline float RoundToHalf(float f) { return HalfToFloat(FloatToHalf(f)); }

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_FP16_H_
