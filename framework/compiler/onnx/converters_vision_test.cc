// Resize / Upsample / ConvTranspose import: the attributes the converters
// write, and values worked by hand from the ONNX formulas.
#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInts;
using testing::AttrString;
using testing::Floats;
using testing::FloatTensor;
using testing::OnnxModelBuilder;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

TEST(OnnxVisionImport, ResizeScalesKeepTheScalesAndFloorTheSize) {
  OnnxModelBuilder b(13);
  b.Input("x", kFloat, {1, 1, 2, 4});
  b.FloatInit("roi", {0}, {});
  b.FloatInit("scales", {4}, {1, 1, 0.6f, 0.6f});
  onnx::NodeProto& n = b.Node("Resize", {"x", "roi", "scales"}, {"y"});
  AttrString(n, "mode", "linear");
  AttrString(n, "coordinate_transformation_mode", "align_corners");
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->ops.size(), 1u);
  const Op& op = g->ops[0];
  EXPECT_EQ(op.type, TSR_OP_RESIZE);
  EXPECT_EQ(op.FindAttr(TSR_ATTR_RESIZE_MODE)->ints, (std::vector<int64_t>{TSR_RESIZE_LINEAR}));
  EXPECT_EQ(op.FindAttr(TSR_ATTR_COORD_TRANSFORM)->ints, (std::vector<int64_t>{TSR_COORD_ALIGN_CORNERS}));
  EXPECT_EQ(op.FindAttr(TSR_ATTR_SCALES)->floats.size(), 4u);
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{1, 1, 1, 2}));  // floor(2·0.6), floor(4·0.6)
  // Width: x' = 1 · 3 / (2.4 − 1) on row 0 = [1, 2, 3, 4].
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ::testing::ElementsAre(1.0f, ::testing::FloatNear(1 + 3 / 1.4f, 1e-5f)));
}

TEST(OnnxVisionImport, ResizeSizesLeaveScalesOut) {
  OnnxModelBuilder b(13);
  b.Input("x", kFloat, {1, 1, 2, 2});
  b.Int64Init("sizes", {4}, {1, 1, 3, 1});
  b.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_SCALES), nullptr);
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{1, 1, 3, 1}));
}

TEST(OnnxVisionImport, ResizeErrorsNameTheProblem) {
  OnnxModelBuilder b(13);  // neither scales nor sizes
  b.Input("x", kFloat, {1, 1, 2, 2});
  b.Node("Resize", {"x"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), ::testing::HasSubstr("scales or sizes"));

  OnnxModelBuilder b2(13);  // runtime sizes
  b2.Input("x", kFloat, {1, 1, 2, 2});
  b2.Input("sizes", onnx::TensorProto::INT64, {4});
  b2.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  b2.Output("y");
  g = ImportOnnxBytes(b2.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);

  OnnxModelBuilder b3(13);  // a mode that does not exist
  b3.Input("x", kFloat, {1, 1, 2, 2});
  b3.FloatInit("scales", {4}, {1, 1, 2, 2});
  onnx::NodeProto& n3 = b3.Node("Resize", {"x", "", "scales"}, {"y"});
  AttrString(n3, "mode", "bicubic");
  b3.Output("y");
  g = ImportOnnxBytes(b3.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);

  OnnxModelBuilder b4(13);  // a scale that leaves no output
  b4.Input("x", kFloat, {1, 1, 2, 2});
  b4.FloatInit("scales", {4}, {1, 1, 0.1f, 1});
  b4.Node("Resize", {"x", "", "scales"}, {"y"});
  b4.Output("y");
  g = ImportOnnxBytes(b4.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OnnxVisionImport, UpsampleNearestRepeats) {
  OnnxModelBuilder b(9);
  b.Input("x", kFloat, {1, 1, 1, 2});
  b.FloatInit("scales", {4}, {1, 1, 1, 3});
  b.Node("Upsample", {"x", "scales"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({1, 1, 1, 2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ::testing::ElementsAre(1, 1, 1, 2, 2, 2));
}

TEST(OnnxVisionImport, ConvTransposeOutputShapeBecomesPadsAndOutputPadding) {
  // Full extent 3·(3−1) + 3 = 9; output_shape 10 asks for one more row at
  // the end (negative total padding), 7 for one cropped row at the end.
  for (const auto& [shape, pads, opad] : std::vector<std::tuple<int64_t, std::vector<int64_t>, std::vector<int64_t>>>{
           {10, {0, 0, 0, 0}, {1, 1}}, {7, {1, 1, 1, 1}, {0, 0}}, {8, {0, 0, 1, 1}, {0, 0}}}) {
    OnnxModelBuilder b(13);
    b.Input("x", kFloat, {1, 1, 3, 3});
    b.FloatInit("w", {1, 2, 3, 3}, std::vector<float>(18, 1.0f));
    onnx::NodeProto& n = b.Node("ConvTranspose", {"x", "w"}, {"y"});
    AttrInts(n, "strides", {3, 3});
    AttrInts(n, "output_shape", {shape, shape});
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_TRUE(g.ok()) << g.status();
    const Op& op = g->ops[0];
    EXPECT_EQ(op.type, TSR_OP_CONV_TRANSPOSE_2D);
    EXPECT_EQ(op.FindAttr(TSR_ATTR_PADS)->ints, pads) << "output_shape " << shape;
    EXPECT_EQ(op.FindAttr(TSR_ATTR_OUTPUT_PADDING)->ints, opad) << "output_shape " << shape;
    EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{1, 2, shape, shape}));
  }
}

TEST(OnnxVisionImport, ConvTransposeBadAttributesAreErrors) {
  OnnxModelBuilder b(13);
  b.Input("x", kFloat, {1, 1, 3, 3});
  b.FloatInit("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  onnx::NodeProto& n = b.Node("ConvTranspose", {"x", "w"}, {"y"});
  AttrInts(n, "strides", {0, 1});
  b.Output("y");
  EXPECT_EQ(ImportOnnxBytes(b.Bytes()).status().code(), absl::StatusCode::kInvalidArgument);

  OnnxModelBuilder b2(13);
  b2.Input("x", kFloat, {1, 1, 3, 3});
  b2.FloatInit("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  onnx::NodeProto& n2 = b2.Node("ConvTranspose", {"x", "w"}, {"y"});
  AttrInts(n2, "pads", {4, 4, 4, 4});  // crops everything
  b2.Output("y");
  EXPECT_EQ(ImportOnnxBytes(b2.Bytes()).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::onnx_import
