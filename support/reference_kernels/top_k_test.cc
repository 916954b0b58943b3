// TOP_K: hand vectors (largest/smallest, ties, NaN, inner axes, k = 0).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

Attributes TopK(int64_t axis, int64_t k, int64_t largest = 1) {
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {axis});
  a.SetInts(TSR_ATTR_K, {k});
  a.SetInts(TSR_ATTR_LARGEST, {largest});
  a.SetInts(TSR_ATTR_SORTED, {1});
  return a;
}

TEST(TopKTest, LargestAndSmallestWithTiesLowerIndexFirst) {
  Tensor x = F32({2, 5}, {3, 1, 3, 7, 0, /**/ 2, 2, 2, -1, 5});
  Tensor v = Empty(TSR_DTYPE_F32, {2, 3}), i = Empty(TSR_DTYPE_I64, {2, 3});
  ASSERT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(1, 3), {x}, {&v, &i}).ok());
  EXPECT_EQ(Values(v), (V{7, 3, 3, 5, 2, 2}));
  EXPECT_EQ(Ints(i), (IV{3, 0, 2, 4, 0, 1}));
  ASSERT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(-1, 3, 0), {x}, {&v, &i}).ok());
  EXPECT_EQ(Values(v), (V{0, 1, 3, -1, 2, 2}));
  EXPECT_EQ(Ints(i), (IV{4, 1, 0, 3, 0, 1}));
}

TEST(TopKTest, AlongTheFirstAxisOfAMatrix) {
  // Columns [4, 1, 9] and [-2, 8, 8]: top 2 of each, written as rows.
  Tensor x = I64({3, 2}, {4, -2, 1, 8, 9, 8});
  Tensor v = Empty(TSR_DTYPE_I64, {2, 2}), i = Empty(TSR_DTYPE_I64, {2, 2});
  ASSERT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(0, 2), {x}, {&v, &i}).ok());
  EXPECT_EQ(Ints(v), (IV{9, 8, 4, 8}));
  EXPECT_EQ(Ints(i), (IV{2, 1, 0, 2}));
}

TEST(TopKTest, NaNRanksAboveEveryNumber) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = F32({4}, {1, nan, 5, -1});
  Tensor v = Empty(TSR_DTYPE_F32, {2}), i = Empty(TSR_DTYPE_I64, {2});
  ASSERT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(0, 2), {x}, {&v, &i}).ok());
  EXPECT_TRUE(std::isnan(Values(v)[0]));
  EXPECT_EQ(Values(v)[1], 5);
  EXPECT_EQ(Ints(i), (IV{1, 2}));
  ASSERT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(0, 2, 0), {x}, {&v, &i}).ok());
  EXPECT_EQ(Values(v), (V{-1, 1}));
  EXPECT_EQ(Ints(i), (IV{3, 0}));
}

TEST(TopKTest, KZeroAndBadK) {
  Tensor x = F32({3}, {1, 2, 3});
  Tensor v0 = Empty(TSR_DTYPE_F32, {0}), i0 = Empty(TSR_DTYPE_I64, {0});
  EXPECT_TRUE(RunMulti(TSR_OP_TOP_K, TopK(0, 0), {x}, {&v0, &i0}).ok());
  Tensor v = Empty(TSR_DTYPE_F32, {4}), i = Empty(TSR_DTYPE_I64, {4});
  absl::Status s = RunMulti(TSR_OP_TOP_K, TopK(0, 4), {x}, {&v, &i});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("axis length"), std::string::npos) << s;
  Tensor wrong = Empty(TSR_DTYPE_I32, {2}), v2 = Empty(TSR_DTYPE_F32, {2});
  EXPECT_FALSE(RunMulti(TSR_OP_TOP_K, TopK(0, 2), {x}, {&v2, &wrong}).ok());  // indices must be i64
}

}  // namespace
}  // namespace tessera::cpu
