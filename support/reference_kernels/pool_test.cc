#include <gtest/gtest.h>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

V Iota(int n, double start = 1) {
  V v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

Attributes PoolAttrs(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> pads = {0, 0, 0, 0}) {
  Attributes a;
  a.SetInts(TSR_ATTR_KERNEL_SHAPE, k);
  a.SetInts(TSR_ATTR_STRIDES, s);
  a.SetInts(TSR_ATTR_PADS, pads);
  return a;
}

TEST(PoolTest, Basic2x2) {
  Tensor x = F32({1, 1, 4, 4}, Iota(16)), y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, PoolAttrs({2, 2}, {2, 2}), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{6, 8, 14, 16}));
  ASSERT_TRUE(RunOp(TSR_OP_AVG_POOL_2D, PoolAttrs({2, 2}, {2, 2}), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{3.5, 5.5, 11.5, 13.5}));
}

TEST(PoolTest, AvgPaddingCount) {
  Tensor x = F32({1, 1, 3, 3}, Iota(9)), y = Empty(TSR_DTYPE_F32, {1, 1, 4, 4});
  Attributes a = PoolAttrs({2, 2}, {1, 1}, {1, 1, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_AVG_POOL_2D, a, {x}, y).ok());
  V v = Values(y);
  EXPECT_EQ(v[0], 1);    // only x[0,0]
  EXPECT_EQ(v[1], 1.5);  // (1+2)/2
  EXPECT_EQ(v[5], 3);    // (1+2+4+5)/4
  EXPECT_EQ(v[15], 9);
  a.SetInts(TSR_ATTR_COUNT_INCLUDE_PAD, {1});
  ASSERT_TRUE(RunOp(TSR_OP_AVG_POOL_2D, a, {x}, y).ok());
  v = Values(y);
  EXPECT_EQ(v[0], 0.25);
  EXPECT_EQ(v[1], 0.75);
  EXPECT_EQ(v[5], 3);
  EXPECT_EQ(v[15], 2.25);
}

TEST(PoolTest, MaxNeverSelectsPadding) {
  Tensor x = F32({1, 1, 3, 3}, Iota(9, -9)), y = Empty(TSR_DTYPE_F32, {1, 1, 4, 4});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, PoolAttrs({2, 2}, {1, 1}, {1, 1, 1, 1}), {x}, y).ok());
  EXPECT_EQ(Values(y)[0], -9);  // not the 0 of the padding
  EXPECT_EQ(Values(y)[15], -1);
}

TEST(PoolTest, CeilMode) {
  Tensor x = F32({1, 1, 4, 4}, Iota(16));
  Attributes a = PoolAttrs({3, 3}, {2, 2});
  Tensor floor_y = Empty(TSR_DTYPE_F32, {1, 1, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, floor_y).ok());
  EXPECT_EQ(Values(floor_y), (V{11}));
  a.SetInts(TSR_ATTR_CEIL_MODE, {1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{11, 12, 15, 16}));
  ASSERT_TRUE(RunOp(TSR_OP_AVG_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{6, 7.5, 12, 13.5}));
}

TEST(PoolTest, CeilModeDropsWindowStartingInPadding) {
  // H=4, k=2, s=2, bottom pad 1: ceil gives 3 windows, but the third would
  // start at row 4 (inside the bottom padding) and is dropped.
  Tensor x = F32({1, 1, 4, 1}, {1, 2, 3, 4});
  Attributes a = PoolAttrs({2, 1}, {2, 1}, {0, 0, 1, 0});
  a.SetInts(TSR_ATTR_CEIL_MODE, {1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 2, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{2, 4}));
  Tensor y3 = Empty(TSR_DTYPE_F32, {1, 1, 3, 1});
  EXPECT_EQ(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y3).code(), absl::StatusCode::kInvalidArgument);
}

// When the stride divides the span, ceil mode adds no window: H=5, k=3,
// s=2 gives ceil((5 - 3) / 2) + 1 = 2 rows in both modes (ONNX's
// formula, by hand), windows [0, 2] and [2, 4].
TEST(PoolTest, CeilModeAddsNoWindowWhenTheStrideDividesTheSpan) {
  Tensor x = F32({1, 1, 5, 1}, {1, 7, 4, 2, 3});
  Attributes a = PoolAttrs({3, 1}, {2, 1});
  a.SetInts(TSR_ATTR_CEIL_MODE, {1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 2, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{7, 4}));
  ASSERT_TRUE(RunOp(TSR_OP_AVG_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{4, 3}));  // 12 / 3, 9 / 3
  Tensor y3 = Empty(TSR_DTYPE_F32, {1, 1, 3, 1});
  EXPECT_EQ(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y3).code(), absl::StatusCode::kInvalidArgument);
}

TEST(PoolTest, DilatedMaxAndInt8) {
  Tensor x = F32({1, 1, 4, 4}, Iota(16)), y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  Attributes a = PoolAttrs({2, 2}, {1, 1});
  a.SetInts(TSR_ATTR_DILATIONS, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{11, 12, 15, 16}));
  Tensor xi = I8({1, 1, 2, 2}, {-5, -3, -8, -1}), yi = Empty(TSR_DTYPE_I8, {1, 1, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_MAX_POOL_2D, PoolAttrs({2, 2}, {1, 1}), {xi}, yi).ok());
  EXPECT_EQ(Ints(yi), (IV{-1}));
  EXPECT_EQ(RunOp(TSR_OP_AVG_POOL_2D, PoolAttrs({2, 2}, {1, 1}), {xi}, yi).code(), absl::StatusCode::kUnimplemented);
}

TEST(PoolTest, Errors) {
  Tensor x = F32({1, 1, 4, 4}, Iota(16)), y = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  Attributes nok;
  EXPECT_EQ(RunOp(TSR_OP_MAX_POOL_2D, nok, {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // KERNEL_SHAPE required
  Tensor x3 = F32({1, 4, 4}, Iota(16));
  EXPECT_EQ(RunOp(TSR_OP_MAX_POOL_2D, PoolAttrs({2, 2}, {2, 2}), {x3}, y).code(), absl::StatusCode::kInvalidArgument);
}

TEST(GlobalAvgPoolTest, Rank4AndRank3) {
  Tensor x = F32({1, 2, 2, 2}, Iota(8)), y = Empty(TSR_DTYPE_F32, {1, 2, 1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{2.5, 6.5}));
  Tensor x3 = F16({1, 2, 3}, Iota(6)), y3 = Empty(TSR_DTYPE_F16, {1, 2, 1});
  ASSERT_TRUE(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x3}, y3).ok());
  EXPECT_EQ(Values(y3), (V{2, 5}));
  Tensor bad = Empty(TSR_DTYPE_F32, {1, 2});
  EXPECT_EQ(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x}, bad).code(), absl::StatusCode::kInvalidArgument);
}

// Quantized GLOBAL_AVG_POOL: acc = sum(q - zp_x) (int32), then
// MultiplyByQuantizedMultiplier(acc, QuantizeMultiplier(s_x / (n s_y))) + zp_y.
TEST(GlobalAvgPoolTest, QuantizedI8RoundsLikeThePipeline) {
  // s_x 0.5 zp 1, s_y 0.25 zp -3: M = 0.5 / (4 * 0.25) = 0.5 exactly.
  Tensor x = WithQuant(I8({1, 3, 2, 2}, {1, 3, 5, 8, -2, -3, 1, 1, -128, -128, -128, -127}), {0.5f}, {1});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1, 3, 1, 1}), {0.25f}, {-3});
  ASSERT_TRUE(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x}, y).ok());
  // sums 13, -7, -515; x0.5 = 6.5 (positive tie: up, 7), -3.5 (negative
  // tie: toward zero, -3), -257.5; + zp -3 = 4, -6, saturated -128.
  EXPECT_EQ(Ints(y), (IV{4, -6, -128}));
}

TEST(GlobalAvgPoolTest, QuantizedU8Rank3AndErrors) {
  // s_x 0.3 zp 10, s_y 0.1 zp 0, 3 taps: M = 0.3f / (3 * 0.1f) = 1.0000000248
  // = {1073741851, shift 1}; sum (0 + 10 + 30) = 40 -> 40 (real mean 4.0).
  Tensor x = WithQuant(U8({1, 2, 3}, {10, 20, 40, 255, 255, 255}), {0.3f}, {10});
  Tensor y = WithQuant(Empty(TSR_DTYPE_U8, {1, 2, 1}), {0.1f}, {0});
  ASSERT_TRUE(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x}, y).ok());
  // Channel 1: 3 * 245 = 735 -> 735 (mean 73.5 real = 735 steps of 0.1,
  // saturated to 255).
  EXPECT_EQ(Ints(y), (IV{40, 255}));
  Tensor plain = Empty(TSR_DTYPE_U8, {1, 2, 1});
  EXPECT_EQ(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {x}, plain).code(), absl::StatusCode::kInvalidArgument);
  Tensor xi = I8({1, 1, 2}, {1, 2}), yi = Empty(TSR_DTYPE_I8, {1, 1, 1});
  EXPECT_EQ(RunOp(TSR_OP_GLOBAL_AVG_POOL, Attrs(), {xi}, yi).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
