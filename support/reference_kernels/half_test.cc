#include "support/reference_kernels/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tessera::cpu {
namespace {

TEST(HalfTest, KnownEncodings) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);               // max finite
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // min normal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // min subnormal
  EXPECT_EQ(FloatToHalf(0.333333343f), 0x3555);
}

TEST(HalfTest, RoundToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1+2^-10: ties to even (1.0).
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 is halfway between 0x3c01 and 0x3c02: ties to 0x3c02.
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Slightly above halfway rounds up.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  // Overflow: 65519 rounds down to 65504, 65520 (tie, odd max) to inf.
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-1e6f), 0xfc00);
}

TEST(HalfTest, Subnormals) {
  // 2^-25 is a tie between 0 and the smallest subnormal: rounds to 0.
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  // Just above 2^-25 rounds up to the smallest subnormal.
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  // 3 * 2^-25 is a tie between 1 and 2 subnormal units: even = 2.
  EXPECT_EQ(FloatToHalf(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(FloatToHalf(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  // Largest subnormal 1023 * 2^-24; rounding up from it reaches min normal.
  EXPECT_EQ(FloatToHalf(1023 * std::ldexp(1.0f, -24)), 0x03ff);
  EXPECT_EQ(FloatToHalf(1023.5f * std::ldexp(1.0f, -24)), 0x0400);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x8001), -std::ldexp(1.0f, -24));
}

TEST(HalfTest, InfAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FloatToHalf(inf), 0x7c00);
  EXPECT_EQ(FloatToHalf(-inf), 0xfc00);
  const uint16_t n = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(n & 0x7c00, 0x7c00);
  EXPECT_NE(n & 0x03ff, 0);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0xfc01)));
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f))));
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
}

TEST(HalfTest, MidpointsRoundToEven) {
  // For each adjacent finite pair, the float midpoint rounds to the even one.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const float a = HalfToFloat(static_cast<uint16_t>(h));
    const float b = HalfToFloat(static_cast<uint16_t>(h + 1));
    const float mid = a + (b - a) / 2;  // exact in f32
    const uint16_t expect = (h & 1) ? h + 1 : h;
    ASSERT_EQ(FloatToHalf(mid), expect) << std::hex << h;
  }
}

}  // namespace
}  // namespace tessera::cpu
