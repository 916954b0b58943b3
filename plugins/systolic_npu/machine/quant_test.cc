#include "plugins/systolic_npu/machine/quant.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/fp16.h"

namespace tessera::systolic {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(Quant, QuantizeMultiplierKnownVectors) {
  EXPECT_EQ(QuantizeMultiplier(0.5), (QuantizedMultiplier{1 << 30, 0}));
  EXPECT_EQ(QuantizeMultiplier(1.0), (QuantizedMultiplier{1 << 30, 1}));
  EXPECT_EQ(QuantizeMultiplier(0.25), (QuantizedMultiplier{1 << 30, -1}));
  EXPECT_EQ(QuantizeMultiplier(2.0), (QuantizedMultiplier{1 << 30, 2}));
  EXPECT_EQ(QuantizeMultiplier(0.0), (QuantizedMultiplier{0, 0}));
  EXPECT_EQ(QuantizeMultiplier(0.75), (QuantizedMultiplier{1610612736, 0}));
  // Mantissa rounding up to 2^31 renormalizes.
  EXPECT_EQ(QuantizeMultiplier(std::nextafter(1.0, 0.0)), (QuantizedMultiplier{1 << 30, 1}));
  // Too small for q31: flushed to zero.
  EXPECT_EQ(QuantizeMultiplier(std::ldexp(1.0, -40)), (QuantizedMultiplier{0, 0}));
  const QuantizedMultiplier q = QuantizeMultiplier(0.0039215686);  // ~1/255
  EXPECT_EQ(q.shift, -7);
  EXPECT_NEAR(std::ldexp(static_cast<double>(q.multiplier), q.shift - 31), 0.0039215686, 1e-10);
}

TEST(Quant, SaturatingRoundingDoublingHighMul) {
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(100, 1 << 30), 50);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-100, 1 << 30), -50);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3, 1 << 30), 2);    // 1.5 -> 2
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);  // -1.5 -> -1 (gemmlowp nudge)
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(0, kMin), 0);
}

TEST(Quant, RoundingDivideByPOT) {
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);
  EXPECT_EQ(RoundingDivideByPOT(3, 1), 2);
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(RoundingDivideByPOT(7, 0), 7);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
}

TEST(Quant, MultiplyByQuantizedMultiplier) {
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, 1 << 30, 0), 500);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, 1 << 30, 1), 1000);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, 1 << 30, -2), 125);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-1001, 1 << 30, -1), -250);
  // Matches real arithmetic within one unit for random values.
  std::mt19937 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const double m = std::ldexp(0.5 + (rng() % 1000000) / 2e6, -static_cast<int>(rng() % 20));
    const int32_t x = static_cast<int32_t>(rng() % 2000001) - 1000000;
    const QuantizedMultiplier q = QuantizeMultiplier(m);
    EXPECT_NEAR(MultiplyByQuantizedMultiplier(x, q.multiplier, q.shift), x * m, 1.0);
  }
}

TEST(Quant, RequantizeAndActivationRange) {
  const QuantizedMultiplier q = QuantizeMultiplier(0.5);
  EXPECT_EQ(RequantizeOne(100, q.multiplier, q.shift, 3, -128, 127), 53);
  EXPECT_EQ(RequantizeOne(1000, q.multiplier, q.shift, 3, -128, 127), 127);
  EXPECT_EQ(RequantizeOne(-1000, q.multiplier, q.shift, 3, -128, 127), -128);
  EXPECT_EQ(RequantizeOne(-10, q.multiplier, q.shift, 3, 3, 127), 3);
  QuantRange r = QuantizedActivationRange(Activation::kRelu, 0, 0, 0.1f, -5);
  EXPECT_EQ(r.min, -5);
  EXPECT_EQ(r.max, 127);
  r = QuantizedActivationRange(Activation::kClip, 0.0f, 6.0f, 0.1f, -5);
  EXPECT_EQ(r.min, -5);
  EXPECT_EQ(r.max, 55);
  r = QuantizedActivationRange(Activation::kNone, 0, 0, 0.1f, 0);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);
}

// Ties, where the two rounding rules part: gemmlowp's RoundingDivideByPOT
// and TFLite's activation bounds round half away from zero, so 2.5 -> 3
// and -2.5 -> -3 (half-to-even would give 2 and -2). Values by hand.
TEST(Quant, TiesRoundHalfAwayFromZero) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);     // 2.5
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);   // -2.5
  EXPECT_EQ(RoundingDivideByPOT(10, 2), 3);    // 2.5
  EXPECT_EQ(RoundingDivideByPOT(-10, 2), -3);  // -2.5
  EXPECT_EQ(RoundingDivideByPOT(9, 2), 2);     // 2.25
  EXPECT_EQ(RoundingDivideByPOT(11, 2), 3);    // 2.75
  // Through the whole requantizer (quant.h's pipeline, worked by hand).
  // M = 0.5 is (q31 2^30, shift 0): SRDHM alone halves, its nudge rounds
  // +2.5 up to 3 but -2.5 to -2 (gemmlowp: (ab + 1 - 2^30) / 2^31
  // truncates toward zero). Zero point 1.
  const QuantizedMultiplier half = QuantizeMultiplier(0.5);
  EXPECT_EQ(RequantizeOne(5, half.multiplier, half.shift, 1, -128, 127), 4);
  EXPECT_EQ(RequantizeOne(-5, half.multiplier, half.shift, 1, -128, 127), -1);
  // M = 0.25 is (2^30, shift -1): SRDHM halves an even acc exactly, then
  // RoundingDivideByPOT by 1 takes the tie half away from zero.
  const QuantizedMultiplier quarter = QuantizeMultiplier(0.25);
  EXPECT_EQ(RequantizeOne(10, quarter.multiplier, quarter.shift, 0, -128, 127), 3);    // 2.5
  EXPECT_EQ(RequantizeOne(-10, quarter.multiplier, quarter.shift, 0, -128, 127), -3);  // -2.5
  EXPECT_EQ(RequantizeOne(6, quarter.multiplier, quarter.shift, 0, -128, 127), 2);     // 1.5
  EXPECT_EQ(RequantizeOne(-6, quarter.multiplier, quarter.shift, 0, -128, 127), -2);   // -1.5
  EXPECT_EQ(RequantizeOne(12, quarter.multiplier, quarter.shift, 0, -128, 127), 3);    // 3 exactly
  // The activation bounds: CLIP(0.25, 1.25) at scale 0.5 is round(0.5) = 1
  // and round(2.5) = 3 (half away), plus the zero point 2.
  const QuantRange r = QuantizedActivationRange(Activation::kClip, 0.25f, 1.25f, 0.5f, 2);
  EXPECT_EQ(r.min, 3);
  EXPECT_EQ(r.max, 5);
  const QuantRange neg = QuantizedActivationRange(Activation::kClip, -1.25f, -0.25f, 0.5f, 0);
  EXPECT_EQ(neg.min, -3);  // round(-2.5)
  EXPECT_EQ(neg.max, -1);  // round(-0.5)
}

// The clamp at exactly act_min and act_max, and one past each.
TEST(Quant, RequantizeClampsAtExactlyTheActivationBounds) {
  const QuantizedMultiplier one = QuantizeMultiplier(1.0);  // acc passes through
  EXPECT_EQ(RequantizeOne(-6, one.multiplier, one.shift, 0, -5, 7), -5);
  EXPECT_EQ(RequantizeOne(-5, one.multiplier, one.shift, 0, -5, 7), -5);
  EXPECT_EQ(RequantizeOne(-4, one.multiplier, one.shift, 0, -5, 7), -4);
  EXPECT_EQ(RequantizeOne(7, one.multiplier, one.shift, 0, -5, 7), 7);
  EXPECT_EQ(RequantizeOne(8, one.multiplier, one.shift, 0, -5, 7), 7);
  EXPECT_EQ(RequantizeOne(6, one.multiplier, one.shift, 0, -5, 7), 6);
}

TEST(Quant, EltwiseFollowsTheFloatReference) {
  const QuantEltwiseDesc d = MakeQuantEltwiseDesc(0.05f, 3, 0.1f, -2, 0.2f, 1);
  // (10-3)*0.05 + (20+2)*0.1 = 2.55 -> /0.2 = 12.75 -> 13 + 1
  EXPECT_EQ(QuantEltwiseOne(d, true, 10, 20), 14);
  // 0.35 * 2.2 = 0.77 -> 3.85 -> 4 + 1
  EXPECT_EQ(QuantEltwiseOne(d, false, 10, 20), 5);
  EXPECT_EQ(QuantEltwiseOne(d, false, 127, 127), 127);  // saturates
  // Ties round to even: 0.5 -> 0, 1.5 -> 2 (scale 1, zero points 0).
  const QuantEltwiseDesc e = MakeQuantEltwiseDesc(0.5f, 0, 0.5f, 0, 1.0f, 0);
  EXPECT_EQ(QuantEltwiseOne(e, true, 1, 0), 0);
  EXPECT_EQ(QuantEltwiseOne(e, true, 3, 0), 2);
  EXPECT_EQ(QuantEltwiseOne(e, true, -3, 0), -2);
}

TEST(Quant, ActivationRangeEdgeCases) {
  // An empty CLIP range yields the upper bound (max first, then min).
  const QuantRange r = QuantizedActivationRange(Activation::kClip, 1.0f, 0.5f, 0.1f, 0);
  EXPECT_EQ(r.min, 5);
  EXPECT_EQ(r.max, 5);
  const QuantRange inf =
      QuantizedActivationRange(Activation::kClip, -std::numeric_limits<float>::infinity(), 1.0f, 0.1f, 0);
  EXPECT_EQ(inf.min, -128);
  EXPECT_EQ(inf.max, 10);
}

TEST(Fp16, MatchesCompilerConversion) {
  // Every half round-trips and equals the compiler's _Float16 conversion.
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE((h & 0x7C00) == 0x7C00 && (h & 0x3FF));
      continue;
    }
    const _Float16 ref = [&] {
      _Float16 x;
      uint16_t b = static_cast<uint16_t>(h);
      std::memcpy(&x, &b, 2);
      return x;
    }();
    EXPECT_EQ(f, static_cast<float>(ref)) << h;
    EXPECT_EQ(FloatToHalf(f), h) << h;
  }
  std::mt19937 rng(11);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f)) continue;
    const _Float16 ref = static_cast<_Float16>(f);
    uint16_t rb;
    std::memcpy(&rb, &ref, 2);
    ASSERT_EQ(FloatToHalf(f), rb) << f;
  }
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie to even
  EXPECT_EQ(FloatToHalf(std::ldexp(1.5f, -25)), 0x0001);
}

// docs/ops.md QUANTIZE: the CPU reference's vectors (support/reference_kernels/
// convert_test.cc) plus ties, NaN, infinities and saturation.
TEST(Quant, QuantizeToInt8KnownVectors) {
  const float inf = std::numeric_limits<float>::infinity();
  // x / 0.5 = {0, 2, 5, -5, 2000, 0.5 -> 0, 1.5 -> 2, -0.5 -> -0} + 1.
  const float xs[] = {0, 1, 2.5f, -2.5f, 1000, 0.25f, 0.75f, -0.25f};
  const int8_t want[] = {1, 3, 6, -4, 127, 1, 3, 1};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(QuantizeToInt8(xs[i], 0.5f, 1), want[i]) << xs[i];
  EXPECT_EQ(QuantizeToInt8(2.5f, 1.0f, 0), 2);  // ties to even
  EXPECT_EQ(QuantizeToInt8(3.5f, 1.0f, 0), 4);
  EXPECT_EQ(QuantizeToInt8(-3.5f, 1.0f, 0), -4);
  EXPECT_EQ(QuantizeToInt8(-2.5f, 1.0f, 10), 8);         // rounding before the zero point
  EXPECT_EQ(QuantizeToInt8(std::nanf(""), 0.1f, 7), 0);  // NaN -> 0, not zp
  EXPECT_EQ(QuantizeToInt8(inf, 0.1f, -5), 127);
  EXPECT_EQ(QuantizeToInt8(-inf, 0.1f, 5), -128);
  EXPECT_EQ(QuantizeToInt8(-129.0f, 1.0f, 0), -128);
  EXPECT_EQ(QuantizeToInt8(120.0f, 1.0f, 20), 127);  // saturates after the zero point
  // The division is f32: 0.35f / 0.1f is 3.4999998882 in f64 (-> 3) but
  // rounds to the tie 3.5f in f32 (-> 4); 0.75f / 0.1f is 7.4999998882 in
  // f64 (-> 7) but 7.5f in f32 (-> 8). 1e30 / 1e-30 overflows to inf.
  EXPECT_EQ(QuantizeToInt8(0.35f, 0.1f, 0), 4);
  EXPECT_EQ(QuantizeToInt8(0.75f, 0.1f, 0), 8);
  EXPECT_EQ(QuantizeToInt8(1e30f, 1e-30f, 0), 127);
}

TEST(Quant, DequantizeInt8KnownVectors) {
  EXPECT_EQ(DequantizeInt8(-128, 0.5f, -1), -63.5f);
  EXPECT_EQ(DequantizeInt8(0, 0.5f, -1), 0.5f);
  EXPECT_EQ(DequantizeInt8(127, 0.5f, -1), 64.0f);
  EXPECT_EQ(DequantizeInt8(127, 0.1f, -128), 255 * 0.1f);  // one f32 multiply
  // Round trip: QUANTIZE(DEQUANTIZE(q)) == q for every int8.
  for (int v = -128; v <= 127; ++v) {
    const int8_t q = static_cast<int8_t>(v);
    EXPECT_EQ(QuantizeToInt8(DequantizeInt8(q, 0.037f, 5), 0.037f, 5), q) << v;
  }
}

TEST(Quant, QuantDescRoundTrip) {
  const QuantDesc d = MakeQuantDesc(0.125f, -3);
  EXPECT_EQ(QuantDescScale(d), 0.125f);
  EXPECT_EQ(d.zero_point, -3);
  EXPECT_EQ(sizeof(QuantDesc), 8u);
}

}  // namespace
}  // namespace tessera::systolic
