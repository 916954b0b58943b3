// The straight-line F16 conversions of fp16.h against plain reference
// conversions written the obvious way (normalize by loop, round by
// comparing the remainder with half an ulp): bit-identical results,
// NaN payloads and signed zeros included, so every pinned output of the
// simulator stays the same.
#include "plugins/systolic_npu/machine/fp16.h"

#include <cstdint>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float RefHalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
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

uint16_t RefFloatToHalf(float f) {
  const uint32_t x = Bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {
    if (abs == 0x7F800000u) return sign | 0x7C00u;
    return sign | 0x7E00u | static_cast<uint16_t>((abs >> 13) & 0x3FFu);
  }
  if (abs >= 0x477FF000u) return sign | 0x7C00u;
  if (abs < 0x38800000u) {
    if (abs < 0x33000000u) return sign;
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - e;
    const uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    const uint32_t r = q + ((rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u);
    return sign | static_cast<uint16_t>(r);
  }
  uint32_t r = abs - 0x38000000u;
  const uint32_t rem = r & 0x1FFFu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return sign | static_cast<uint16_t>(r);
}

TEST(Fp16, HalfToFloatAllHalves) {
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(Bits(HalfToFloat(static_cast<uint16_t>(h))), Bits(RefHalfToFloat(static_cast<uint16_t>(h))))
        << std::hex << h;
}

TEST(Fp16, FloatToHalfRoundingBoundaries) {
  // Every value of the 19 bits above the 13 that are rounded away, both
  // signs, with the dropped bits at each rounding boundary (0, just
  // above 0, just below / at / just above half, all ones); plus random
  // floats. Covers normal, subnormal, overflow, inf and NaN inputs.
  const uint32_t lows[] = {0x0000u, 0x0001u, 0x0FFFu, 0x1000u, 0x1001u, 0x1FFFu};
  for (uint32_t hi = 0; hi < (1u << 19); ++hi)
    for (uint32_t low : lows)
      for (uint32_t sign : {0u, 0x80000000u}) {
        const uint32_t x = sign | (hi << 13) | low;
        float f;
        std::memcpy(&f, &x, 4);
        ASSERT_EQ(FloatToHalf(f), RefFloatToHalf(f)) << std::hex << x;
      }
  // Every float whose half is subnormal (or the smallest normal): there
  // the rounding position moves with the exponent.
  for (uint32_t x = 0x33000000u; x <= 0x38800000u; ++x) {
    float f;
    std::memcpy(&f, &x, 4);
    ASSERT_EQ(FloatToHalf(f), RefFloatToHalf(f)) << std::hex << x;
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t x = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &x, 4);
    ASSERT_EQ(FloatToHalf(f), RefFloatToHalf(f)) << std::hex << x;
  }
}

}  // namespace
}  // namespace tessera::systolic
