#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;
const double kNaN = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

TEST(CastTest, FloatToInt) {
  Tensor x = F32({5}, {1.9, -1.9, 300, -300, kNaN});
  Tensor y = Empty(TSR_DTYPE_I8, {5});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, -1, 127, -128, 0}));
  Tensor yu = Empty(TSR_DTYPE_U8, {5});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, yu).ok());
  EXPECT_EQ(Ints(yu), (IV{1, 0, 255, 0, 0}));
  Tensor y64 = Empty(TSR_DTYPE_I64, {5});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, y64).ok());
  EXPECT_EQ(Ints(y64), (IV{1, -1, 300, -300, 0}));
}

TEST(CastTest, ToBoolAndFromBool) {
  Tensor x = F32({4}, {0, -0.0, 0.5, kNaN}), y = Empty(TSR_DTYPE_BOOL, {4});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 0, 1, 1}));
  Tensor i = I32({2}, {0, -7}), yb = Empty(TSR_DTYPE_BOOL, {2});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {i}, yb).ok());
  EXPECT_EQ(Ints(yb), (IV{0, 1}));
  Tensor yf = Empty(TSR_DTYPE_F16, {2});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {yb}, yf).ok());
  EXPECT_EQ(Values(yf), (V{0, 1}));
}

TEST(CastTest, IntToIntWrapsAndToFloatRounds) {
  Tensor x = I32({3}, {300, -129, 65}), y = Empty(TSR_DTYPE_I8, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{44, 127, 65}));
  Tensor big = I64({3}, {2049, 65520, (1LL << 24) + 1});
  Tensor yh = Empty(TSR_DTYPE_F16, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {big}, yh).ok());
  const V h = Values(yh);
  EXPECT_EQ(h[0], 2048);  // tie to even
  EXPECT_EQ(h[1], kInf);
  Tensor yf = Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {big}, yf).ok());
  EXPECT_EQ(Values(yf)[2], 16777216.0);  // 2^24 + 1 ties to even
}

TEST(CastTest, FloatToFloat) {
  Tensor x = F32({4}, {1.0 / 3, 65520, -kInf, kNaN}), y = Empty(TSR_DTYPE_F16, {4});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {x}, y).ok());
  const V v = Values(y);
  EXPECT_EQ(static_cast<const uint16_t*>(y.ref.data)[0], 0x3555);
  EXPECT_EQ(v[1], kInf);
  EXPECT_EQ(v[2], -kInf);
  EXPECT_TRUE(std::isnan(v[3]));
  Tensor back = Empty(TSR_DTYPE_F32, {4});
  ASSERT_TRUE(RunOp(TSR_OP_CAST, Attrs(), {y}, back).ok());
  EXPECT_EQ(Values(back)[0], 0.333251953125);
  Tensor wrong = Empty(TSR_DTYPE_F32, {3});
  EXPECT_EQ(RunOp(TSR_OP_CAST, Attrs(), {x}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

TEST(QuantizeTest, PerTensorRoundHalfEvenAndSaturate) {
  Tensor x = F32({8}, {0, 1, 2.5, -2.5, 1000, 0.25, 0.75, -0.25});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {8}), {0.5f}, {1});
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, y).ok());
  // x/0.5 = {0, 2, 5, -5, 2000, 0.5->0, 1.5->2, -0.5->0} + 1.
  EXPECT_EQ(Ints(y), (IV{1, 3, 6, -4, 127, 1, 3, 1}));
  Tensor yu = WithQuant(Empty(TSR_DTYPE_U8, {8}), {0.5f}, {1});
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, yu).ok());
  EXPECT_EQ(Ints(yu), (IV{1, 3, 6, 0, 255, 1, 3, 1}));
}

TEST(QuantizeTest, PerChannelAndOnnxInputs) {
  Tensor x = F32({2, 2}, {1, 1, 1, 1});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {2, 2}), {0.5f, 0.25f}, {0, 0}, 1);
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{2, 4, 2, 4}));
  Tensor y0 = WithQuant(Empty(TSR_DTYPE_I8, {2, 2}), {0.5f, 0.25f}, {0, 1}, -2);
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, y0).ok());
  EXPECT_EQ(Ints(y0), (IV{2, 2, 5, 5}));
  // ONNX QuantizeLinear example: scale 2, zp 128 (u8).
  Tensor ox = F32({6}, {0, 2, 3, 1000, -254, -1000});
  Tensor scale = F32({}, {2}), zp = U8({}, {128});
  Tensor oy = Empty(TSR_DTYPE_U8, {6});
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {ox, scale, zp}, oy).ok());
  EXPECT_EQ(Ints(oy), (IV{128, 129, 130, 255, 1, 0}));
  Tensor noparams = Empty(TSR_DTYPE_I8, {6});
  EXPECT_EQ(RunOp(TSR_OP_QUANTIZE, Attrs(), {ox}, noparams).code(), absl::StatusCode::kInvalidArgument);
  Tensor badc = WithQuant(Empty(TSR_DTYPE_I8, {2, 2}), {0.5f, 0.25f, 1.f}, {0, 0, 0}, 1);
  EXPECT_EQ(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, badc).code(), absl::StatusCode::kInvalidArgument);
}

TEST(DequantizeTest, PerTensorAndPerChannel) {
  Tensor q = WithQuant(I8({3}, {-128, 0, 127}), {0.5f}, {-1});
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {q}, y).ok());
  EXPECT_EQ(Values(y), (V{-63.5, 0.5, 64}));
  Tensor qc = WithQuant(U8({2, 2}, {10, 10, 20, 20}), {1.0f, 0.5f}, {10, 0}, 0);
  Tensor yc = Empty(TSR_DTYPE_F16, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {qc}, yc).ok());
  EXPECT_EQ(Values(yc), (V{0, 0, 10, 10}));
  Tensor q32 = I32({2}, {-100, 100}), scale = F32({}, {0.25}), y32 = Empty(TSR_DTYPE_F32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {q32, scale}, y32).ok());
  EXPECT_EQ(Values(y32), (V{-25, 25}));
  Tensor f = F32({1}, {1}), yf = Empty(TSR_DTYPE_F32, {1});
  EXPECT_EQ(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {f}, yf).code(), absl::StatusCode::kUnimplemented);
}

TEST(QuantRoundTripTest, QuantizeOfDequantizeIsIdentity) {
  V all;
  for (int v = -128; v <= 127; ++v) all.push_back(v);
  Tensor q = WithQuant(I8({256}, all), {0.037f}, {5});
  Tensor r = Empty(TSR_DTYPE_F32, {256});
  ASSERT_TRUE(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {q}, r).ok());
  Tensor q2 = WithQuant(Empty(TSR_DTYPE_I8, {256}), {0.037f}, {5});
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {r}, q2).ok());
  EXPECT_EQ(Ints(q2), Ints(q));
}

TEST(QuantRoundTripTest, DequantizeOfQuantizeWithinHalfStep) {
  V xs;
  for (int i = 0; i <= 200; ++i) xs.push_back(-4.0 + i * 0.04);
  Tensor x = F32({201}, xs);
  Tensor q = WithQuant(Empty(TSR_DTYPE_U8, {201}), {0.05f}, {90});
  ASSERT_TRUE(RunOp(TSR_OP_QUANTIZE, Attrs(), {x}, q).ok());
  Tensor back = Empty(TSR_DTYPE_F32, {201});
  ASSERT_TRUE(RunOp(TSR_OP_DEQUANTIZE, Attrs(), {q}, back).ok());
  const V b = Values(back);
  for (int i = 0; i <= 200; ++i) EXPECT_LE(std::fabs(b[i] - static_cast<float>(xs[i])), 0.025 + 1e-6) << xs[i];
}

}  // namespace
}  // namespace tessera::cpu
