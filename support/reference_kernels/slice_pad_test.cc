#include <gtest/gtest.h>

#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;
using IV = std::vector<int64_t>;
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

Attributes SliceAttrs(std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes = {},
                      std::vector<int64_t> steps = {}) {
  Attributes a;
  a.SetInts(TSR_ATTR_STARTS, starts);
  a.SetInts(TSR_ATTR_ENDS, ends);
  if (!axes.empty()) a.SetInts(TSR_ATTR_AXES, axes);
  if (!steps.empty()) a.SetInts(TSR_ATTR_STEPS, steps);
  return a;
}

TEST(SliceTest, OnnxExamples) {
  Tensor x = I32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor y = Empty(TSR_DTYPE_I32, {1, 2});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({1, 0}, {2, 3}, {0, 1}, {1, 2}), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{5, 7}));
  Tensor y2 = Empty(TSR_DTYPE_I32, {1, 3});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({0, 1}, {-1, 1000}), {x}, y2).ok());
  EXPECT_EQ(Ints(y2), (IV{2, 3, 4}));
}

TEST(SliceTest, NegativeStepsAndSentinels) {
  Tensor x = I32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor y = Empty(TSR_DTYPE_I32, {2, 4});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({-1}, {kI64Min}, {1}, {-1}), {x}, y).ok());
  EXPECT_EQ(Ints(y), (IV{4, 3, 2, 1, 8, 7, 6, 5}));
  Tensor y2 = Empty(TSR_DTYPE_I32, {2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({1}, {kI64Max}, {-1}, {2}), {x}, y2).ok());
  EXPECT_EQ(Ints(y2), (IV{2, 4, 6, 8}));
  // start beyond the end with step -2: starts clamp to dim-1 = 3 -> {4, 2}.
  Tensor y3 = Empty(TSR_DTYPE_I32, {1, 2});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({0, 100}, {1, -100}, {}, {1, -2}), {x}, y3).ok());
  EXPECT_EQ(Ints(y3), (IV{4, 2}));
  // Empty result.
  Tensor y4 = Empty(TSR_DTYPE_I32, {0, 4});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, SliceAttrs({1}, {1}), {x}, y4).ok());
}

TEST(SliceTest, InputsAndErrors) {
  Tensor x = F32({3}, {1, 2, 3}), y = Empty(TSR_DTYPE_F32, {2});
  Tensor starts = I64({1}, {1}), ends = I64({1}, {3});
  ASSERT_TRUE(RunOp(TSR_OP_SLICE, Attrs(), {x, starts, ends}, y).ok());
  EXPECT_EQ(Values(y), (V{2, 3}));
  EXPECT_EQ(RunOp(TSR_OP_SLICE, SliceAttrs({0}, {3}, {0}, {0}), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // step 0
  EXPECT_EQ(RunOp(TSR_OP_SLICE, SliceAttrs({0}, {3}), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // output shape [3]
  EXPECT_EQ(RunOp(TSR_OP_SLICE, Attrs(), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);  // no starts/ends
}

Attributes PadAttrs(std::vector<int64_t> pads, int64_t mode = TSR_PAD_CONSTANT, float value = 0) {
  Attributes a;
  a.SetInts(TSR_ATTR_PADS, pads);
  a.SetInts(TSR_ATTR_PAD_MODE, {mode});
  a.SetFloats(TSR_ATTR_PAD_VALUE, {value});
  return a;
}

TEST(PadTest, Constant) {
  Tensor x = F32({2, 2}, {1, 2, 3, 4}), y = Empty(TSR_DTYPE_F32, {3, 3});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({1, 0, 0, 1}, TSR_PAD_CONSTANT, 9), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{9, 9, 9, 1, 2, 9, 3, 4, 9}));
  Tensor xi = I32({1}, {5}), yi = Empty(TSR_DTYPE_I32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({1, 1}, TSR_PAD_CONSTANT, 2.7f), {xi}, yi).ok());
  EXPECT_EQ(Ints(yi), (IV{2, 5, 2}));  // value truncated like a cast
}

TEST(PadTest, ReflectEdgeAndCrop) {
  Tensor x = F32({3}, {1, 2, 3}), y = Empty(TSR_DTYPE_F32, {7});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({2, 2}, TSR_PAD_REFLECT), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{3, 2, 1, 2, 3, 2, 1}));
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({2, 2}, TSR_PAD_EDGE), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{1, 1, 1, 2, 3, 3, 3}));
  Tensor yc = Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({-1, 1}), {x}, yc).ok());
  EXPECT_EQ(Values(yc), (V{2, 3, 0}));
  // ONNX test_reflect_pad: pads [0,2,0,0] on [3,2].
  Tensor x2 = F32({3, 2}, {1.0, 1.2, 2.3, 3.4, 4.5, 5.7});
  Tensor y2 = Empty(TSR_DTYPE_F32, {3, 4});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, PadAttrs({0, 2, 0, 0}, TSR_PAD_REFLECT), {x2}, y2).ok());
  EXPECT_EQ(Values(y2), Values(F32({12}, {1.0, 1.2, 1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7, 4.5, 5.7})));
}

TEST(PadTest, OnnxInputsAndErrors) {
  Tensor x = U8({2}, {7, 8}), pads = I64({2}, {1, 0}), value = U8({}, {200});
  Tensor y = Empty(TSR_DTYPE_U8, {3});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, Attrs(), {x, pads, value}, y).ok());
  EXPECT_EQ(Ints(y), (IV{200, 7, 8}));
  // Axes input (opset 18): pad only axis 1 of [1,2].
  Tensor x2 = U8({1, 2}, {7, 8}), axes = I64({1}, {-1}), p2 = I64({2}, {0, 1});
  Tensor y2 = Empty(TSR_DTYPE_U8, {1, 3});
  ASSERT_TRUE(RunOp(TSR_OP_PAD, Attrs(), {x2, p2, Absent(), axes}, y2).ok());
  EXPECT_EQ(Ints(y2), (IV{7, 8, 0}));
  EXPECT_EQ(RunOp(TSR_OP_PAD, PadAttrs({1}), {x}, y).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp(TSR_OP_PAD, PadAttrs({-3, 0}), {x}, y).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::cpu
