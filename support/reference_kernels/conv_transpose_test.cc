// CONV_TRANSPOSE_2D against values worked by hand: each input element
// stamps x·W onto the output at (ih·s − pad_top, iw·s − pad_left).
#include <gtest/gtest.h>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;

TEST(ConvTranspose2DTest, OverlappingStampsAndPads) {
  // W = 2x2 ones, stride 1: the full output is 3x3.
  Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4}), w = F32({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 3, 3});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_TRANSPOSE_2D, Attrs(), {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  // Pads [1, 1, 0, 0] crop the first row and column.
  Attributes a;
  a.SetInts(TSR_ATTR_PADS, {1, 1, 0, 0});
  Tensor y2 = Empty(TSR_DTYPE_F32, {1, 1, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_TRANSPOSE_2D, a, {x, w}, y2).ok());
  EXPECT_EQ(Values(y2), (V{10, 6, 7, 4}));
}

TEST(ConvTranspose2DTest, OutputPaddingRowsGetOnlyTheBias) {
  // Stride 2, 2x2 ones: disjoint 2x2 blocks; output padding [1, 1] adds a
  // last row and column that no tap reaches: OH = 2·1 + 1 + 1 + 1 = 5.
  Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4}), w = F32({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor b = F32({1}, {0.5});
  Attributes a;
  a.SetInts(TSR_ATTR_STRIDES, {2, 2});
  a.SetInts(TSR_ATTR_OUTPUT_PADDING, {1, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 5, 5});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_TRANSPOSE_2D, a, {x, w, b}, y).ok());
  EXPECT_EQ(Values(y), (V{1.5, 1.5, 2.5, 2.5, 0.5,  //
                          1.5, 1.5, 2.5, 2.5, 0.5,  //
                          3.5, 3.5, 4.5, 4.5, 0.5,  //
                          3.5, 3.5, 4.5, 4.5, 0.5,  //
                          0.5, 0.5, 0.5, 0.5, 0.5}));
}

TEST(ConvTranspose2DTest, GroupsAndDilations) {
  // Two groups of one channel, W [C=2, M/g=1, 1, 2] with dilation 2: each
  // channel writes x·w0 at column iw and x·w1 at column iw + 2.
  Tensor x = F32({1, 2, 1, 2}, {1, 2, 10, 20}), w = F32({2, 1, 1, 2}, {1, 100, 2, 3});
  Attributes a;
  a.SetInts(TSR_ATTR_GROUPS, {2});
  a.SetInts(TSR_ATTR_DILATIONS, {1, 2});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 2, 1, 4});
  ASSERT_TRUE(RunOp(TSR_OP_CONV_TRANSPOSE_2D, a, {x, w}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 2, 100, 200, 20, 40, 30, 60}));
}

TEST(ConvTranspose2DTest, BadInputsAreErrors) {
  Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4}), w = F32({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 3, 3});
  Attributes big;
  big.SetInts(TSR_ATTR_PADS, {3, 3, 3, 3});  // empty output
  EXPECT_EQ(RunOp(TSR_OP_CONV_TRANSPOSE_2D, big, {x, w}, y).code(), absl::StatusCode::kInvalidArgument);
  Attributes huge;
  huge.SetInts(TSR_ATTR_STRIDES, {int64_t{1} << 40, 1});
  EXPECT_EQ(RunOp(TSR_OP_CONV_TRANSPOSE_2D, huge, {x, w}, y).code(), absl::StatusCode::kInvalidArgument);
  Attributes groups;
  groups.SetInts(TSR_ATTR_GROUPS, {2});  // C = 1
  EXPECT_EQ(RunOp(TSR_OP_CONV_TRANSPOSE_2D, groups, {x, w}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor wrong = Empty(TSR_DTYPE_F32, {1, 1, 4, 4});
  EXPECT_EQ(RunOp(TSR_OP_CONV_TRANSPOSE_2D, Attrs(), {x, w}, wrong).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::cpu
