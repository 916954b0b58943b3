#include "framework/core/graph/shape_inference.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using Shape = std::vector<int64_t>;
using Attrs = std::map<int32_t, Attribute>;

std::optional<TensorType> T(Shape s, int32_t dtype = TSR_DTYPE_F32) { return TensorType{dtype, std::move(s)}; }
Attribute I(std::vector<int64_t> v) { return Attribute{std::move(v), {}}; }

// Output 0 of `op`, or the error text.
absl::StatusOr<TensorType> Infer(int32_t op, std::vector<std::optional<TensorType>> in, Attrs attrs = {},
                                 std::optional<int32_t> dtype = std::nullopt) {
  absl::StatusOr<std::vector<TensorType>> out = InferOutputTypes(op, in, attrs, dtype);
  if (!out.ok()) return out.status();
  if (out->size() != 1) return absl::InternalError("expected one output");
  return (*out)[0];
}

Shape ShapeOf(int32_t op, std::vector<std::optional<TensorType>> in, Attrs attrs = {}) {
  absl::StatusOr<TensorType> t = Infer(op, std::move(in), std::move(attrs));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? t->shape : Shape{-999};
}

std::string ErrorOf(int32_t op, std::vector<std::optional<TensorType>> in, Attrs attrs = {}) {
  absl::StatusOr<TensorType> t = Infer(op, std::move(in), std::move(attrs));
  return t.ok() ? "(no error)" : std::string(t.status().message());
}

// ---------------------------------------------------------------------------

TEST(ShapeInferenceTest, BroadcastShapes) {
  EXPECT_EQ(*BroadcastShapes({2, 3}, {2, 3}), (Shape{2, 3}));
  EXPECT_EQ(*BroadcastShapes({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
  EXPECT_EQ(*BroadcastShapes({}, {5, 6}), (Shape{5, 6}));
  EXPECT_EQ(*BroadcastShapes({5, 6}, {}), (Shape{5, 6}));
  EXPECT_EQ(*BroadcastShapes({1}, {7}), (Shape{7}));
  EXPECT_EQ(*BroadcastShapes({0, 1}, {1, 3}), (Shape{0, 3}));  // zero-sized dims broadcast like any other
  EXPECT_EQ(*BroadcastShapes({8, 1, 6, 1}, {7, 1, 5}), (Shape{8, 7, 6, 5}));
  absl::StatusOr<Shape> bad = BroadcastShapes({2, 3}, {4, 3});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("[2,3] and [4,3] do not broadcast"));
  EXPECT_FALSE(BroadcastShapes({0}, {2}).ok());
}

TEST(ShapeInferenceTest, ElementwiseAndCompare) {
  EXPECT_EQ(ShapeOf(TSR_OP_ADD, {T({4, 1}), T({3})}), (Shape{4, 3}));
  absl::StatusOr<TensorType> eq = Infer(TSR_OP_EQUAL, {T({2, 2}), T({2})});
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(eq->dtype, TSR_DTYPE_BOOL);
  EXPECT_THAT(ErrorOf(TSR_OP_MUL, {T({2}), T({2}, TSR_DTYPE_I32)}), HasSubstr("dtypes differ"));
  EXPECT_EQ(ShapeOf(TSR_OP_POW, {T({2}), T({}, TSR_DTYPE_I32)}), (Shape{2}));  // POW may mix dtypes
  EXPECT_THAT(ErrorOf(TSR_OP_ADD, {T({2})}), HasSubstr("expects 2..2 inputs"));
  EXPECT_THAT(ErrorOf(TSR_OP_ADD, {T({2}), std::nullopt}), HasSubstr("required input 1 is missing"));
  absl::StatusOr<TensorType> sel = Infer(TSR_OP_SELECT, {T({2, 1}, TSR_DTYPE_BOOL), T({3}), T({1, 3})});
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_EQ(sel->shape, (Shape{2, 3}));
  EXPECT_THAT(ErrorOf(TSR_OP_SELECT, {T({2}), T({2}), T({2})}), HasSubstr("condition must be bool"));
  EXPECT_EQ(ShapeOf(TSR_OP_RELU, {T({1, 2, 3})}), (Shape{1, 2, 3}));
}

TEST(ShapeInferenceTest, Conv2DOutputSizes) {
  // 1x3x32x32, 8 filters 3x3, stride 1, no pad -> 30x30
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_2D, {T({1, 3, 32, 32}), T({8, 3, 3, 3})}), (Shape{1, 8, 30, 30}));
  // pad 1, stride 2 -> floor((32 + 2 - 3) / 2) + 1 = 16
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_2D, {T({1, 3, 32, 32}), T({8, 3, 3, 3}), T({8})},
                    {{TSR_ATTR_PADS, I({1, 1, 1, 1})}, {TSR_ATTR_STRIDES, I({2, 2})}}),
            (Shape{1, 8, 16, 16}));
  // dilation 2: effective kernel 5 -> 28
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_2D, {T({2, 3, 32, 32}), T({4, 3, 3, 3})}, {{TSR_ATTR_DILATIONS, I({2, 2})}}),
            (Shape{2, 4, 28, 28}));
  // Asymmetric pads and rectangular kernel: H: 10+0+2-3+1 = 10, W: 12+1+0-5+1 = 9
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_2D, {T({1, 2, 10, 12}), T({6, 2, 3, 5})}, {{TSR_ATTR_PADS, I({0, 1, 2, 0})}}),
            (Shape{1, 6, 10, 9}));
  // Depthwise: groups = channels
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_2D, {T({1, 16, 8, 8}), T({16, 1, 3, 3})},
                    {{TSR_ATTR_GROUPS, I({16})}, {TSR_ATTR_PADS, I({1, 1, 1, 1})}}),
            (Shape{1, 16, 8, 8}));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_2D, {T({1, 16, 8, 8}), T({16, 2, 3, 3})}, {{TSR_ATTR_GROUPS, I({16})}}),
              HasSubstr("groups=16"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_2D, {T({1, 3, 8, 8}), T({4, 3, 3, 3}), T({5})}), HasSubstr("bias"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_2D, {T({1, 3, 2, 2}), T({4, 3, 3, 3})}), HasSubstr("window larger"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_2D, {T({3, 8, 8}), T({4, 3, 3, 3})}), HasSubstr("rank 4"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_2D, {T({1, 3, 8, 8}), T({4, 3, 3, 3})}, {{TSR_ATTR_STRIDES, I({0, 1})}}),
              HasSubstr("positive"));
}

TEST(ShapeInferenceTest, PoolOutputSizesIncludingCeilMode) {
  const Attrs k2s2{{TSR_ATTR_KERNEL_SHAPE, I({2, 2})}, {TSR_ATTR_STRIDES, I({2, 2})}};
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 4, 8, 8})}, k2s2), (Shape{1, 4, 4, 4}));
  // 5 with k2 s2: floor -> 2, ceil -> 3
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 4, 5, 5})}, k2s2), (Shape{1, 4, 2, 2}));
  Attrs ceil = k2s2;
  ceil[TSR_ATTR_CEIL_MODE] = I({1});
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 4, 5, 5})}, ceil), (Shape{1, 4, 3, 3}));
  // Exact fit: ceil mode changes nothing.
  EXPECT_EQ(ShapeOf(TSR_OP_AVG_POOL_2D, {T({1, 4, 8, 8})}, ceil), (Shape{1, 4, 4, 4}));
  // k3 s2 pad 1 on 6: floor((6+2-3)/2)+1 = 3; ceil -> 4, but the 4th window
  // would start at 6 >= 6 + 1 (pad begin)? no (6 < 7), so it stays: 4.
  Attrs k3s2p1{{TSR_ATTR_KERNEL_SHAPE, I({3, 3})}, {TSR_ATTR_STRIDES, I({2, 2})}, {TSR_ATTR_PADS, I({1, 1, 1, 1})}};
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 6, 6})}, k3s2p1), (Shape{1, 1, 3, 3}));
  k3s2p1[TSR_ATTR_CEIL_MODE] = I({1});
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 6, 6})}, k3s2p1), (Shape{1, 1, 4, 4}));
  // k2 s2 pad 1 on 4 with ceil: ceil((4+2-2)/2)+1 = 3; the 3rd window starts
  // at 4, inside the input+begin pad (4 < 5): kept -> 3 (PyTorch agrees).
  Attrs k2s2p1{{TSR_ATTR_KERNEL_SHAPE, I({2, 2})},
               {TSR_ATTR_STRIDES, I({2, 2})},
               {TSR_ATTR_PADS, I({1, 1, 1, 1})},
               {TSR_ATTR_CEIL_MODE, I({1})}};
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 4, 4})}, k2s2p1), (Shape{1, 1, 3, 3}));
  // k3 s3 on 7, ceil: ceil(4/3)+1 = 3; the 3rd window starts at 6 < 7: kept.
  Attrs k3s3{{TSR_ATTR_KERNEL_SHAPE, I({3, 3})}, {TSR_ATTR_STRIDES, I({3, 3})}, {TSR_ATTR_CEIL_MODE, I({1})}};
  EXPECT_EQ(ShapeOf(TSR_OP_AVG_POOL_2D, {T({1, 1, 7, 7})}, k3s3), (Shape{1, 1, 3, 3}));
  // k1 s2 pad 1 on 2 (pad total 2), ceil: span 3 -> ceil(3/2)+1 = 3; the 3rd
  // window starts at 4 >= 2 + 1, entirely in the trailing pad: dropped -> 2.
  Attrs k1s2p1{{TSR_ATTR_KERNEL_SHAPE, I({1, 1})},
               {TSR_ATTR_STRIDES, I({2, 2})},
               {TSR_ATTR_PADS, I({1, 1, 1, 1})},
               {TSR_ATTR_CEIL_MODE, I({1})}};
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 2, 2})}, k1s2p1), (Shape{1, 1, 2, 2}));
  // Pool keeps channels; needs a kernel.
  EXPECT_THAT(ErrorOf(TSR_OP_MAX_POOL_2D, {T({1, 4, 8, 8})}), HasSubstr("kernel_shape"));
  EXPECT_EQ(ShapeOf(TSR_OP_GLOBAL_AVG_POOL, {T({2, 5, 7, 9})}), (Shape{2, 5, 1, 1}));
  EXPECT_THAT(ErrorOf(TSR_OP_GLOBAL_AVG_POOL, {T({2, 5})}), HasSubstr("rank"));
}

TEST(ShapeInferenceTest, MatMulBatching) {
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({2, 3}), T({3, 4})}), (Shape{2, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({5, 2, 3}), T({3, 4})}), (Shape{5, 2, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({5, 1, 2, 3}), T({7, 3, 4})}), (Shape{5, 7, 2, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({3}), T({3, 4})}), (Shape{4}));  // vector @ matrix
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({2, 3}), T({3})}), (Shape{2}));  // matrix @ vector
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({3}), T({3})}), (Shape{}));      // dot product
  EXPECT_EQ(ShapeOf(TSR_OP_MATMUL, {T({6, 2, 3}), T({3})}), (Shape{6, 2}));
  EXPECT_THAT(ErrorOf(TSR_OP_MATMUL, {T({2, 3}), T({4, 5})}), HasSubstr("inner dimensions differ: 3 vs 4"));
  EXPECT_THAT(ErrorOf(TSR_OP_MATMUL, {T({2, 2, 3}), T({4, 3, 5})}), HasSubstr("do not broadcast"));
  EXPECT_THAT(ErrorOf(TSR_OP_MATMUL, {T({}), T({3})}), HasSubstr("rank >= 1"));
  // Fully connected: y = x W^T.
  EXPECT_EQ(ShapeOf(TSR_OP_FULLY_CONNECTED, {T({4, 16}), T({8, 16}), T({8})}), (Shape{4, 8}));
  EXPECT_THAT(ErrorOf(TSR_OP_FULLY_CONNECTED, {T({4, 16}), T({16, 8})}), HasSubstr("do not fit"));
}

TEST(ShapeInferenceTest, SliceIncludingNegativeSteps) {
  auto slice = [](Shape in, Shape starts, Shape ends, Shape axes, Shape steps) {
    Attrs a{{TSR_ATTR_STARTS, I(starts)}, {TSR_ATTR_ENDS, I(ends)}};
    if (!axes.empty()) a[TSR_ATTR_AXES] = I(axes);
    if (!steps.empty()) a[TSR_ATTR_STEPS] = I(steps);
    return ShapeOf(TSR_OP_SLICE, {T(in)}, a);
  };
  EXPECT_EQ(slice({10, 8}, {2}, {7}, {}, {}), (Shape{5, 8}));
  EXPECT_EQ(slice({10, 8}, {1}, {8}, {1}, {3}), (Shape{10, 3}));                  // 1,4,7
  EXPECT_EQ(slice({10}, {-3}, {100}, {}, {}), (Shape{3}));                        // clamped end
  EXPECT_EQ(slice({10}, {9}, {-11}, {}, {-1}), (Shape{10}));                      // full reverse
  EXPECT_EQ(slice({10}, {-1}, {-9223372036854775807LL}, {}, {-1}), (Shape{10}));  // INT64_MIN-ish end
  EXPECT_EQ(slice({10}, {8}, {1}, {}, {-3}), (Shape{3}));                         // 8,5,2
  EXPECT_EQ(slice({10}, {100}, {0}, {}, {-2}), (Shape{5}));                       // start clamps to 9: 9,7,5,3,1
  EXPECT_EQ(slice({10}, {-1}, {-1}, {}, {-1}), (Shape{0}));                       // empty
  EXPECT_EQ(slice({10}, {2}, {5}, {}, {-1}), (Shape{0}));                         // wrong direction: empty
  EXPECT_EQ(slice({4, 6}, {0, -1}, {4, 0}, {-2, -1}, {1, -2}), (Shape{4, 3}));    // negative axes: 5,3,1
  EXPECT_THAT(
      ErrorOf(TSR_OP_SLICE, {T({10})}, {{TSR_ATTR_STARTS, I({0})}, {TSR_ATTR_ENDS, I({5})}, {TSR_ATTR_STEPS, I({0})}}),
      HasSubstr("step must not be 0"));
  EXPECT_THAT(ErrorOf(TSR_OP_SLICE, {T({10})}, {{TSR_ATTR_STARTS, I({0, 1})}, {TSR_ATTR_ENDS, I({5})}}),
              HasSubstr("differ in length"));
  EXPECT_THAT(
      ErrorOf(TSR_OP_SLICE, {T({10})}, {{TSR_ATTR_STARTS, I({0})}, {TSR_ATTR_ENDS, I({5})}, {TSR_ATTR_AXES, I({1})}}),
      HasSubstr("axis 1 out of range"));
}

// Attributes come from model files: arithmetic on them that overflowed
// int64 (undefined behaviour, then a wrong shape) is an error or exact.
TEST(ShapeInferenceTest, ExtremeAttributesNeverOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto slice = [](Shape in, int64_t start, int64_t end, int64_t step) {
    return ShapeOf(TSR_OP_SLICE, {T(in)},
                   {{TSR_ATTR_STARTS, I({start})}, {TSR_ATTR_ENDS, I({end})}, {TSR_ATTR_STEPS, I({step})}});
  };
  EXPECT_EQ(slice({10}, 0, 10, kMax), (Shape{1}));   // (10 + kMax - 1) overflowed
  EXPECT_EQ(slice({10}, 9, -11, kMin), (Shape{1}));  // -kMin overflowed
  EXPECT_EQ(slice({10}, 3, 10, 3), (Shape{3}));      // 3, 6, 9
  const Attrs huge_dilation{{TSR_ATTR_KERNEL_SHAPE, I({3, 3})}, {TSR_ATTR_DILATIONS, I({kMax, 1})}};
  EXPECT_THAT(ErrorOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 4, 4})}, huge_dilation), HasSubstr("overflows"));
  const Attrs huge_pads{{TSR_ATTR_KERNEL_SHAPE, I({1, 1})}, {TSR_ATTR_PADS, I({kMax, 0, kMax, 0})}};
  EXPECT_THAT(ErrorOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 4, 4})}, huge_pads), HasSubstr("overflows"));
  // Huge strides with ceil mode: ceil(span / stride) without span + stride - 1.
  const Attrs huge_stride{
      {TSR_ATTR_KERNEL_SHAPE, I({1, 1})}, {TSR_ATTR_STRIDES, I({kMax, kMax})}, {TSR_ATTR_CEIL_MODE, I({1})}};
  EXPECT_EQ(ShapeOf(TSR_OP_MAX_POOL_2D, {T({1, 1, 4, 4})}, huge_stride), (Shape{1, 1, 1, 1}));
  EXPECT_THAT(ErrorOf(TSR_OP_CONCAT, {T({kMax - 1}), T({2})}, {{TSR_ATTR_AXIS, I({0})}}), HasSubstr("overflows"));
  EXPECT_THAT(ErrorOf(TSR_OP_PAD, {T({4})}, {{TSR_ATTR_PADS, I({kMax, 1})}}), HasSubstr("overflows"));
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({4})}, {{TSR_ATTR_SHAPE, I({int64_t{1} << 32, int64_t{1} << 32, -1})}}),
              HasSubstr("overflows"));
}

TEST(ShapeInferenceTest, ReshapeWithMinusOneAndZero) {
  auto reshape = [](Shape in, Shape target) { return ShapeOf(TSR_OP_RESHAPE, {T(in)}, {{TSR_ATTR_SHAPE, I(target)}}); };
  EXPECT_EQ(reshape({2, 3, 4}, {6, 4}), (Shape{6, 4}));
  EXPECT_EQ(reshape({2, 3, 4}, {-1}), (Shape{24}));
  EXPECT_EQ(reshape({2, 3, 4}, {2, -1}), (Shape{2, 12}));
  EXPECT_EQ(reshape({2, 3, 4}, {0, 0, -1}), (Shape{2, 3, 4}));  // 0 copies the input dim
  EXPECT_EQ(reshape({2, 3, 4}, {0, -1, 2}), (Shape{2, 6, 2}));
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({2, 3, 4})}, {{TSR_ATTR_SHAPE, I({})}}), HasSubstr("cannot reshape"));
  EXPECT_EQ(reshape({1}, {}), (Shape{}));  // to a scalar
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({2, 3})}, {{TSR_ATTR_SHAPE, I({-1, -1})}}), HasSubstr("more than one -1"));
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({2, 3})}, {{TSR_ATTR_SHAPE, I({4, -1})}}), HasSubstr("cannot infer"));
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({2, 3})}, {{TSR_ATTR_SHAPE, I({5})}}),
              HasSubstr("cannot reshape [2,3] to [5]"));
  EXPECT_THAT(ErrorOf(TSR_OP_RESHAPE, {T({2, 3})}, {{TSR_ATTR_SHAPE, I({-2, 3})}}), HasSubstr("negative"));
}

TEST(ShapeInferenceTest, Gather) {
  auto gather = [](Shape data, Shape idx, int64_t axis, int32_t idx_dtype = TSR_DTYPE_I64) {
    return Infer(TSR_OP_GATHER, {T(data), T(idx, idx_dtype)}, {{TSR_ATTR_AXIS, I({axis})}});
  };
  EXPECT_EQ(gather({5, 4}, {3}, 0)->shape, (Shape{3, 4}));
  EXPECT_EQ(gather({5, 4}, {2, 3}, 1)->shape, (Shape{5, 2, 3}));
  EXPECT_EQ(gather({5, 4, 6}, {}, 1)->shape, (Shape{5, 6}));  // scalar index drops the axis
  EXPECT_EQ(gather({5, 4, 6}, {7}, -1, TSR_DTYPE_I32)->shape, (Shape{5, 4, 7}));
  EXPECT_EQ(gather({5, 4}, {3}, 0)->dtype, TSR_DTYPE_F32);
  EXPECT_THAT(std::string(gather({5, 4}, {3}, 0, TSR_DTYPE_F32).status().message()), HasSubstr("i32 or i64"));
  EXPECT_THAT(std::string(gather({5, 4}, {3}, 2).status().message()), HasSubstr("out of range"));
}

TEST(ShapeInferenceTest, SqueezeAndUnsqueeze) {
  EXPECT_EQ(ShapeOf(TSR_OP_SQUEEZE, {T({1, 3, 1, 4})}), (Shape{3, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_SQUEEZE, {T({1, 3, 1, 4})}, {{TSR_ATTR_AXES, I({2})}}), (Shape{1, 3, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_SQUEEZE, {T({1, 3, 1, 4})}, {{TSR_ATTR_AXES, I({-2, 0})}}), (Shape{3, 4}));
  EXPECT_THAT(ErrorOf(TSR_OP_SQUEEZE, {T({1, 3})}, {{TSR_ATTR_AXES, I({1})}}), HasSubstr("has size 3, not 1"));
  EXPECT_EQ(ShapeOf(TSR_OP_UNSQUEEZE, {T({3, 4})}, {{TSR_ATTR_AXES, I({0})}}), (Shape{1, 3, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_UNSQUEEZE, {T({3, 4})}, {{TSR_ATTR_AXES, I({-1})}}), (Shape{3, 4, 1}));
  EXPECT_EQ(ShapeOf(TSR_OP_UNSQUEEZE, {T({3, 4})}, {{TSR_ATTR_AXES, I({0, 3})}}), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(ShapeOf(TSR_OP_UNSQUEEZE, {T({})}, {{TSR_ATTR_AXES, I({0})}}), (Shape{1}));
  EXPECT_THAT(ErrorOf(TSR_OP_UNSQUEEZE, {T({3})}, {{TSR_ATTR_AXES, I({1, -2})}}), HasSubstr("repeat"));
  EXPECT_THAT(ErrorOf(TSR_OP_UNSQUEEZE, {T({3})}, {{TSR_ATTR_AXES, I({2})}}), HasSubstr("out of range"));
}

TEST(ShapeInferenceTest, Concat) {
  EXPECT_EQ(ShapeOf(TSR_OP_CONCAT, {T({2, 3}), T({4, 3}), T({1, 3})}, {{TSR_ATTR_AXIS, I({0})}}), (Shape{7, 3}));
  EXPECT_EQ(ShapeOf(TSR_OP_CONCAT, {T({2, 3}), T({2, 5})}, {{TSR_ATTR_AXIS, I({-1})}}), (Shape{2, 8}));
  EXPECT_EQ(ShapeOf(TSR_OP_CONCAT, {T({2, 3})}, {{TSR_ATTR_AXIS, I({1})}}), (Shape{2, 3}));
  EXPECT_THAT(ErrorOf(TSR_OP_CONCAT, {T({2, 3}), T({2, 4})}, {{TSR_ATTR_AXIS, I({0})}}), HasSubstr("dimension 1"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONCAT, {T({2, 3}), T({2, 3}, TSR_DTYPE_I32)}, {{TSR_ATTR_AXIS, I({0})}}),
              HasSubstr("rank or dtype"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONCAT, {T({})}), HasSubstr("scalars"));
}

TEST(ShapeInferenceTest, Pad) {
  EXPECT_EQ(ShapeOf(TSR_OP_PAD, {T({1, 3, 4, 4})}, {{TSR_ATTR_PADS, I({0, 0, 1, 2, 0, 0, 3, 4})}}),
            (Shape{1, 3, 8, 10}));
  EXPECT_EQ(ShapeOf(TSR_OP_PAD, {T({5, 5})}, {{TSR_ATTR_PADS, I({-1, 0, -2, 1})}}), (Shape{2, 6}));  // crop
  EXPECT_THAT(ErrorOf(TSR_OP_PAD, {T({5, 5})}, {{TSR_ATTR_PADS, I({1, 1})}}), HasSubstr("2*rank"));
  EXPECT_THAT(ErrorOf(TSR_OP_PAD, {T({2})}, {{TSR_ATTR_PADS, I({-2, -1})}}), HasSubstr("below zero"));
}

TEST(ShapeInferenceTest, ReduceTransposeAndConversions) {
  EXPECT_EQ(ShapeOf(TSR_OP_REDUCE_MEAN, {T({2, 3, 4})}, {{TSR_ATTR_AXES, I({1})}}), (Shape{2, 1, 4}));
  EXPECT_EQ(ShapeOf(TSR_OP_REDUCE_SUM, {T({2, 3, 4})}, {{TSR_ATTR_AXES, I({-1, 0})}, {TSR_ATTR_KEEP_DIMS, I({0})}}),
            (Shape{3}));
  EXPECT_EQ(ShapeOf(TSR_OP_REDUCE_MAX, {T({2, 3})}, {{TSR_ATTR_KEEP_DIMS, I({0})}}), (Shape{}));
  EXPECT_EQ(ShapeOf(TSR_OP_TRANSPOSE, {T({2, 3, 4})}), (Shape{4, 3, 2}));
  EXPECT_EQ(ShapeOf(TSR_OP_TRANSPOSE, {T({2, 3, 4})}, {{TSR_ATTR_PERM, I({0, 2, 1})}}), (Shape{2, 4, 3}));
  EXPECT_THAT(ErrorOf(TSR_OP_TRANSPOSE, {T({2, 3})}, {{TSR_ATTR_PERM, I({0, 0})}}), HasSubstr("repeats"));
  absl::StatusOr<TensorType> cast = Infer(TSR_OP_CAST, {T({2})}, {}, TSR_DTYPE_I32);
  ASSERT_TRUE(cast.ok());
  EXPECT_EQ(cast->dtype, TSR_DTYPE_I32);
  EXPECT_THAT(std::string(Infer(TSR_OP_QUANTIZE, {T({2})}).status().message()), HasSubstr("output dtype"));
  EXPECT_EQ(Infer(TSR_OP_DEQUANTIZE, {T({2}, TSR_DTYPE_I8)})->dtype, TSR_DTYPE_F32);
  EXPECT_THAT(ErrorOf(TSR_OP_SOFTMAX, {T({2, 3})}, {{TSR_ATTR_AXIS, I({2})}}), HasSubstr("axis 2 out of range"));
  EXPECT_THAT(ErrorOf(TSR_OP_DISPATCH, {T({2})}), HasSubstr("no shape rule"));
  EXPECT_THAT(ErrorOf(9999, {T({2})}), HasSubstr("no shape rule"));
}

// ABI 1.3 ops. CONV_TRANSPOSE_2D: OH = s(H−1) + d(k−1) + 1 + output_padding − pads.
TEST(ShapeInferenceTest, ConvTransposeAndResize) {
  EXPECT_EQ(ShapeOf(TSR_OP_CONV_TRANSPOSE_2D, {T({1, 4, 3, 3}), T({4, 3, 3, 3})},
                    {{TSR_ATTR_STRIDES, I({3, 2})}, {TSR_ATTR_OUTPUT_PADDING, I({1, 1})}, {TSR_ATTR_GROUPS, I({2})}}),
            (Shape{1, 6, 10, 8}));
  EXPECT_EQ(
      ShapeOf(TSR_OP_CONV_TRANSPOSE_2D, {T({1, 1, 3, 3}), T({1, 2, 3, 3}), T({2})}, {{TSR_ATTR_PADS, I({1, 2, 1, 2})}}),
      (Shape{1, 2, 3, 1}));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_TRANSPOSE_2D, {T({1, 1, 3, 3}), T({1, 1, 3, 3})}, {{TSR_ATTR_PADS, I({3, 3, 3, 3})}}),
              HasSubstr("empty output"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_TRANSPOSE_2D, {T({1, 1, 3, 3}), T({1, 1, 3, 3})},
                      {{TSR_ATTR_STRIDES, I({int64_t{1} << 62, 1})}}),
              HasSubstr("2^31"));
  EXPECT_THAT(ErrorOf(TSR_OP_CONV_TRANSPOSE_2D, {T({1, 3, 3, 3}), T({3, 1, 3, 3})}, {{TSR_ATTR_GROUPS, I({2})}}),
              HasSubstr("groups=2"));
  EXPECT_EQ(ShapeOf(TSR_OP_RESIZE, {T({1, 3, 4, 4})}, {{TSR_ATTR_SHAPE, I({1, 3, 8, 2})}}), (Shape{1, 3, 8, 2}));
  EXPECT_THAT(ErrorOf(TSR_OP_RESIZE, {T({1, 3, 4, 4})}, {{TSR_ATTR_SHAPE, I({8, 2})}}), HasSubstr("one size per axis"));
  EXPECT_THAT(ErrorOf(TSR_OP_RESIZE, {T({4})}, {{TSR_ATTR_SHAPE, I({0})}}), HasSubstr("positive"));
}

}  // namespace
}  // namespace tessera
