#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

V RunF32(int32_t op, V in, Attributes attrs = Attributes()) {
  Tensor x = F32({static_cast<int64_t>(in.size())}, in);
  Tensor y = Empty(TSR_DTYPE_F32, x.ref.shape);
  absl::Status s = RunOp(op, attrs, {x}, y);
  EXPECT_TRUE(s.ok()) << s;
  return Values(y);
}

void ExpectNear(const V& got, const V& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(UnaryTest, FloatOps) {
  EXPECT_EQ(RunF32(TSR_OP_NEG, {1, -2}), (V{-1, 2}));
  EXPECT_EQ(RunF32(TSR_OP_ABS, {-1.5, 2}), (V{1.5, 2}));
  ExpectNear(RunF32(TSR_OP_SQRT, {4, 2}), {2, 1.41421356});
  ExpectNear(RunF32(TSR_OP_RSQRT, {4, 0.25}), {0.5, 2});
  ExpectNear(RunF32(TSR_OP_EXP, {0, 1}), {1, 2.71828183});
  ExpectNear(RunF32(TSR_OP_LOG, {1, 2.71828183}), {0, 1});
  ExpectNear(RunF32(TSR_OP_SIN, {0, M_PI / 2}), {0, 1});
  ExpectNear(RunF32(TSR_OP_COS, {0, M_PI}), {1, -1});
  ExpectNear(RunF32(TSR_OP_TANH, {0, 1}), {0, 0.76159416});
  ExpectNear(RunF32(TSR_OP_SIGMOID, {0, 2, -2, -1000, 1000}), {0.5, 0.88079708, 0.11920292, 0, 1});
  EXPECT_EQ(RunF32(TSR_OP_RELU, {-1, 0, 3}), (V{0, 0, 3}));
  ExpectNear(RunF32(TSR_OP_ERF, {0, 1, -0.5}), {0, 0.84270079, -0.52049988});
  EXPECT_TRUE(std::isnan(RunF32(TSR_OP_SQRT, {-1})[0]));
  EXPECT_TRUE(std::isnan(RunF32(TSR_OP_RELU, {std::nan("")})[0]));
}

TEST(UnaryTest, F16RoundsOnce) {
  Tensor x = F16({1}, {1}), y = Empty(TSR_DTYPE_F16, {1});
  ASSERT_TRUE(RunOp(TSR_OP_EXP, Attrs(), {x}, y).ok());
  EXPECT_EQ(Values(y)[0], 2.71875);  // nearest half to e
}

TEST(UnaryTest, IntegerOps) {
  Tensor x = I8({3}, {-128, -5, 7}), y = Empty(TSR_DTYPE_I8, {3});
  ASSERT_TRUE(RunOp(TSR_OP_NEG, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-128, 5, -7}));  // wraps
  ASSERT_TRUE(RunOp(TSR_OP_ABS, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-128, 5, 7}));
  ASSERT_TRUE(RunOp(TSR_OP_RELU, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 0, 7}));
  Tensor x64 = I64({2}, {-3, 4}), y64 = Empty(TSR_DTYPE_I64, {2});
  ASSERT_TRUE(RunOp(TSR_OP_NEG, Attrs(), {x64}, y64).ok());
  EXPECT_EQ(Ints(y64), (IV{3, -4}));
}

TEST(UnaryTest, UnsupportedDType) {
  Tensor x = I32({1}, {1}), y = Empty(TSR_DTYPE_I32, {1});
  absl::Status s = RunOp(TSR_OP_SIN, Attrs(), {x}, y);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "SIN: dtype i32 unsupported");
  Tensor u = U8({1}, {1}), yu = Empty(TSR_DTYPE_U8, {1});
  EXPECT_EQ(RunOp(TSR_OP_NEG, Attrs(), {u}, yu).code(), absl::StatusCode::kUnimplemented);
  Tensor f = F32({1}, {1}), wrong = Empty(TSR_DTYPE_F16, {1});
  EXPECT_EQ(RunOp(TSR_OP_EXP, Attrs(), {f}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ClipTest, FloatBounds) {
  Attributes a;
  a.SetFloats(TSR_ATTR_CLIP_MIN, {-1});
  a.SetFloats(TSR_ATTR_CLIP_MAX, {2});
  V r = RunF32(TSR_OP_CLIP, {-3, 0.5, 5, std::nan("")}, a);
  EXPECT_EQ(r[0], -1);
  EXPECT_EQ(r[1], 0.5);
  EXPECT_EQ(r[2], 2);
  EXPECT_TRUE(std::isnan(r[3]));
  Attributes only_max;
  only_max.SetFloats(TSR_ATTR_CLIP_MAX, {0});
  EXPECT_EQ(RunF32(TSR_OP_CLIP, {-1e30, 3}, only_max), (V{-1e30f, 0}));
  EXPECT_EQ(RunF32(TSR_OP_CLIP, {-1e30, 3}), (V{-1e30f, 3}));  // no bounds
}

TEST(ClipTest, IntegerBoundsRoundInward) {
  Attributes a;
  a.SetFloats(TSR_ATTR_CLIP_MIN, {-1.5});
  a.SetFloats(TSR_ATTR_CLIP_MAX, {2.5});
  Tensor x = I8({5}, {-128, -1, 0, 2, 127}), y = Empty(TSR_DTYPE_I8, {5});
  ASSERT_TRUE(RunOp(TSR_OP_CLIP, a, {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-1, -1, 0, 2, 2}));
  Attributes wide;
  wide.SetFloats(TSR_ATTR_CLIP_MIN, {-5});
  wide.SetFloats(TSR_ATTR_CLIP_MAX, {300});
  Tensor u = U8({3}, {0, 100, 255}), yu = Empty(TSR_DTYPE_U8, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CLIP, wide, {u}, yu).ok());
  EXPECT_EQ(Ints(yu), (IV{0, 100, 255}));  // bounds saturate to [0, 255]
}

TEST(ClipTest, OnnxStyleBoundInputs) {
  Tensor x = F32({3}, {-2, 0.5, 2}), lo = F32({}, {0}), hi = F32({}, {1});
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CLIP, Attrs(), {x, lo, hi}, y).ok());
  EXPECT_EQ(Values(y), (V{0, 0.5, 1}));
  ASSERT_TRUE(RunOp(TSR_OP_CLIP, Attrs(), {x, Absent(), hi}, y).ok());
  EXPECT_EQ(Values(y), (V{-2, 0.5, 1}));
  Tensor xi = I64({3}, {-5, 3, 9}), li = I64({}, {-1}), yi = Empty(TSR_DTYPE_I64, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CLIP, Attrs(), {xi, li}, yi).ok());
  EXPECT_EQ(Ints(yi), (IV{-1, 3, 9}));
}

// Quantized SIGMOID / TANH / EXP: q_y = saturate(rhte(f(s_x (q_x - zp_x)) / s_y)
// + zp_y). Expected values worked by hand from that formula (the real
// value before rounding in each comment).
TEST(UnaryTest, QuantizedSigmoidTanhExpI8) {
  Tensor x = WithQuant(I8({5}, {0, 16, -16, -128, 127}), {0.0625f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {5}), {1.0f / 256}, {-128});
  ASSERT_TRUE(RunOp(TSR_OP_SIGMOID, Attrs(), {x}, y).ok());
  // 256 sigma(0, 1, -1, -8, 7.9375) = 128, 187.15, 68.85, 0.086, 255.91.
  EXPECT_EQ(Ints(y), (IV{0, 59, -59, -128, 127}));

  Tensor xt = WithQuant(I8({6}, {0, 32, -32, 5, 127, -128}), {1.0f / 32}, {0});
  Tensor yt = WithQuant(Empty(TSR_DTYPE_I8, {6}), {1.0f / 128}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_TANH, Attrs(), {xt}, yt).ok());
  // 128 tanh(0, 1, -1, 0.15625, 3.97, -4) = 0, 97.48, -97.48, 19.84,
  // 127.91, -127.91.
  EXPECT_EQ(Ints(yt), (IV{0, 97, -97, 20, 127, -128}));

  Tensor xe = WithQuant(I8({6}, {0, 2, -2, 3, 10, -128}), {0.5f}, {0});
  Tensor ye = WithQuant(Empty(TSR_DTYPE_I8, {6}), {0.5f}, {-128});
  ASSERT_TRUE(RunOp(TSR_OP_EXP, Attrs(), {xe}, ye).ok());
  // 2 exp(0, 1, -1, 1.5, 5, -64) = 2, 5.44, 0.74, 8.96, 296.8, ~0.
  EXPECT_EQ(Ints(ye), (IV{-126, -123, -127, -119, 127, -128}));
}

TEST(UnaryTest, QuantizedSigmoidU8AndErrors) {
  Tensor x = WithQuant(U8({4}, {128, 138, 0, 255}), {0.1f}, {128});
  Tensor y = WithQuant(Empty(TSR_DTYPE_U8, {4}), {1.0f / 256}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_SIGMOID, Attrs(), {x}, y).ok());
  // 256 sigma(0, 1, -12.8, 12.7) = 128, 187.15, 0.0007, 255.9992.
  EXPECT_EQ(Ints(y), (IV{128, 187, 0, 255}));
  Tensor plain = Empty(TSR_DTYPE_U8, {4});  // output without quant params
  EXPECT_EQ(RunOp(TSR_OP_SIGMOID, Attrs(), {x}, plain).code(), absl::StatusCode::kInvalidArgument);
  Tensor xi = I8({1}, {1}), yi = Empty(TSR_DTYPE_I8, {1});  // no quant at all
  EXPECT_EQ(RunOp(TSR_OP_EXP, Attrs(), {xi}, yi).code(), absl::StatusCode::kUnimplemented);
  Tensor qx = WithQuant(I8({1}, {1}), {0.5f}, {0}), qy = WithQuant(Empty(TSR_DTYPE_I8, {1}), {0.5f}, {0});
  EXPECT_EQ(RunOp(TSR_OP_SIN, Attrs(), {qx}, qy).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
