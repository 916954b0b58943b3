// CUM_SUM: hand vectors (exclusive, reverse, both, inner axes, ints).
#include <gtest/gtest.h>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

Attributes Cum(int64_t axis, int64_t exclusive = 0, int64_t reverse = 0) {
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {axis});
  a.SetInts(TSR_ATTR_EXCLUSIVE, {exclusive});
  a.SetInts(TSR_ATTR_REVERSE, {reverse});
  return a;
}

TEST(CumSumTest, TheFourModesOfTheOnnxExamples) {
  Tensor x = F32({5}, {1, 2, 3, 4, 5});
  Tensor y = Empty(TSR_DTYPE_F32, {5});
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 3, 6, 10, 15}));
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0, 1), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{0, 1, 3, 6, 10}));
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0, 0, 1), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{15, 14, 12, 9, 5}));
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0, 1, 1), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{14, 12, 9, 5, 0}));
}

TEST(CumSumTest, BothAxesOfAMatrix) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 2, 3, 5, 7, 9}));
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(-1), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 3, 6, 4, 9, 15}));
}

TEST(CumSumTest, IntegersWrapLikeAdd) {
  Tensor x = I32({3}, {2147483647, 1, 5});
  Tensor y = Empty(TSR_DTYPE_I32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_CUM_SUM, Cum(0), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{2147483647, -2147483648LL, -2147483643LL}));
  Tensor b = Bool({2}, {1, 1}), yb = Empty(TSR_DTYPE_BOOL, {2});
  EXPECT_EQ(RunOp(TSR_OP_CUM_SUM, Cum(0), {b}, yb).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
