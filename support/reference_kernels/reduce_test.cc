#include <gtest/gtest.h>

#include <cmath>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

Attributes Axes(std::vector<int64_t> axes, int64_t keep = 1) {
  Attributes a;
  if (!axes.empty()) a.SetInts(TSR_ATTR_AXES, axes);
  a.SetInts(TSR_ATTR_KEEP_DIMS, {keep});
  return a;
}

TEST(ReduceTest, SumMeanMaxF32) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y21 = Empty(TSR_DTYPE_F32, {2, 1});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, Axes({1}), {x}, y21).ok());
  EXPECT_EQ(Values(y21), (V{6, 15}));
  Tensor y2 = Empty(TSR_DTYPE_F32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, Axes({-1}, 0), {x}, y2).ok());
  EXPECT_EQ(Values(y2), (V{6, 15}));
  Tensor y13 = Empty(TSR_DTYPE_F32, {1, 3});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MEAN, Axes({0}), {x}, y13).ok());
  EXPECT_EQ(Values(y13), (V{2.5, 3.5, 4.5}));
  Tensor s = Empty(TSR_DTYPE_F32, {});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MAX, Axes({}, 0), {x}, s).ok());
  EXPECT_EQ(Values(s), (V{6}));
  Tensor s11 = Empty(TSR_DTYPE_F32, {1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MEAN, Axes({}), {x}, s11).ok());  // all axes
  EXPECT_EQ(Values(s11), (V{3.5}));
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, Axes({1, 0}), {x}, s11).ok());
  EXPECT_EQ(Values(s11), (V{21}));
}

TEST(ReduceTest, MiddleAxisAndAxesInput) {
  // x[2,2,2] = 0..7; sum over axis 1 -> [[0+2, 1+3], [4+6, 5+7]].
  Tensor x = F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 2});
  Tensor axes = I64({1}, {1});
  Attributes a;
  a.SetInts(TSR_ATTR_KEEP_DIMS, {0});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, a, {x, axes}, y).ok());
  EXPECT_EQ(Values(y), (V{2, 4, 10, 12}));
}

TEST(ReduceTest, Integers) {
  Tensor x = I32({2, 3}, {1, 2, 4, -1, -2, -4}), y = Empty(TSR_DTYPE_I32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MEAN, Axes({1}, 0), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{2, -2}));  // 7/3 and -7/3 truncate toward zero
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, Axes({1}, 0), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{7, -7}));
  Tensor b = I8({3}, {-5, 100, 7}), yb = Empty(TSR_DTYPE_I8, {1});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MAX, Axes({0}), {b}, yb).ok());
  EXPECT_EQ(Ints(yb), (IV{100}));
  EXPECT_EQ(RunOp(TSR_OP_REDUCE_SUM, Axes({0}), {b}, yb).code(), absl::StatusCode::kUnimplemented);
}

TEST(ReduceTest, F16AndNaN) {
  Tensor x = F16({4}, {0.5, 0.25, 1, 2}), y = Empty(TSR_DTYPE_F16, {1});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_SUM, Axes({0}), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{3.75}));
  Tensor n = F32({3}, {1, std::nan(""), 3}), yn = Empty(TSR_DTYPE_F32, {1});
  ASSERT_TRUE(RunOp(TSR_OP_REDUCE_MAX, Axes({0}), {n}, yn).ok());
  EXPECT_TRUE(std::isnan(Values(yn)[0]));
}

TEST(ReduceTest, Errors) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6}), y = Empty(TSR_DTYPE_F32, {2, 1});
  EXPECT_EQ(RunOp(TSR_OP_REDUCE_SUM, Axes({1, -1}), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // repeated
  EXPECT_EQ(RunOp(TSR_OP_REDUCE_SUM, Axes({2}), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // out of range
  EXPECT_EQ(RunOp(TSR_OP_REDUCE_SUM, Axes({0}), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // wrong output shape
}

}  // namespace
}  // namespace tessera::cpu
