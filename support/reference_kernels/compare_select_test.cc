#include <gtest/gtest.h>

#include <cmath>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

TEST(CompareTest, BroadcastAndTypes) {
  Tensor a = F32({2, 1}, {1, 3}), b = F32({3}, {1, 2, 3});
  Tensor y = Empty(TSR_DTYPE_BOOL, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_EQUAL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, 0, 0, 0, 0, 1}));
  ASSERT_TRUE(RunOp(TSR_OP_LESS, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 1, 1, 0, 0, 0}));
  ASSERT_TRUE(RunOp(TSR_OP_GREATER, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{0, 0, 0, 1, 1, 0}));
  Tensor i = I64({2}, {-1, 5}), j = I64({2}, {0, 5}), yb = Empty(TSR_DTYPE_BOOL, {2});
  ASSERT_TRUE(RunOp(TSR_OP_LESS, Attrs(), {i, j}, yb).ok());
  EXPECT_EQ(Ints(yb), (IV{1, 0}));
  Tensor u = U8({2}, {200, 5}), w = U8({2}, {100, 5});
  ASSERT_TRUE(RunOp(TSR_OP_GREATER, Attrs(), {u, w}, yb).ok());
  EXPECT_EQ(Ints(yb), (IV{1, 0}));
  Tensor p = Bool({2}, {1, 0}), q = Bool({2}, {1, 1});
  ASSERT_TRUE(RunOp(TSR_OP_EQUAL, Attrs(), {p, q}, yb).ok());
  EXPECT_EQ(Ints(yb), (IV{1, 0}));
}

TEST(CompareTest, NaNComparesFalse) {
  Tensor a = F16({1}, {std::nan("")}), yb = Empty(TSR_DTYPE_BOOL, {1});
  for (int32_t op : {TSR_OP_EQUAL, TSR_OP_LESS, TSR_OP_GREATER}) {
    ASSERT_TRUE(RunOp(op, Attrs(), {a, a}, yb).ok());
    EXPECT_EQ(Ints(yb)[0], 0);
  }
}

TEST(CompareTest, Errors) {
  Tensor p = Bool({1}, {1}), yb = Empty(TSR_DTYPE_BOOL, {1});
  EXPECT_EQ(RunOp(TSR_OP_LESS, Attrs(), {p, p}, yb).code(), absl::StatusCode::kUnimplemented);
  Tensor f = F32({1}, {1}), yf = Empty(TSR_DTYPE_F32, {1});
  EXPECT_EQ(RunOp(TSR_OP_EQUAL, Attrs(), {f, f}, yf).code(), absl::StatusCode::kInvalidArgument);
  Tensor i = I32({1}, {1});
  EXPECT_EQ(RunOp(TSR_OP_EQUAL, Attrs(), {f, i}, yb).code(), absl::StatusCode::kInvalidArgument);
}

TEST(SelectTest, ThreeWayBroadcast) {
  Tensor c = Bool({2, 1}, {1, 0}), x = F32({3}, {1, 2, 3}), z = F32({}, {9});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_SELECT, Attrs(), {c, x, z}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 2, 3, 9, 9, 9}));
}

TEST(SelectTest, AnyDTypeAndErrors) {
  Tensor c = Bool({3}, {0, 1, 0});
  Tensor x = I64({3}, {1, 2, 3}), z = I64({3}, {-1, -2, -3});
  Tensor y = Empty(TSR_DTYPE_I64, {3});
  ASSERT_TRUE(RunOp(TSR_OP_SELECT, Attrs(), {c, x, z}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-1, 2, -3}));
  Tensor notbool = I8({3}, {0, 1, 0});
  EXPECT_EQ(RunOp(TSR_OP_SELECT, Attrs(), {notbool, x, z}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor zf = F32({3}, {0, 0, 0});
  EXPECT_EQ(RunOp(TSR_OP_SELECT, Attrs(), {c, x, zf}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor wrong = Empty(TSR_DTYPE_I64, {1, 3, 1});
  EXPECT_EQ(RunOp(TSR_OP_SELECT, Attrs(), {c, x, z}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::cpu
