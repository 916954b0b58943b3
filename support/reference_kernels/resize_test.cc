// RESIZE against values worked by hand from the ONNX formulas (docs/ops.md).
#include <gtest/gtest.h>

#include "support/reference_kernels/resize_taps.h"
#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;
using V = std::vector<double>;

Attributes ResizeAttrs(int64_t mode, int64_t coord, int64_t nearest = TSR_NEAREST_ROUND_PREFER_FLOOR) {
  Attributes a;
  a.SetInts(TSR_ATTR_RESIZE_MODE, {mode});
  a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
  a.SetInts(TSR_ATTR_NEAREST_MODE, {nearest});
  return a;
}

void ExpectNear(const V& got, const V& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(ResizeTest, LinearHalfPixelUpsample) {
  // x' = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 per axis; the taps
  // outside clamp to the edge (ONNX test_resize_upsample_scales_linear).
  Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor y = Empty(TSR_DTYPE_F32, {1, 1, 4, 4});
  Attributes a = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_HALF_PIXEL);
  a.SetFloats(TSR_ATTR_SCALES, {1, 1, 2, 2});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x}, y).ok());
  ExpectNear(Values(y), {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
}

TEST(ResizeTest, LinearAlignCornersUsesTheRealResizedLength) {
  // Sizes: x' = x (2 - 1) / (4 - 1) = 0, 1/3, 2/3, 1.
  Tensor x = F32({2}, {0, 3});
  Tensor y = Empty(TSR_DTYPE_F32, {4});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_ALIGN_CORNERS), {x}, y).ok());
  ExpectNear(Values(y), {0, 1, 2, 3});
  // Scale 0.6 on 4 elements: 2 outputs, resized length 2.4, so x' = 1 · 3 /
  // 1.4 = 2.142857 (ONNX test_resize_downsample_scales_linear_align_corners).
  Tensor x4 = F32({4}, {1, 2, 3, 4});
  Tensor y2 = Empty(TSR_DTYPE_F32, {2});
  Attributes a = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_ALIGN_CORNERS);
  a.SetFloats(TSR_ATTR_SCALES, {0.6f});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x4}, y2).ok());
  ExpectNear(Values(y2), {1, 1 + 3 / (2.4 - 1)});
}

TEST(ResizeTest, NearestRoundingModes) {
  // Asymmetric, scale 2: x' = 0, 0.5, 1, 1.5, 2, 2.5.
  Tensor x = F32({3}, {10, 20, 30});
  Tensor y = Empty(TSR_DTYPE_F32, {6});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, ResizeAttrs(TSR_RESIZE_NEAREST, TSR_COORD_ASYMMETRIC), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{10, 10, 20, 20, 30, 30}));
  ASSERT_TRUE(
      RunOp(TSR_OP_RESIZE, ResizeAttrs(TSR_RESIZE_NEAREST, TSR_COORD_ASYMMETRIC, TSR_NEAREST_ROUND_PREFER_CEIL), {x}, y)
          .ok());
  EXPECT_EQ(Values(y), (V{10, 20, 20, 30, 30, 30}));  // 2.5 rounds to 3, clamped to 2
  ASSERT_TRUE(
      RunOp(TSR_OP_RESIZE, ResizeAttrs(TSR_RESIZE_NEAREST, TSR_COORD_ASYMMETRIC, TSR_NEAREST_CEIL), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{10, 20, 20, 30, 30, 30}));
  ASSERT_TRUE(
      RunOp(TSR_OP_RESIZE, ResizeAttrs(TSR_RESIZE_NEAREST, TSR_COORD_ASYMMETRIC, TSR_NEAREST_FLOOR), {x}, y).ok());
  EXPECT_EQ(Values(y), (V{10, 10, 20, 20, 30, 30}));
}

TEST(ResizeTest, CubicAndExcludeOutside) {
  // Asymmetric, scale 2: output 3 sits at x' = 1.5 with taps 0..3 weighted
  // k(1.5), k(0.5), k(0.5), k(1.5) = -0.09375, 0.59375, 0.59375, -0.09375
  // (Keys, a = -0.75); output 1 sits at x' = 0.5, taps -1..2, tap -1 outside.
  Tensor x = F32({4}, {0, 1, 0, 0});
  Tensor y = Empty(TSR_DTYPE_F32, {8});
  Attributes a = ResizeAttrs(TSR_RESIZE_CUBIC, TSR_COORD_ASYMMETRIC);
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x}, y).ok());
  V v = Values(y);
  EXPECT_NEAR(v[3], 0.59375, 1e-7);
  EXPECT_NEAR(v[1], 0.59375, 1e-7);  // the clamped tap reads x[0] = 0
  a.SetInts(TSR_ATTR_EXCLUDE_OUTSIDE, {1});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x}, y).ok());
  v = Values(y);
  EXPECT_NEAR(v[1], 0.59375 / 1.09375, 1e-7);  // renormalized without tap -1
  EXPECT_NEAR(v[3], 0.59375, 1e-7);
}

TEST(ResizeTest, CropAndResizeExtrapolates) {
  // ROI [0, 2] on 4 elements, 3 outputs: x' = x · 2 · 3 / 2 = 0, 3, 6.
  Tensor x = F32({4}, {0, 1, 2, 3});
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  Attributes a = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_TF_CROP_AND_RESIZE);
  a.SetFloats(TSR_ATTR_ROI, {0, 2});
  a.SetFloats(TSR_ATTR_EXTRAPOLATION_VALUE, {10});
  ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x}, y).ok());
  EXPECT_EQ(Values(y), (V{0, 3, 10}));
}

// ONNX reads roi only for tf_crop_and_resize. A ROI of any length on
// another transform is ignored: fuzz finding 8 was a one-value ROI on a
// linear resize of rank 1 whose end, roi[rank + d], was read past the
// attribute. The expected values are LinearAlignCornersUsesTheRealResizedLength's.
TEST(ResizeTest, RoiOfAnyLengthIsIgnoredOutsideCropAndResize) {
  Tensor x = F32({2}, {0, 3});
  for (const std::vector<float>& roi : {std::vector<float>{0.5f}, std::vector<float>{0.1f, 0.2f, 0.3f}}) {
    Tensor y = Empty(TSR_DTYPE_F32, {4});
    Attributes a = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_ALIGN_CORNERS);
    a.SetFloats(TSR_ATTR_ROI, roi);
    ASSERT_TRUE(RunOp(TSR_OP_RESIZE, a, {x}, y).ok());
    ExpectNear(Values(y), {0, 1, 2, 3});
    // Dropped at parsing, so the geometry never reads it.
    absl::StatusOr<ResizeParams> p = ParseResizeParams(TSR_OP_RESIZE, a, {2}, {4});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_TRUE(p->roi.empty());
  }
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  Attributes crop = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_TF_CROP_AND_RESIZE);
  crop.SetFloats(TSR_ATTR_ROI, {0.5f});  // one value for rank 1: refused, not read past
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, crop, {F32({4}, {0, 1, 2, 3})}, y).code(), absl::StatusCode::kInvalidArgument);
}

TEST(ResizeTest, BadAttributesAreErrors) {
  Tensor x = F32({4}, {0, 1, 2, 3});
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, ResizeAttrs(7, TSR_COORD_HALF_PIXEL), {x}, y).code(),
            absl::StatusCode::kInvalidArgument);
  Attributes a = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_TF_CROP_AND_RESIZE);  // no ROI
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, a, {x}, y).code(), absl::StatusCode::kInvalidArgument);
  Attributes s = ResizeAttrs(TSR_RESIZE_LINEAR, TSR_COORD_HALF_PIXEL);
  s.SetFloats(TSR_ATTR_SCALES, {0});
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, s, {x}, y).code(), absl::StatusCode::kInvalidArgument);
  Tensor y2 = Empty(TSR_DTYPE_F32, {1, 3});
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, Attrs(), {x}, y2).code(), absl::StatusCode::kInvalidArgument);
  Tensor xi = I32({4}, {0, 1, 2, 3});
  Tensor yi = Empty(TSR_DTYPE_I32, {3});
  EXPECT_EQ(RunOp(TSR_OP_RESIZE, Attrs(), {xi}, yi).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tessera::cpu
