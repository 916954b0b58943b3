// The independent requantization reference of reference_requant.h, pinned
// by hand vectors (worked from docs/systolic_npu_isa.md §9 in the
// comments), then quant.h's requantizer checked against it: every rounding
// tie of a few multipliers, the saturation and clamp edges, and random
// accumulators.
#include "plugins/systolic_npu/machine/reference_requant.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/quant.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

constexpr int64_t k2_30 = int64_t{1} << 30;

int RefOut(int32_t acc, double m, int32_t zp, int32_t lo = -128, int32_t hi = 127) {
  return RefRequantize(acc, RefQuantizeMultiplier(m), zp, lo, hi);
}

TEST(ReferenceRequant, MultiplierByHand) {
  // 0.5 = 0.5 * 2^0 -> q31 = 2^30; 0.25 = 0.5 * 2^-1; 1.0 = 0.5 * 2^1;
  // 0.75 * 2^31 = 1610612736.
  EXPECT_EQ(RefQuantizeMultiplier(0.5).q31, k2_30);
  EXPECT_EQ(RefQuantizeMultiplier(0.5).shift, 0);
  EXPECT_EQ(RefQuantizeMultiplier(0.25).shift, -1);
  EXPECT_EQ(RefQuantizeMultiplier(1.0).shift, 1);
  EXPECT_EQ(RefQuantizeMultiplier(0.75).q31, 1610612736);
  // Just under 1: q * 2^31 rounds to 2^31, renormalized to (2^30, 1).
  const RefMultiplier under = RefQuantizeMultiplier(std::nextafter(1.0, 0.0));
  EXPECT_EQ(under.q31, k2_30);
  EXPECT_EQ(under.shift, 1);
  // 2^-32 = 0.5 * 2^-31 is the smallest kept; 2^-33 has shift -32: zero.
  EXPECT_EQ(RefQuantizeMultiplier(std::ldexp(1.0, -32)).shift, -31);
  EXPECT_EQ(RefQuantizeMultiplier(std::ldexp(1.0, -33)).q31, 0);
  EXPECT_EQ(RefQuantizeMultiplier(0.0).q31, 0);
}

// M = 0.25 (q31 2^30, shift -1): h = acc / 2 rounded half up, then h / 2
// rounded half away from zero.
TEST(ReferenceRequant, TiesByHand) {
  EXPECT_EQ(RefOut(10, 0.25, 0), 3);    // 2.5: h = 5, 5/2 -> 3
  EXPECT_EQ(RefOut(-10, 0.25, 0), -3);  // -2.5: h = -5, -5/2 -> -3
  EXPECT_EQ(RefOut(6, 0.25, 0), 2);     // 1.5
  EXPECT_EQ(RefOut(-6, 0.25, 0), -2);   // -1.5
  EXPECT_EQ(RefOut(2, 0.25, 0), 1);     // 0.5
  EXPECT_EQ(RefOut(-2, 0.25, 0), -1);   // -0.5
  // Two roundings: 1.25 -> h = 2.5 -> 3 -> 1.5 -> 2; -1.25 -> h = -2.5
  // -> -2 (half up) -> -1.
  EXPECT_EQ(RefOut(5, 0.25, 0), 2);
  EXPECT_EQ(RefOut(-5, 0.25, 0), -1);
  // M = 0.5 (shift 0): the high multiply alone, half up: 2.5 -> 3,
  // -2.5 -> -2, -1.5 -> -1; the zero point after.
  EXPECT_EQ(RefOut(5, 0.5, 1), 4);
  EXPECT_EQ(RefOut(-5, 0.5, 1), -1);
  EXPECT_EQ(RefOut(-3, 0.5, 0), -1);
  // M = 1.0 (2^30, shift 1): acc * 2, then halved exactly.
  EXPECT_EQ(RefOut(-7, 1.0, 0), -7);
  // M = 0.375 = 0.75 * 2^-1: 12 * 0.375 = 4.5 -> 5; -4.5 -> -5.
  EXPECT_EQ(RefOut(12, 0.375, 0), 5);
  EXPECT_EQ(RefOut(-12, 0.375, 0), -5);
}

TEST(ReferenceRequant, SaturationAndClampByHand) {
  // M = 0.5, zp 3: 248 -> 124 + 3 = 127 (the limit), 250 -> 128 -> 127;
  // -262 -> -131 + 3 = -128, -264 -> -129 -> -128.
  EXPECT_EQ(RefOut(248, 0.5, 3), 127);
  EXPECT_EQ(RefOut(246, 0.5, 3), 126);
  EXPECT_EQ(RefOut(250, 0.5, 3), 127);
  EXPECT_EQ(RefOut(-262, 0.5, 3), -128);
  EXPECT_EQ(RefOut(-260, 0.5, 3), -127);
  EXPECT_EQ(RefOut(-264, 0.5, 3), -128);
  // Activation bounds [-5, 7] with M = 1: at each bound and one past.
  EXPECT_EQ(RefOut(-6, 1.0, 0, -5, 7), -5);
  EXPECT_EQ(RefOut(-5, 1.0, 0, -5, 7), -5);
  EXPECT_EQ(RefOut(-4, 1.0, 0, -5, 7), -4);
  EXPECT_EQ(RefOut(7, 1.0, 0, -5, 7), 7);
  EXPECT_EQ(RefOut(8, 1.0, 0, -5, 7), 7);
  EXPECT_EQ(RefOut(6, 1.0, 0, -5, 7), 6);
}

TEST(ReferenceRequant, ActivationRangeByHand) {
  RefRange r = RefActivationRange(Activation::kRelu, 0, 0, 0.1f, -5);
  EXPECT_EQ(r.min, -5);
  EXPECT_EQ(r.max, 127);
  r = RefActivationRange(Activation::kRelu, 0, 0, 0.1f, -128);
  EXPECT_EQ(r.min, -128);
  // CLIP(0.25, 1.25) at scale 0.5: 0.5 -> 1, 2.5 -> 3 (half away), + zp 2.
  r = RefActivationRange(Activation::kClip, 0.25f, 1.25f, 0.5f, 2);
  EXPECT_EQ(r.min, 3);
  EXPECT_EQ(r.max, 5);
  r = RefActivationRange(Activation::kClip, -1.25f, -0.25f, 0.5f, 0);
  EXPECT_EQ(r.min, -3);                                            // -2.5
  EXPECT_EQ(r.max, -1);                                            // -0.5
  r = RefActivationRange(Activation::kClip, 1.0f, 0.5f, 0.1f, 0);  // empty: the upper bound
  EXPECT_EQ(r.min, 5);
  EXPECT_EQ(r.max, 5);
  r = RefActivationRange(Activation::kClip, -std::numeric_limits<float>::infinity(), 100.0f, 0.1f, 0);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);  // 1000 saturates
}

::testing::AssertionResult SameAsReference(int32_t acc, double m, int32_t zp, int32_t lo, int32_t hi) {
  const QuantizedMultiplier q = QuantizeMultiplier(m);
  const RefMultiplier r = RefQuantizeMultiplier(m);
  const int got = RequantizeOne(acc, q.multiplier, q.shift, zp, lo, hi);
  const int want = RefRequantize(acc, r, zp, lo, hi);
  if (q.multiplier == r.q31 && q.shift == r.shift && got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "acc=" << acc << " M=" << m << " zp=" << zp << " [" << lo << ", " << hi
                                       << "]: multiplier (" << q.multiplier << ", " << q.shift << ") want (" << r.q31
                                       << ", " << r.shift << "), result " << got << " want " << want;
}

// quant.h against the reference: every accumulator around each tie of
// multipliers 2^-k (exact ties at both roundings) and 3 * 2^-k, with zero
// points and activation bounds that put the clamp edges in range.
TEST(ReferenceRequant, QuantRequantizerMatchesAtEveryTie) {
  for (int k = 1; k <= 8; ++k)
    for (double base : {1.0, 0.75, 0.625}) {
      const double m = std::ldexp(base, -k);
      for (int32_t zp : {-3, 0, 5})
        for (int32_t acc = -300 * (1 << k) / 4; acc <= 300 * (1 << k) / 4; ++acc)
          ASSERT_TRUE(SameAsReference(acc, m, zp, -128, 127));
    }
  for (int32_t acc = -40; acc <= 40; ++acc) ASSERT_TRUE(SameAsReference(acc, 1.0, 2, -9, 11));
  // Just under a power of two the mantissa rounds up to 2^31 and is
  // renormalized: the multiplier is the power of two's.
  for (int k = 0; k <= 8; ++k)
    for (int32_t acc = -1000; acc <= 1000; acc += 7)
      ASSERT_TRUE(SameAsReference(acc, std::nextafter(std::ldexp(1.0, -k), 0.0), 0, -128, 127));
}

TEST(ReferenceRequant, QuantRequantizerMatchesOnRandomAccumulators) {
  std::mt19937 rng(18);
  for (int i = 0; i < 20000; ++i) {
    const double m = std::ldexp(0.5 + (rng() % 1000000) / 2e6, -static_cast<int>(rng() % 24));
    const int32_t acc = static_cast<int32_t>(rng() % 4000001) - 2000000;
    const int32_t zp = static_cast<int32_t>(rng() % 256) - 128;
    const int32_t lo = static_cast<int32_t>(rng() % 128) - 128;
    ASSERT_TRUE(SameAsReference(acc, m, zp, lo, lo + static_cast<int32_t>(rng() % (128 - lo))));
  }
}

TEST(ReferenceRequant, QuantActivationRangeMatches) {
  std::mt19937 rng(19);
  for (int i = 0; i < 5000; ++i) {
    const Activation kind = static_cast<Activation>(rng() % 3);
    const float lo = static_cast<float>(static_cast<int>(rng() % 81) - 40) / 8;
    const float hi = static_cast<float>(static_cast<int>(rng() % 81) - 40) / 8;
    const float s = 0.25f * (1 + rng() % 4) / 4;  // ties at multiples of 1/16
    const int32_t zp = static_cast<int32_t>(rng() % 256) - 128;
    const QuantRange q = QuantizedActivationRange(kind, lo, hi, s, zp);
    const RefRange r = RefActivationRange(kind, lo, hi, s, zp);
    ASSERT_EQ(q.min, r.min) << lo << " " << hi << " " << s << " " << zp;
    ASSERT_EQ(q.max, r.max) << lo << " " << hi << " " << s << " " << zp;
  }
}

}  // namespace
}  // namespace tessera::systolic
