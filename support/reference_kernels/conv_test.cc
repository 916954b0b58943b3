#include <gtest/gtest.h>

#include <random>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

V Iota(int n, double start = 0) {
  V v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

Attributes ConvAttrs(std::vector<int64_t> pads, std::vector<int64_t> strides = {1, 1},
                     std::vector<int64_t> dilations = {1, 1}, int64_t groups = 1) {
  Attributes a;
  a.SetInts(TSR_ATTR_PADS, pads);
  a.SetInts(TSR_ATTR_STRIDES, strides);
  a.SetInts(TSR_ATTR_DILATIONS, dilations);
  a.SetInts(TSR_ATTR_GROUPS, {groups});
  return a;
}

TEST(Conv2DTest, OnnxBasicConv) {
  // ONNX test_basic_conv_with_padding / without_padding.
  Tensor x = F32({1, 1, 5, 5}, Iota(25)), w = F32({1, 1, 3, 3}, V(9, 1.0));
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 5, 5});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 1, 1, 1}), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                          117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84}));
  Tensor y3 = Empty(TSR_DTYPE_F32, {1, 1, 3, 3});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, Attrs(), {x, w}, y3).ok());
  EXPECT_EQ(Values(y3), (V{54, 63, 72, 99, 108, 117, 144, 153, 162}));
}

TEST(Conv2DTest, OnnxStridesPadding) {
  // ONNX test_conv_with_strides_padding: X 7x5, W 3x3 ones, strides 2, pads 1.
  Tensor x = F32({1, 1, 7, 5}, Iota(35)), w = F32({1, 1, 3, 3}, V(9, 1.0));
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 4, 3});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 1, 1, 1}, {2, 2}), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{12, 27, 24, 63, 108, 81, 123, 198, 141, 112, 177, 124}));
  // Asymmetric pads: ONNX test_conv_with_strides_and_asymmetric_padding
  // (pads [1, 0, 1, 0]) -> 4x2.
  Tensor y2 = Empty(TSR_DTYPE_F32, {1, 1, 4, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 0, 1, 0}, {2, 2}), {x, w}, y2).ok());
  EXPECT_EQ(Values(y2), (V{21, 33, 99, 117, 189, 207, 171, 183}));
}

TEST(Conv2DTest, LeftAndRightPadsAreNotInterchangeable) {
  // X = [1, 2, 3], W = [1, 10], pads [top 0, left 1, bottom 0, right 0]:
  // the padded row is [0, 1, 2, 3], OW = 4 - 2 + 1 = 3, by hand:
  //   0*1 + 1*10 = 10,  1*1 + 2*10 = 21,  2*1 + 3*10 = 32.
  Tensor x = F32({1, 1, 1, 3}, {1, 2, 3}), w = F32({1, 1, 1, 2}, {1, 10});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 1, 3});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({0, 1, 0, 0}), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{10, 21, 32}));
  // pads right 1: [1, 2, 3, 0] -> 21, 32, 3.
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({0, 0, 0, 1}), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{21, 32, 3}));
  // The same along H: pads top 1 on a 3 x 1 column, then bottom 1.
  Tensor xc = F32({1, 1, 3, 1}, {1, 2, 3}), wc = F32({1, 1, 2, 1}, {1, 10});
  Tensor yc = Empty(TSR_DTYPE_F32, {1, 1, 3, 1});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 0, 0, 0}), {xc, wc}, yc).ok());
  EXPECT_EQ(Values(yc), (V{10, 21, 32}));
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({0, 0, 1, 0}), {xc, wc}, yc).ok());
  EXPECT_EQ(Values(yc), (V{21, 32, 3}));
  // All four different on a 2 x 2 input (pads t1 l2 b0 r1, 2 x 2 ones):
  // padded 3 x 5 = [0 0 0 0 0; 0 0 a b 0; 0 0 c d 0], OH = 2, OW = 4;
  // each output sums a 2 x 2 window of it.
  Tensor x4 = F32({1, 1, 2, 2}, {1, 2, 3, 4}), w4 = F32({1, 1, 2, 2}, V(4, 1.0));
  Tensor y4 = Empty(TSR_DTYPE_F32, {1, 1, 2, 4});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 2, 0, 1}), {x4, w4}, y4).ok());
  EXPECT_EQ(Values(y4), (V{0, 1, 3, 2, 0, 4, 10, 6}));
}

TEST(Conv2DTest, DilationBiasRelu) {
  Tensor x = F32({1, 1, 4, 4}, Iota(16)), w = F32({1, 1, 2, 2}, V(4, 1.0));
  Tensor b = F32({1}, {-30});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  Attributes a = ConvAttrs({0, 0, 0, 0}, {1, 1}, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, a, {x, w, b}, y).ok());
  EXPECT_EQ(Values(y), (V{-10, -6, 6, 10}));  // {20,24,36,40} - 30
  a.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, a, {x, w, b}, y).ok());
  EXPECT_EQ(Values(y), (V{0, 0, 6, 10}));
}

TEST(Conv2DTest, DepthwiseEqualsPerChannelConv) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> d(-1, 1);
  const int C = 3;
  V xv(2 * C * 5 * 6), wv(C * 3 * 3);
  for (double& v : xv) v = d(rng);
  for (double& v : wv) v = d(rng);
  Tensor x = F32({2, C, 5, 6}, xv), w = F32({C, 1, 3, 3}, wv);
  Tensor y = Empty(TSR_DTYPE_F32, {2, C, 2, 3});  // H: (5+1-3)/2+1, W: (6+1-3)/2+1
  Attributes a = ConvAttrs({1, 0, 0, 1}, {2, 2}, {1, 1}, C);
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, a, {x, w}, y).ok());
  const V got = Values(y);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < C; ++c) {
      Tensor xc = F32({1, 1, 5, 6}, V(xv.begin() + (n * C + c) * 30, xv.begin() + (n * C + c + 1) * 30));
      Tensor wc = F32({1, 1, 3, 3}, V(wv.begin() + c * 9, wv.begin() + (c + 1) * 9));
      Tensor yc = Empty(TSR_DTYPE_F32, {1, 1, 2, 3});
      ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 0, 0, 1}, {2, 2}), {xc, wc}, yc).ok());
      const V want = Values(yc);
      for (int i = 0; i < 6; ++i) EXPECT_EQ(got[(n * C + c) * 6 + i], want[i]);
    }
}

TEST(Conv2DTest, GroupedEqualsSplitConv) {
  // groups=2 with C=4, M=2: each output channel sees its own 2 channels.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> d(-1, 1);
  V xv(4 * 3 * 3), wv(2 * 2 * 2 * 2);
  for (double& v : xv) v = d(rng);
  for (double& v : wv) v = d(rng);
  Tensor x = F32({1, 4, 3, 3}, xv), w = F32({2, 2, 2, 2}, wv);
  Tensor y = Empty(TSR_DTYPE_F32, {1, 2, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({0, 0, 0, 0}, {1, 1}, {1, 1}, 2), {x, w}, y).ok());
  for (int g = 0; g < 2; ++g) {
    Tensor xg = F32({1, 2, 3, 3}, V(xv.begin() + g * 18, xv.begin() + (g + 1) * 18));
    Tensor wg = F32({1, 2, 2, 2}, V(wv.begin() + g * 8, wv.begin() + (g + 1) * 8));
    Tensor yg = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
    ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, Attrs(), {xg, wg}, yg).ok());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(Values(y)[g * 4 + i], Values(yg)[i]);
  }
}

TEST(Conv2DTest, Errors) {
  Tensor x = F32({1, 2, 3, 3}, V(18, 1.0)), w = F32({1, 1, 2, 2}, V(4, 1.0));
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  EXPECT_EQ(RunOp(TSR_OP_CONV_2D, Attrs(), {x, w}, y).code(),
            absl::StatusCode::kInvalidArgument);  // C/groups mismatch
  Tensor x1 = F32({1, 1, 3, 3}, V(9, 1.0)), ybad = Empty(TSR_DTYPE_F32, {1, 1, 3, 3});
  EXPECT_EQ(RunOp(TSR_OP_CONV_2D, Attrs(), {x1, w}, ybad).code(),
            absl::StatusCode::kInvalidArgument);  // wrong output shape
  Attributes bad;
  bad.SetInts(TSR_ATTR_STRIDES, {0, 1});
  EXPECT_EQ(RunOp(TSR_OP_CONV_2D, bad, {x1, w}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor wbig = F32({1, 1, 4, 4}, V(16, 1.0));
  EXPECT_EQ(RunOp(TSR_OP_CONV_2D, Attrs(), {x1, wbig}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor bias2 = F32({2}, {0, 0});
  EXPECT_EQ(RunOp(TSR_OP_CONV_2D, Attrs(), {x1, w, bias2}, y).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Conv2DTest, QuantizedPerChannel) {
  Tensor x = WithQuant(I8({1, 1, 2, 2}, {1, 2, 3, 4}), {1.0f}, {0});
  Tensor w = WithQuant(I8({2, 1, 1, 1}, {2, -3}), {0.5f, 0.25f}, {0, 0}, 0);
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 2, 2, 2}), {1.0f}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, Attrs(), {x, w}, y).ok());
  // Channel 0: 2x * 0.5 = x. Channel 1: -3x * 0.25 = {-0.75, -1.5, -2.25, -3}
  // through SRDHM + RoundingDivideByPOT = {-1, -2, -2, -3}.
  EXPECT_EQ(Ints(y), (IV{1, 2, 3, 4, -1, -2, -2, -3}));
}

TEST(Conv2DTest, QuantizedPaddingIsRealZero) {
  // Padding contributes (x_zp - x_zp) = 0, not the raw value 0.
  Tensor x = WithQuant(U8({1, 1, 1, 1}, {130}), {1.0f}, {128});
  Tensor w = WithQuant(I8({1, 1, 3, 3}, V(9, 1.0)), {1.0f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 1, 1, 1}), {1.0f}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, ConvAttrs({1, 1, 1, 1}), {x, w}, y).ok());
  EXPECT_EQ(Ints(y), (IV{2}));
}

TEST(Conv2DTest, QuantizedBiasAndSaturation) {
  Tensor x = WithQuant(I8({1, 1, 1, 2}, {100, 100}), {0.5f}, {0});
  Tensor w = WithQuant(I8({1, 1, 1, 2}, {100, 100}), {0.5f}, {0});
  Tensor b = I32({1}, {-19990});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 1, 1, 1}), {1.0f}, {5});
  // acc = 20000 - 19990 = 10; M = 0.25 -> round(2.5) = 3 (away); + 5 = 8.
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, Attrs(), {x, w, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{8}));
  Tensor nob = I32({1}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_2D, Attrs(), {x, w, nob}, y).ok());
  EXPECT_EQ(Ints(y), (IV{127}));  // 5000 + 5 saturates
}

}  // namespace
}  // namespace tessera::cpu
