#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

TEST(MatMulTest, TwoByThree) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{58, 64, 139, 154}));
  Tensor h = F16({2, 3}, {1, 2, 3, 4, 5, 6}), hb = F16({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor yh = Empty(TSR_DTYPE_F16, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {h, hb}, yh).ok());
  EXPECT_EQ(Values(yh), (V{58, 64, 139, 154}));
}

TEST(MatMulTest, OneDimensionalPromotion) {
  Tensor v = F32({3}, {1, 2, 3}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor y = Empty(TSR_DTYPE_F32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {v, b}, y).ok());
  EXPECT_EQ(Values(y), (V{58, 64}));
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), ones = F32({3}, {1, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, ones}, y).ok());
  EXPECT_EQ(Values(y), (V{6, 15}));
  Tensor w = F32({3}, {4, 5, 6}), s = Empty(TSR_DTYPE_F32, {});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {v, w}, s).ok());
  EXPECT_EQ(Values(s), (V{32}));
  Tensor wrong = Empty(TSR_DTYPE_F32, {1, 2});
  EXPECT_EQ(RunOp(TSR_OP_MATMUL, Attrs(), {v, b}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

TEST(MatMulTest, BatchBroadcast) {
  // A [2,1,1,2], B [3,2,1]: out [2,3,1,1]; out[i,j] = A[i] . B[j].
  Tensor a = F32({2, 1, 1, 2}, {1, 2, 3, 4});
  Tensor b = F32({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 3, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 2, 3, 3, 4, 7}));
  Tensor bad = F32({2, 2, 1}, {1, 2, 3, 4});
  Tensor a3 = F32({3, 1, 2}, {1, 2, 3, 4, 5, 6}), y3 = Empty(TSR_DTYPE_F32, {3, 1, 1});
  EXPECT_EQ(RunOp(TSR_OP_MATMUL, Attrs(), {a3, bad}, y3).code(), absl::StatusCode::kInvalidArgument);
}

TEST(MatMulTest, Int32Wraps) {
  Tensor a = I32({1, 2}, {65536, 3}), b = I32({2, 1}, {65536, -4});
  Tensor y = Empty(TSR_DTYPE_I32, {1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-12}));  // 2^32 wraps to 0, plus -12
}

TEST(MatMulTest, QuantizedU8xI8) {
  Tensor a = WithQuant(U8({2, 2}, {130, 128, 126, 132}), {0.5f}, {128});
  Tensor b = WithQuant(I8({2, 2}, {1, 2, 3, 4}), {0.25f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_U8, {2, 2}), {0.125f}, {10});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  // (a - 128) = [[2,0],[-2,4]]; product [[2,4],[10,12]]; M = 1.
  EXPECT_EQ(Ints(y), (IV{12, 14, 20, 22}));
}

TEST(MatMulTest, IntegerAccumulatorsLikeMatMulInteger) {
  // ONNX test_matmulinteger.
  Tensor a = WithQuant(U8({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}), {1.0f}, {12});
  Tensor b = U8({3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor y = Empty(TSR_DTYPE_I32, {4, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-38, -83, -44, -98, -50, -113, -56, -128}));
}

// Its speed is measured by bench/, not asserted here (no wall-clock
// assertions in tests): this checks the large, blocked path's values.
TEST(MatMulTest, LargeMatchesTheDoubleReference) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> d(-1, 1);
  V av(1024 * 64), bv(64 * 1024);
  for (double& v : av) v = d(rng);
  for (double& v : bv) v = d(rng);
  Tensor a = F32({1024, 64}, av), b = F32({64, 1024}, bv);
  Tensor y = Empty(TSR_DTYPE_F32, {1024, 1024});
  ASSERT_TRUE(RunOp(TSR_OP_MATMUL, Attrs(), {a, b}, y).ok());
  double ref = 0;
  for (int k = 0; k < 64; ++k)
    ref += static_cast<double>(static_cast<float>(av[5 * 64 + k])) * static_cast<float>(bv[k * 1024 + 7]);
  EXPECT_NEAR(Values(y)[5 * 1024 + 7], ref, 1e-5);
}

TEST(FullyConnectedTest, FloatBiasAndActivation) {
  // X [2,2], W [3,2] (row per unit), b [3].
  Tensor x = F32({2, 2}, {1, 2, 3, 4});
  Tensor w = F32({3, 2}, {1, 0, 0, 1, -1, -1});
  Tensor b = F32({3}, {0.5, 0, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w, b}, y).ok());
  EXPECT_EQ(Values(y), (V{1.5, 2, -2, 3.5, 4, -6}));
  Attributes relu;
  relu.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, relu, {x, w, b}, y).ok());
  EXPECT_EQ(Values(y), (V{1.5, 2, 0, 3.5, 4, 0}));
  Attributes clip;
  clip.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_CLIP});
  clip.SetFloats(TSR_ATTR_CLIP_MIN, {-1});
  clip.SetFloats(TSR_ATTR_CLIP_MAX, {3});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, clip, {x, w, Absent()}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 2, -1, 3, 3, -1}));
}

TEST(FullyConnectedTest, HigherRankInput) {
  Tensor x = F32({2, 1, 2}, {1, 2, 3, 4}), w = F32({1, 2}, {1, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{3, 7}));
  Tensor flat = Empty(TSR_DTYPE_F32, {2, 1});
  EXPECT_EQ(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w}, flat).code(), absl::StatusCode::kInvalidArgument);
}

TEST(FullyConnectedTest, QuantizedPerChannelExact) {
  // x - zp = {8, -6}; acc = {28, -66} (bias included);
  // M = {0.5*0.25/0.2, 0.5*0.125/0.2} -> {1342177260, 0}, {1342177260, -1};
  // MBQM gives {17, -21}; + y_zp -3 = {14, -24}.
  Tensor x = WithQuant(I8({1, 2}, {10, -4}), {0.5f}, {2});
  Tensor w = WithQuant(I8({2, 2}, {3, 1, -2, 5}), {0.25f, 0.125f}, {0, 0}, 0);
  Tensor b = I32({2}, {10, -20});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 2}), {0.2f}, {-3});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{14, -24}));
  Attributes relu;
  relu.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, relu, {x, w, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{14, -3}));  // RELU clamps at y_zp
  Attributes clip;
  clip.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_CLIP});
  clip.SetFloats(TSR_ATTR_CLIP_MIN, {-1});   // -3 + round(-5) = -8
  clip.SetFloats(TSR_ATTR_CLIP_MAX, {1.5});  // -3 + round(7.5) = 5
  ASSERT_TRUE(RunOp(TSR_OP_FULLY_CONNECTED, clip, {x, w, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{5, -8}));
}

TEST(FullyConnectedTest, QuantizedErrors) {
  Tensor x = WithQuant(I8({1, 2}, {1, 2}), {0.5f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 1}), {0.5f}, {0});
  Tensor asym = WithQuant(I8({1, 2}, {1, 1}), {0.5f}, {3});
  EXPECT_EQ(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, asym}, y).code(),
            absl::StatusCode::kInvalidArgument);  // i8 weights need zp 0
  Tensor noq = I8({1, 2}, {1, 1});
  EXPECT_EQ(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, noq}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor w = WithQuant(I8({1, 2}, {1, 1}), {0.5f}, {0});
  Tensor fbias = F32({1}, {0});
  EXPECT_EQ(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w, fbias}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor yf = Empty(TSR_DTYPE_F32, {1, 1});
  EXPECT_EQ(RunOp(TSR_OP_FULLY_CONNECTED, Attrs(), {x, w}, yf).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
