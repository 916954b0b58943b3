#include "support/reference_kernels/half.h"

#include <bit>
#include <cmath>

namespace tessera::cpu {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) {  // inf / nan
    return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  }
  if (exp == 0) {  // zero / subnormal: mant * 2^-24, exact in f32
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

uint16_t FloatToHalf(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t absx = bits & 0x7fffffffu;
  if (absx > 0x7f800000u) {  // NaN: keep it quiet and keep top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((absx >> 13) & 0x3ffu));
  }
  if (absx >= 0x477ff000u) {  // >= 65520 (incl. inf): overflow to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (absx < 0x38800000u) {  // < 2^-14: half subnormal or zero
    const uint32_t e = absx >> 23;
    if (e < 102) return sign;  // < 2^-25: rounds to zero
    // value = m * 2^(e-150); in units of 2^-24 that is m * 2^(e-126).
    const uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias exponent (127 -> 15), round the 13 dropped bits.
  uint32_t h = (absx - 0x38000000u) >> 13;
  const uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

}  // namespace tessera::cpu
