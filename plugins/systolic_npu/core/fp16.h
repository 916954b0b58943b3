// IEEE 754 binary16 <-> binary32 conversions, bit exact and portable (no
// F16C needed). Float -> half rounds to nearest, ties to even; overflow
// gives +-inf; NaN stays NaN (quiet, sign kept).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_FP16_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_FP16_H_

#include <cstdint>
#include <cstring>

namespace tessera::systolic {

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
             ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13) | (mant ? 0x400000u : 0u);
  } else {
    bits = sign | ((exp + (127 - 15)) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // inf or NaN
    if (abs == 0x7F800000u) return sign | 0x7C00u;
    return sign | 0x7E00u | static_cast<uint16_t>((abs >> 13) & 0x3FFu);
  }
  if (abs >= 0x477FF000u) return sign | 0x7C00u;  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14)
    if (abs < 0x33000000u) return sign;  // < 2^-25: rounds to zero
    // Subnormal half: value = mant * 2^-24.
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14 + 24 - (e - 127) - 23 ... - 1
    // half mantissa = m >> (shift), with round to nearest even.
    const uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    uint32_t r = q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u);
    return sign | static_cast<uint16_t>(r);
  }
  // Normal: rebias exponent, round mantissa from 23 to 10 bits.
  uint32_t r = abs - 0x38000000u;  // exponent rebias 127 -> 15 (<< 23 / 13)
  const uint32_t rem = r & 0x1FFFu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;  // may carry to inf
  return sign | static_cast<uint16_t>(r);
}

// Rounds a float to the nearest half and back.
inline float RoundToHalf(float f) { return HalfToFloat(FloatToHalf(f)); }

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_FP16_H_
