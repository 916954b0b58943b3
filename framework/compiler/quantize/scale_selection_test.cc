#include "framework/compiler/quantize/scale_selection.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::quantize {
namespace {

// Real value that an int8 code represents.
double Real(int8_t q, const ActivationParams& p) { return p.scale * (static_cast<double>(q) - p.zero_point); }

TEST(ActivationParams, SpansTheRangeWithZeroExact) {
  absl::StatusOr<ActivationParams> p = ChooseActivationParams(-1.0f, 3.0f);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FLOAT_EQ(p->scale, 4.0f / 255.0f);
  EXPECT_EQ(p->zero_point, -128 + 64);  // round(-128 + 1 / (4/255)) = round(-64.25)
  EXPECT_EQ(Real(QuantizeValue(0.0f, *p), *p), 0.0);
  EXPECT_NEAR(Real(QuantizeValue(-1.0f, *p), *p), -1.0, p->scale);
  EXPECT_NEAR(Real(QuantizeValue(3.0f, *p), *p), 3.0, p->scale);
}

TEST(ActivationParams, AllZeroTensorGetsASafeScale) {
  absl::StatusOr<ActivationParams> p = ChooseActivationParams(0.0f, 0.0f);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(p->scale, 0.0f);
  EXPECT_TRUE(std::isnormal(p->scale));
  EXPECT_EQ(Real(QuantizeValue(0.0f, *p), *p), 0.0);
}

TEST(ActivationParams, ConstantPositiveTensorIsWidenedToZero) {
  absl::StatusOr<ActivationParams> p = ChooseActivationParams(2.5f, 2.5f);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FLOAT_EQ(p->scale, 2.5f / 255.0f);
  EXPECT_EQ(p->zero_point, -128);
  EXPECT_NEAR(Real(QuantizeValue(2.5f, *p), *p), 2.5, 1e-6);
}

TEST(ActivationParams, NegativeOnlyRangeHasTheTopZeroPoint) {
  absl::StatusOr<ActivationParams> p = ChooseActivationParams(-3.0f, -1.0f);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FLOAT_EQ(p->scale, 3.0f / 255.0f);
  EXPECT_EQ(p->zero_point, 127);
  EXPECT_EQ(QuantizeValue(-3.0f, *p), -128);
  EXPECT_NEAR(Real(QuantizeValue(-1.0f, *p), *p), -1.0, p->scale / 2);
}

TEST(ActivationParams, TinyRangeFallsBackToTheSafeScale) {
  absl::StatusOr<ActivationParams> p = ChooseActivationParams(0.0f, std::numeric_limits<float>::denorm_min());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->scale, 1.0f);
  EXPECT_EQ(p->zero_point, 0);
}

TEST(ActivationParams, NonFiniteOrEmptyRangesAreErrors) {
  EXPECT_FALSE(ChooseActivationParams(0.0f, std::numeric_limits<float>::infinity()).ok());
  EXPECT_FALSE(ChooseActivationParams(std::nanf(""), 1.0f).ok());
  EXPECT_FALSE(ChooseActivationParams(2.0f, 1.0f).ok());
}

TEST(QuantizeValue, RoundsHalfToEvenAndSaturates) {
  const ActivationParams p{1.0f, 0};
  EXPECT_EQ(QuantizeValue(2.5f, p), 2);
  EXPECT_EQ(QuantizeValue(3.5f, p), 4);
  EXPECT_EQ(QuantizeValue(-2.5f, p), -2);
  EXPECT_EQ(QuantizeValue(1000.0f, p), 127);
  EXPECT_EQ(QuantizeValue(-1000.0f, p), -128);
}

TEST(WeightsPerChannel, SymmetricScalePerOutputChannel) {
  // W [2, 3]: channel 0 max |w| = 2, channel 1 max |w| = 0.5 (no ties).
  const std::vector<float> w = {1.5f, -2.0f, 0.5f, 0.2f, 0.5f, -0.5f};
  absl::StatusOr<PerChannelWeights> q = QuantizeWeightsPerChannel(w, {2, 3}, 0);
  ASSERT_TRUE(q.ok()) << q.status();
  ASSERT_EQ(q->scales.size(), 2u);
  EXPECT_FLOAT_EQ(q->scales[0], 2.0f / 127.0f);
  EXPECT_FLOAT_EQ(q->scales[1], 0.5f / 127.0f);
  EXPECT_THAT(q->values, ::testing::ElementsAre(95, -127, 32, 51, 127, -127));
}

TEST(WeightsPerChannel, LastAxisForMatMul) {
  // B [2, 2], channels along axis 1: column 0 = {4, -1}, column 1 = {0, 0}.
  const std::vector<float> b = {4.0f, 0.0f, -1.0f, 0.0f};
  absl::StatusOr<PerChannelWeights> q = QuantizeWeightsPerChannel(b, {2, 2}, 1);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_FLOAT_EQ(q->scales[0], 4.0f / 127.0f);
  EXPECT_EQ(q->scales[1], 1.0f);  // all-zero channel: safe scale
  EXPECT_THAT(q->values, ::testing::ElementsAre(127, 0, -32, 0));
}

TEST(WeightsPerChannel, RejectsNonFiniteWeightsAndBadAxes) {
  EXPECT_FALSE(QuantizeWeightsPerChannel(std::vector<float>{1.0f, std::nanf("")}, {2}, 0).ok());
  EXPECT_FALSE(QuantizeWeightsPerChannel(std::vector<float>{1.0f, 2.0f}, {2}, 1).ok());
  EXPECT_FALSE(QuantizeWeightsPerChannel(std::vector<float>{1.0f, 2.0f}, {3}, 0).ok());
}

TEST(Bias, Int32AtInputTimesWeightScale) {
  const std::vector<float> bias = {1.0f, -0.5f};
  const std::vector<float> w_scales = {0.5f, 0.25f};
  absl::StatusOr<std::vector<int32_t>> q = QuantizeBias(bias, 0.01f, w_scales);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(*q, ::testing::ElementsAre(200, -200));
  EXPECT_FALSE(
      QuantizeBias(std::vector<float>{std::numeric_limits<float>::infinity()}, 1.0f, std::vector<float>{1.0f}).ok());
  EXPECT_FALSE(QuantizeBias(bias, 1.0f, std::vector<float>{1.0f, 1.0f, 1.0f}).ok());
}

// bias / (x_scale · w_scale) beyond int32 (or beyond the headroom the
// accumulator needs) is an error, not a saturated, wrong bias.
TEST(Bias, BeyondInt32OrTheHeadroomIsAnError) {
  const std::vector<float> bias = {0.5f};
  absl::StatusOr<std::vector<int32_t>> q = QuantizeBias(bias, 0.01f, std::vector<float>{1e-10f});
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(), ::testing::HasSubstr("bias 0"));
  EXPECT_FALSE(QuantizeBias(std::vector<float>{-0.5f}, 0.01f, std::vector<float>{1e-10f}).ok());
  // 0.5 / (0.01 · 0.5) = 100: fits int32, not a headroom of 99.
  ASSERT_TRUE(QuantizeBias(bias, 0.01f, std::vector<float>{0.5f}).ok());
  EXPECT_FALSE(QuantizeBias(bias, 0.01f, std::vector<float>{0.5f}, 99).ok());
  EXPECT_TRUE(QuantizeBias(bias, 0.01f, std::vector<float>{0.5f}, 100).ok());
}

}  // namespace
}  // namespace tessera::quantize
