// The DSP kernels against hand-computed values and formulas (not against
// the cpu plugin: the end-to-end tests compare with it).
#include "plugins/mock_dsp/kernels/dsp_kernels.h"

#include <cmath>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DspTensor F32(std::vector<float>& v, std::vector<int64_t> shape) {
  return {TSR_DTYPE_F32, std::move(shape), reinterpret_cast<uint8_t*>(v.data())};
}

TEST(DspHalf, RoundsToNearestEvenAndSaturatesToInfinity) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);                // first value that rounds past the largest half
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);   // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);   // a tie rounds to even (zero)
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(FloatToHalf(0.1f), 0x2E66);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0xFC00), -INFINITY);
}

TEST(DspKernels, BroadcastingBinaryOps) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30}, y(6);
  DspTensor ins[] = {F32(a, {2, 3}), F32(b, {3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_ADD, {}, ins, {{F32(y, {2, 3})}}).ok());
  EXPECT_THAT(y, ElementsAre(11, 22, 33, 14, 25, 36));
  std::vector<float> wrong(4);
  absl::Status s = RunDspOp(TSR_OP_ADD, {}, ins, {{F32(wrong, {2, 2})}});
  EXPECT_THAT(s.message(), HasSubstr("output 0 shape [2,2] but the op produces [2,3]"));
}

// SUB, DIV and POW are not commutative: operand 0 is the left one, also
// when operand 0 is the broadcast one. Values by hand.
TEST(DspKernels, NonCommutativeBinaryOpsKeepTheirOperandOrder) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {2, 4, 8}, y(6);
  DspTensor ab[] = {F32(a, {2, 3}), F32(b, {3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_SUB, {}, ab, {{F32(y, {2, 3})}}).ok());
  EXPECT_THAT(y, ElementsAre(-1, -2, -5, 2, 1, -2));
  ASSERT_TRUE(RunDspOp(TSR_OP_DIV, {}, ab, {{F32(y, {2, 3})}}).ok());
  EXPECT_THAT(y, ElementsAre(0.5f, 0.5f, 0.375f, 2.0f, 1.25f, 0.75f));
  DspTensor ba[] = {F32(b, {3}), F32(a, {2, 3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_SUB, {}, ba, {{F32(y, {2, 3})}}).ok());
  EXPECT_THAT(y, ElementsAre(1, 2, 5, -2, -1, 2));
  std::vector<float> e = {2, 1, 0};
  DspTensor pw[] = {F32(a, {2, 3}), F32(e, {3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_POW, {}, pw, {{F32(y, {2, 3})}}).ok());
  EXPECT_THAT(y, ElementsAre(1, 2, 1, 16, 5, 1));
}

TEST(DspKernels, TranscendentalsMatchTheirFormulas) {
  std::vector<float> x = {-100.0f, -1.0f, 0.0f, 0.5f, 100.0f}, y(5);
  DspTensor in[] = {F32(x, {5})};
  ASSERT_TRUE(RunDspOp(TSR_OP_SIGMOID, {}, in, {{F32(y, {5})}}).ok());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], 1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))), 1e-7);
  ASSERT_TRUE(RunDspOp(TSR_OP_ERF, {}, in, {{F32(y, {5})}}).ok());
  EXPECT_NEAR(y[3], 0.5204998778130465, 1e-7);  // erf(0.5)
  EXPECT_EQ(y[0], -1.0f);
}

TEST(DspKernels, SoftmaxRowsSumToOne) {
  std::vector<float> x = {1, 2, 3, 1000, 1000, 1000}, y(6);
  DspTensor in[] = {F32(x, {2, 3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_SOFTMAX, {}, in, {{F32(y, {2, 3})}}).ok());
  const double d = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(y[0], std::exp(1.0) / d, 1e-7);
  EXPECT_NEAR(y[2], std::exp(3.0) / d, 1e-7);
  EXPECT_NEAR(y[4], 1.0 / 3.0, 1e-7);  // no overflow: the max is subtracted
}

TEST(DspKernels, LayerNormByHand) {
  // Row [1, 2, 3, 4]: mean 2.5, variance 1.25.
  std::vector<float> x = {1, 2, 3, 4}, scale = {1, 1, 2, 2}, bias = {0, 0, 0, 1}, y(4);
  DspTensor ins[] = {F32(x, {1, 4}), F32(scale, {4}), F32(bias, {4})};
  ASSERT_TRUE(RunDspOp(TSR_OP_LAYER_NORM, {{TSR_ATTR_EPSILON, {{}, {0.0f}}}}, ins, {{F32(y, {1, 4})}}).ok());
  const double s = 1.0 / std::sqrt(1.25);
  EXPECT_NEAR(y[0], -1.5 * s, 1e-6);
  EXPECT_NEAR(y[2], 2 * 0.5 * s, 1e-6);
  EXPECT_NEAR(y[3], 2 * 1.5 * s + 1, 1e-6);
}

TEST(DspKernels, ReductionsKeepOrDropDims) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y2(2), y3(3);
  DspTensor in[] = {F32(x, {2, 3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_REDUCE_MEAN, {{TSR_ATTR_AXES, {{1}, {}}}}, in, {{F32(y2, {2, 1})}}).ok());
  EXPECT_THAT(y2, ElementsAre(2, 5));
  ASSERT_TRUE(RunDspOp(TSR_OP_REDUCE_MAX, {{TSR_ATTR_AXES, {{0}, {}}}, {TSR_ATTR_KEEP_DIMS, {{0}, {}}}}, in,
                       {{F32(y3, {3})}}).ok());
  EXPECT_THAT(y3, ElementsAre(4, 5, 6));
  std::vector<float> all(1);
  ASSERT_TRUE(RunDspOp(TSR_OP_REDUCE_SUM, {}, in, {{F32(all, {1, 1})}}).ok());
  EXPECT_EQ(all[0], 21);
}

TEST(DspKernels, LayoutOps) {
  std::vector<float> x = {0, 1, 2, 3, 4, 5}, t(6), s(2), c(12), g(4);
  DspTensor in[] = {F32(x, {2, 3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_TRANSPOSE, {}, in, {{F32(t, {3, 2})}}).ok());
  EXPECT_THAT(t, ElementsAre(0, 3, 1, 4, 2, 5));
  // Row 1, columns from the end backwards in steps of 2: [5, 3].
  ASSERT_TRUE(RunDspOp(TSR_OP_SLICE, {{TSR_ATTR_STARTS, {{1, -1}, {}}}, {TSR_ATTR_ENDS, {{2, INT64_MIN}, {}}},
                                      {TSR_ATTR_STEPS, {{1, -2}, {}}}},
                       in, {{F32(s, {1, 2})}}).ok());
  EXPECT_THAT(s, ElementsAre(5, 3));
  DspTensor two[] = {F32(x, {2, 3}), F32(x, {2, 3})};
  ASSERT_TRUE(RunDspOp(TSR_OP_CONCAT, {{TSR_ATTR_AXIS, {{-1}, {}}}}, two, {{F32(c, {2, 6})}}).ok());
  EXPECT_THAT(c, ElementsAre(0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5));
  std::vector<int64_t> idx = {-1, 0};
  DspTensor gin[] = {F32(x, {2, 3}), {TSR_DTYPE_I64, {2}, reinterpret_cast<uint8_t*>(idx.data())}};
  ASSERT_TRUE(RunDspOp(TSR_OP_GATHER, {{TSR_ATTR_AXIS, {{1}, {}}}}, gin, {{F32(g, {2, 2})}}).ok());
  EXPECT_THAT(g, ElementsAre(2, 0, 5, 3));
  idx[0] = 3;
  EXPECT_THAT(RunDspOp(TSR_OP_GATHER, {{TSR_ATTR_AXIS, {{1}, {}}}}, gin, {{F32(g, {2, 2})}}).message(),
              HasSubstr("out of range"));
}

TEST(DspKernels, EmptyAxesAndMissingInputsAreHandled) {
  std::vector<float> none, out;
  DspTensor empty[] = {F32(none, {0, 3})};
  // A reversed slice of an empty axis takes nothing.
  EXPECT_TRUE(RunDspOp(TSR_OP_SLICE, {{TSR_ATTR_STARTS, {{-1}, {}}}, {TSR_ATTR_ENDS, {{INT64_MIN}, {}}},
                                      {TSR_ATTR_STEPS, {{-1}, {}}}},
                       empty, {{F32(out, {0, 3})}}).ok());
  std::vector<float> x = {1, 2};
  DspTensor missing[] = {F32(x, {2}), DspTensor{}};
  EXPECT_THAT(RunDspOp(TSR_OP_CONCAT, {}, missing, {{F32(x, {2})}}).message(), HasSubstr("an input is missing"));
}

TEST(DspKernels, SelectAndComparisons) {
  std::vector<float> a = {1, 5, 3}, b = {2}, y(3);
  uint8_t less[3] = {9, 9, 9};
  DspTensor ins[] = {F32(a, {3}), F32(b, {1})};
  ASSERT_TRUE(RunDspOp(TSR_OP_LESS, {}, ins, {{{TSR_DTYPE_BOOL, {3}, less}}}).ok());
  EXPECT_THAT(less, ElementsAre(1, 0, 0));
  DspTensor sel[] = {{TSR_DTYPE_BOOL, {3}, less}, F32(a, {3}), F32(b, {1})};
  ASSERT_TRUE(RunDspOp(TSR_OP_SELECT, {}, sel, {{F32(y, {3})}}).ok());
  EXPECT_THAT(y, ElementsAre(1, 2, 2));
}

TEST(DspKernels, F16IsRoundedOnceOnStore) {
  // 1/3 in f16 is 0x3555 (0.33325); exp(log(x)) of it comes back exactly.
  uint16_t x = 0x3555, y = 0;
  DspTensor in[] = {{TSR_DTYPE_F16, {1}, reinterpret_cast<uint8_t*>(&x)}};
  ASSERT_TRUE(RunDspOp(TSR_OP_SQRT, {}, in, {{{TSR_DTYPE_F16, {1}, reinterpret_cast<uint8_t*>(&y)}}}).ok());
  EXPECT_EQ(y, FloatToHalf(std::sqrt(0.333251953125f)));
  EXPECT_NEAR(HalfToFloat(y), std::sqrt(0.333251953125), 0.57735 * 9.765625e-4);
}

}  // namespace
}  // namespace tessera::mock_dsp
