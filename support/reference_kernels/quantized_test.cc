#include "support/reference_kernels/quantized.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace tessera::cpu {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(QuantizeMultiplierTest, KnownVectors) {
  EXPECT_EQ(QuantizeMultiplier(0.5), (QuantizedMultiplier{1 << 30, 0}));
  EXPECT_EQ(QuantizeMultiplier(1.0), (QuantizedMultiplier{1 << 30, 1}));
  EXPECT_EQ(QuantizeMultiplier(0.25), (QuantizedMultiplier{1 << 30, -1}));
  EXPECT_EQ(QuantizeMultiplier(0.75), (QuantizedMultiplier{1610612736, 0}));
  // 0.1 = 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4 -> 1717986918.
  EXPECT_EQ(QuantizeMultiplier(0.1), (QuantizedMultiplier{1717986918, -3}));
  EXPECT_EQ(QuantizeMultiplier(0.0), (QuantizedMultiplier{0, 0}));
  // q rounds up to 2^31: halve it and bump the shift.
  EXPECT_EQ(QuantizeMultiplier(1.0 - std::ldexp(1.0, -40)), (QuantizedMultiplier{1 << 30, 1}));
  // Tiny multipliers flush to zero; huge ones saturate.
  EXPECT_EQ(QuantizeMultiplier(std::ldexp(1.0, -40)), (QuantizedMultiplier{0, 0}));
  EXPECT_EQ(QuantizeMultiplier(std::ldexp(1.0, 40)), (QuantizedMultiplier{kMax, 30}));
}

TEST(QuantizeMultiplierTest, RepresentsTheMultiplier) {
  for (double m : {0.0003, 0.0123, 0.3, 0.9999, 1.7, 3.14159}) {
    const QuantizedMultiplier q = QuantizeMultiplier(m);
    EXPECT_GE(q.multiplier, 1 << 30);
    const double back = std::ldexp(static_cast<double>(q.multiplier), q.shift - 31);
    EXPECT_NEAR(back, m, m * 1e-9);
  }
}

TEST(SaturatingRoundingDoublingHighMulTest, KnownVectors) {
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), 2147483646);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), -2147483647);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  // 2.5 -> 3 and 1.5 -> 2 (ties up for positives) ...
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(5, 1 << 30), 3);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3, 1 << 30), 2);
  // ... and -1.5 -> -1, -2.5 -> -2 (gemmlowp's nudge then truncation).
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-5, 1 << 30), -2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(0, kMin), 0);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(100, 1 << 30), 50);
}

TEST(RoundingDivideByPOTTest, KnownVectors) {
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);  // -1.5: away from zero
  EXPECT_EQ(RoundingDivideByPOT(3, 1), 2);    // 1.5
  EXPECT_EQ(RoundingDivideByPOT(-1, 1), -1);  // -0.5
  EXPECT_EQ(RoundingDivideByPOT(1, 1), 1);    // 0.5
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);    // 1.25
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);    // 1.5
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);  // -1.5
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);  // -1.25
  EXPECT_EQ(RoundingDivideByPOT(-7, 2), -2);  // -1.75
  EXPECT_EQ(RoundingDivideByPOT(12345, 0), 12345);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 1), 1 << 30);  // 1073741823.5
}

TEST(MultiplyByQuantizedMultiplierTest, KnownVectors) {
  EXPECT_EQ(MultiplyByQuantizedMultiplier(100, 1 << 30, 0), 50);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(3, 1 << 30, 0), 2);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-3, 1 << 30, 0), -1);
  // 0.1 = {1717986918, -3}: 100 * 0.1 = 10, 125 * 0.1 = 12.5 -> 13 and
  // -125 * 0.1 -> -13 (right shift rounds half away from zero).
  const QuantizedMultiplier tenth = QuantizeMultiplier(0.1);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(100, tenth), 10);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(125, tenth), 13);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-125, tenth), -13);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(126, tenth), 13);
  // Left shift: 7 * 2 = 14.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(7, 1 << 30, 2), 14);
  // The left shift wraps modulo 2^32: (1<<30) << 2 == 0.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1 << 30, 1 << 30, 2), 0);
}

TEST(MultiplyByQuantizedMultiplierTest, CloseToRealProduct) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> acc(-1 << 20, 1 << 20);
  std::uniform_real_distribution<double> mult(1e-4, 0.99);
  for (int i = 0; i < 10000; ++i) {
    const int32_t a = acc(rng);
    const double m = mult(rng);
    const int32_t got = MultiplyByQuantizedMultiplier(a, QuantizeMultiplier(m));
    EXPECT_LE(std::fabs(got - a * m), 1.0) << a << " * " << m;
  }
}

TEST(QuantizeActivationBoundTest, KnownVectors) {
  EXPECT_EQ(QuantizeActivationBound(0.0f, 0.1f, -128), -128);
  EXPECT_EQ(QuantizeActivationBound(6.0f, 0.1f, -128), -68);
  EXPECT_EQ(QuantizeActivationBound(0.25f, 0.5f, 3), 4);   // 0.5 -> 1 (away)
  EXPECT_EQ(QuantizeActivationBound(-0.25f, 0.5f, 3), 2);  // -0.5 -> -1
  EXPECT_EQ(QuantizeActivationBound(1e30f, 1e-3f, 0), kMax);
}

}  // namespace
}  // namespace tessera::cpu
