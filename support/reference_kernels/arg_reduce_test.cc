// ARG_MAX / ARG_MIN: hand vectors (ties, NaN, keepdims, negative axes).
#include <gtest/gtest.h>

#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using IV = std::vector<int64_t>;

Attributes Arg(int64_t axis, int64_t keep, int64_t last = 0) {
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {axis});
  a.SetInts(TSR_ATTR_KEEP_DIMS, {keep});
  a.SetInts(TSR_ATTR_SELECT_LAST_INDEX, {last});
  return a;
}

TEST(ArgReduceTest, RowsAndColumnsWithTies) {
  // [[2, 1], [3, 10]] (the ONNX example) and a tie in row 0 of [[5, 5], ...].
  Tensor x = F32({2, 2}, {2, 1, 3, 10});
  Tensor y = Empty(TSR_DTYPE_I64, {2, 1});
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(1, 1), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 1}));
  Tensor y0 = Empty(TSR_DTYPE_I64, {2});
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MIN, Arg(0, 0), {x}, y0).ok());
  EXPECT_EQ(Ints(y0), (IV{0, 0}));  // columns [2,3] and [1,10]
  Tensor t = F32({2, 3}, {5, 1, 5, 0, 0, -1});
  Tensor yt = Empty(TSR_DTYPE_I64, {2});
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(-1, 0), {t}, yt).ok());
  EXPECT_EQ(Ints(yt), (IV{0, 0}));  // first of the tied maxima
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(-1, 0, 1), {t}, yt).ok());
  EXPECT_EQ(Ints(yt), (IV{2, 1}));  // last of them
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MIN, Arg(1, 0, 1), {t}, yt).ok());
  EXPECT_EQ(Ints(yt), (IV{1, 2}));
}

TEST(ArgReduceTest, MiddleAxisOfARank3Tensor) {
  // x[2,3,2]: lane (o, i) runs over the middle axis.
  Tensor x = I32({2, 3, 2}, {1, 9, 7, 2, 3, 4, /**/ -1, -5, -3, -2, -1, -8});
  Tensor y = Empty(TSR_DTYPE_I64, {2, 1, 2});
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(1, 1), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, 0, 0, 1}));  // [1,7,3] [9,2,4] [-1,-3,-1] [-5,-2,-8]
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(1, 1, 1), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, 0, 2, 1}));
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MIN, Arg(1, 1), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 1, 1, 2}));
}

TEST(ArgReduceTest, NaNIsTheExtremeForBoth) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = F32({5}, {1, nan, 7, nan, -3});
  Tensor y = Empty(TSR_DTYPE_I64, {});
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MAX, Arg(0, 0), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1}));
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MIN, Arg(0, 0), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1}));
  ASSERT_TRUE(RunOp(TSR_OP_ARG_MIN, Arg(0, 0, 1), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{3}));
}

TEST(ArgReduceTest, ErrorsNameTheProblem) {
  Tensor x = F32({2, 0}, {});
  Tensor y = Empty(TSR_DTYPE_I64, {2, 1});
  absl::Status s = RunOp(TSR_OP_ARG_MAX, Arg(1, 1), {x}, y);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("length 0"), std::string::npos) << s;
  Tensor x2 = F32({2, 2}, {1, 2, 3, 4});
  Tensor wrong = Empty(TSR_DTYPE_I32, {2, 1});
  EXPECT_FALSE(RunOp(TSR_OP_ARG_MAX, Arg(1, 1), {x2}, wrong).ok());  // output must be i64
  EXPECT_FALSE(RunOp(TSR_OP_ARG_MAX, Arg(2, 1), {x2}, y).ok());      // axis out of range
  Tensor b = Bool({2}, {0, 1});
  Tensor yb = Empty(TSR_DTYPE_I64, {1});
  EXPECT_EQ(RunOp(TSR_OP_ARG_MAX, Arg(0, 1), {b}, yb).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
