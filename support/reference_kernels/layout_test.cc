#include <gtest/gtest.h>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

TEST(ReshapeTest, CopiesBytes) {
  Tensor x = I64({2, 3}, {1, 2, 3, 4, 5, 6}), y = Empty(TSR_DTYPE_I64, {3, 2});
  Tensor shape = I64({2}, {3, 2});
  ASSERT_TRUE(RunOp(TSR_OP_RESHAPE, Attrs(), {x, shape}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, 2, 3, 4, 5, 6}));
  Tensor u = Empty(TSR_DTYPE_I64, {1, 6, 1});
  ASSERT_TRUE(RunOp(TSR_OP_UNSQUEEZE, Attrs(), {x}, u).ok());
  Tensor s = Empty(TSR_DTYPE_I64, {6});
  ASSERT_TRUE(RunOp(TSR_OP_SQUEEZE, Attrs(), {u}, s).ok());
  EXPECT_EQ(Ints(s), (IV{1, 2, 3, 4, 5, 6}));
  Tensor bad = Empty(TSR_DTYPE_I64, {4});
  EXPECT_EQ(RunOp(TSR_OP_RESHAPE, Attrs(), {x}, bad).code(), absl::StatusCode::kInvalidArgument);
  Tensor f = Empty(TSR_DTYPE_F32, {6});
  EXPECT_EQ(RunOp(TSR_OP_RESHAPE, Attrs(), {x}, f).code(), absl::StatusCode::kInvalidArgument);
}

TEST(TransposeTest, DefaultAndPerm) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6}), y = Empty(TSR_DTYPE_F32, {3, 2});
  ASSERT_TRUE(RunOp(TSR_OP_TRANSPOSE, Attrs(), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 4, 2, 5, 3, 6}));
  // [2,3,4] with perm [1,2,0] -> [3,4,2]; y[j,k,i] = x[i,j,k] = 12i+4j+k.
  V xv(24);
  for (int i = 0; i < 24; ++i) xv[i] = i;
  Tensor x3 = F16({2, 3, 4}, xv), y3 = Empty(TSR_DTYPE_F16, {3, 4, 2});
  Attributes a;
  a.SetInts(TSR_ATTR_PERM, {1, 2, 0});
  ASSERT_TRUE(RunOp(TSR_OP_TRANSPOSE, a, {x3}, y3).ok());
  const V v = Values(y3);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(v[(j * 4 + k) * 2 + i], 12 * i + 4 * j + k);
  Attributes bad;
  bad.SetInts(TSR_ATTR_PERM, {0, 0});
  EXPECT_EQ(RunOp(TSR_OP_TRANSPOSE, bad, {x}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor wrong = Empty(TSR_DTYPE_F32, {2, 3});
  EXPECT_EQ(RunOp(TSR_OP_TRANSPOSE, Attrs(), {x}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ConcatTest, Axes) {
  Tensor a = I32({2, 1}, {1, 2}), b = I32({2, 2}, {3, 4, 5, 6});
  Tensor y = Empty(TSR_DTYPE_I32, {2, 3});
  Attributes ax;
  ax.SetInts(TSR_ATTR_AXIS, {-1});
  ASSERT_TRUE(RunOp(TSR_OP_CONCAT, ax, {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{1, 3, 4, 2, 5, 6}));
  Tensor y0 = Empty(TSR_DTYPE_I32, {4, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONCAT, Attrs(), {b, b}, y0).ok());
  EXPECT_EQ(Ints(y0), (IV{3, 4, 5, 6, 3, 4, 5, 6}));
  Tensor single = Empty(TSR_DTYPE_I32, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONCAT, Attrs(), {b}, single).ok());
  EXPECT_EQ(RunOp(TSR_OP_CONCAT, Attrs(), {a, b}, y0).code(), absl::StatusCode::kInvalidArgument);
  Tensor f = F32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(RunOp(TSR_OP_CONCAT, Attrs(), {b, f}, y0).code(), absl::StatusCode::kInvalidArgument);
}

TEST(GatherTest, OnnxExamples) {
  // ONNX Gather example 1 (axis 0).
  Tensor data = F32({3, 2}, {1.0, 1.2, 2.3, 3.4, 4.5, 5.7});
  Tensor ind = I64({2, 2}, {0, 1, 1, 2});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_GATHER, Attrs(), {data, ind}, y).ok());
  EXPECT_EQ(Values(y), Values(F32({8}, {1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7})));
  // Example 2 (axis 1), with a negative index: -1 == 2.
  Tensor d2 = F32({3, 3}, {1.0, 1.2, 1.9, 2.3, 3.4, 3.9, 4.5, 5.7, 5.9});
  Tensor i2 = I32({1, 2}, {0, -1});
  Tensor y2 = Empty(TSR_DTYPE_F32, {3, 1, 2});
  Attributes a;
  a.SetInts(TSR_ATTR_AXIS, {1});
  ASSERT_TRUE(RunOp(TSR_OP_GATHER, a, {d2, i2}, y2).ok());
  EXPECT_EQ(Values(y2), Values(F32({6}, {1.0, 1.9, 2.3, 3.9, 4.5, 5.9})));
  // Scalar index drops the axis.
  Tensor s = I64({}, {1}), ys = Empty(TSR_DTYPE_F32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_GATHER, Attrs(), {data, s}, ys).ok());
  EXPECT_EQ(Values(ys), Values(F32({2}, {2.3, 3.4})));
  Tensor oob = I64({1}, {3}), y1 = Empty(TSR_DTYPE_F32, {1, 2});
  absl::Status st = RunOp(TSR_OP_GATHER, Attrs(), {data, oob}, y1);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  Tensor fi = F32({1}, {0});
  EXPECT_EQ(RunOp(TSR_OP_GATHER, Attrs(), {data, fi}, y1).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
