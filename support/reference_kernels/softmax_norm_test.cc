#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;

TEST(SoftmaxTest, LastAxis) {
  Tensor x = F32({2, 3}, {1, 2, 3, 0, 0, 0}), y = Empty(TSR_DTYPE_F32, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_SOFTMAX, Attrs(), {x}, y).ok());
  const V v = Values(y);
  const V want = {0.09003057, 0.24472847, 0.66524096, 1 / 3.0, 1 / 3.0, 1 / 3.0};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(v[i], want[i], 1e-7);
}

TEST(SoftmaxTest, StableAndAxis0) {
  Tensor x = F32({2, 2}, {1000, -1000, 1000, -1000}), y = Empty(TSR_DTYPE_F32, {2, 2});
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {0});
  ASSERT_TRUE(RunOp(TSR_OP_SOFTMAX, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{0.5, 0.5, 0.5, 0.5}));
  ASSERT_TRUE(RunOp(TSR_OP_SOFTMAX, Attrs(), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 0, 1, 0}));
}

TEST(SoftmaxTest, RowsSumToOne) {
  std::mt19937 rng(11);
  std::normal_distribution<double> d(0, 5);
  V xv(3 * 7 * 4);
  for (double& v : xv) v = d(rng);
  Tensor x = F32({3, 7, 4}, xv), y = Empty(TSR_DTYPE_F32, {3, 7, 4});
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {1});
  ASSERT_TRUE(RunOp(TSR_OP_SOFTMAX, a, {x}, y).ok());
  const V v = Values(y);
  for (int o = 0; o < 3; ++o)
    for (int i = 0; i < 4; ++i) {
      double s = 0;
      for (int k = 0; k < 7; ++k) s += v[(o * 7 + k) * 4 + i];
      EXPECT_NEAR(s, 1.0, 1e-6);
    }
  Tensor xi = I32({2}, {1, 2}), yi = Empty(TSR_DTYPE_I32, {2});
  EXPECT_EQ(RunOp(TSR_OP_SOFTMAX, Attrs(), {xi}, yi).code(), absl::StatusCode::kUnimplemented);
}

TEST(LayerNormTest, HandComputed) {
  // Rows {1,3}: mean 2, var 1; {2,6}: mean 4, var 4. eps = 0.
  Tensor x = F32({2, 2}, {1, 3, 2, 6});
  Tensor scale = F32({2}, {2, 0.5}), bias = F32({2}, {1, -1});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 2});
  Tensor mean = Empty(TSR_DTYPE_F32, {2, 1}), inv = Empty(TSR_DTYPE_F32, {2, 1});
  Attributes a;
  a.SetFloats(TSR_ATTR_EPSILON, {0});
  ASSERT_TRUE(RunMulti(TSR_OP_LAYER_NORM, a, {x, scale, bias}, {&y, &mean, &inv}).ok());
  EXPECT_EQ(Values(y), (V{-1, -0.5, -1, -0.5}));
  EXPECT_EQ(Values(mean), (V{2, 4}));
  EXPECT_EQ(Values(inv), (V{1, 0.5}));
  // Without bias, default epsilon 1e-5.
  ASSERT_TRUE(RunOp(TSR_OP_LAYER_NORM, Attrs(), {x, scale}, y).ok());
  const V v = Values(y);
  EXPECT_NEAR(v[0], -2 / std::sqrt(1 + 1e-5), 1e-6);
  EXPECT_NEAR(v[3], 0.5 * 2 / std::sqrt(4 + 1e-5), 1e-6);
}

TEST(LayerNormTest, AxisZeroAndBroadcastScale) {
  // Normalize all 4 values {1,3,2,6}: mean 3, var 3.5; scalar-like scale [1].
  Tensor x = F32({2, 2}, {1, 3, 2, 6}), scale = F32({1}, {1});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 2});
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {0});
  a.SetFloats(TSR_ATTR_EPSILON, {0});
  ASSERT_TRUE(RunOp(TSR_OP_LAYER_NORM, a, {x, scale}, y).ok());
  const double s = std::sqrt(3.5);
  const V v = Values(y);
  const V want = {-2 / s, 0, -1 / s, 3 / s};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(v[i], want[i], 1e-6);
  Tensor bad_scale = F32({3}, {1, 1, 1});
  EXPECT_EQ(RunOp(TSR_OP_LAYER_NORM, Attrs(), {x, bad_scale}, y).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::cpu
