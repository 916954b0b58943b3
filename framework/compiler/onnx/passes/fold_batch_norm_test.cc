#include "framework/compiler/onnx/passes/fold_batch_norm.h"

#include <cmath>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/reference_kernels/half.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrFloat;
using testing::AttrInt;
using ::testing::Contains;
using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using testing::MaxRelativeDifference;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;
using testing::SeededFloats;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

// BatchNormalization parameters for 3 channels, as initializers.
const std::vector<float> kScale = {1.5f, -0.5f, 2.0f}, kBias = {0.25f, 1.0f, -3.0f};
const std::vector<float> kMean = {0.5f, -1.0f, 2.0f}, kVar = {4.0f, 0.25f, 9.0f};
constexpr float kEps = 1e-3f;

void AddBatchNorm(OnnxModelBuilder& b, const std::string& in, const std::string& out) {
  b.FloatInit("bn_scale", {3}, kScale);
  b.FloatInit("bn_bias", {3}, kBias);
  b.FloatInit("bn_mean", {3}, kMean);
  b.FloatInit("bn_var", {3}, kVar);
  AttrFloat(b.Node("BatchNormalization", {in, "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {out}, "bn"), "epsilon",
            kEps);
}

// The ONNX formula, per channel m: (z - mean) / sqrt(var + eps) * scale + B.
double BatchNormOf(double z, int m) {
  return (z - kMean[m]) / std::sqrt(static_cast<double>(kVar[m]) + kEps) * kScale[m] + kBias[m];
}

ImportOptions AsWritten() {
  ImportOptions o;
  o.optimize = false;
  return o;
}

bool HasArithmetic(const Graph& g) {
  for (const Op& op : g.ops)
    if (op.type == TSR_OP_ADD || op.type == TSR_OP_SUB || op.type == TSR_OP_MUL || op.type == TSR_OP_DIV ||
        op.type == TSR_OP_SQRT)
      return true;
  return false;
}

// 1x1 Conv, 2 -> 3 channels, over a 2x2 image, with a bias; then BN.
OnnxModelBuilder ConvBatchNormModel() {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 2, 2});
  b.FloatInit("w", {3, 2, 1, 1}, {1, 2, -1, 0.5f, 3, -2});
  b.FloatInit("cb", {3}, {0.5f, -0.5f, 1});
  b.Node("Conv", {"x", "w", "cb"}, {"c"}, "conv");
  AddBatchNorm(b, "c", "y");
  b.Output("y");
  return b;
}

TEST(FoldBatchNorm, ConvThenBatchNormLeavesNoRuntimeArithmetic) {
  const OnnxModelBuilder b = ConvBatchNormModel();
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_CONV_2D));
  EXPECT_EQ(g->tensors[g->outputs[0]].name, "y");

  // Against the formula, computed here in f64 from the raw parameters.
  const std::vector<float> x = {1, -2, 0.5f, 3, -1, 4, 2, -0.5f};  // [c][h*w]
  const std::vector<float> w = {1, 2, -1, 0.5f, 3, -2}, cb = {0.5f, -0.5f, 1};
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({1, 2, 2, 2}, x)});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> got = Floats((*y)[0]);
  ASSERT_EQ(got.size(), 12u);
  for (int m = 0; m < 3; ++m)
    for (int p = 0; p < 4; ++p) {
      const double z = w[m * 2] * x[p] + w[m * 2 + 1] * x[4 + p] + cb[m];
      EXPECT_NEAR(got[m * 4 + p], BatchNormOf(z, m), 1e-5) << "channel " << m << " pixel " << p;
    }
}

TEST(FoldBatchNorm, MatchesTheUnfoldedGraph) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 4, 5, 5});
  b.FloatInit("w", {3, 4, 3, 3}, Floats(SeededFloats({3, 4, 3, 3}, 7)));
  onnx::NodeProto& conv = b.Node("Conv", {"x", "w"}, {"c"});  // no bias: the fold adds one
  testing::AttrInts(conv, "pads", {1, 1, 1, 1});
  AddBatchNorm(b, "c", "y");
  b.Output("y");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok() && plain.ok());
  EXPECT_THAT(OpTypes(*folded), ElementsAre(TSR_OP_CONV_2D));
  EXPECT_TRUE(HasArithmetic(*plain));
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({2, 4, 5, 5}, 3)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

TEST(FoldBatchNorm, GemmThenBatchNorm) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 4});
  b.FloatInit("w", {4, 3}, Floats(SeededFloats({4, 3}, 11)));
  b.FloatInit("c", {3}, {1, 2, 3});
  b.Node("Gemm", {"x", "w", "c"}, {"g"});
  AddBatchNorm(b, "g", "y");
  b.Output("y");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok() && plain.ok());
  EXPECT_THAT(OpTypes(*folded), ElementsAre(TSR_OP_FULLY_CONNECTED));
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({2, 4}, 5)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

TEST(FoldBatchNorm, MatMulThenBiasAddBecomesTheMatMulBias) {
  // torch.nn.Linear on a 3-D input exports as MatMul + Add.
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 3, 4});
  b.FloatInit("w", {4, 5}, Floats(SeededFloats({4, 5}, 31)));
  b.FloatInit("bias", {5}, {1, -2, 3, -4, 5});
  b.Node("MatMul", {"x", "w"}, {"m"});
  b.Node("Add", {"m", "bias"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok() && plain.ok());
  ASSERT_THAT(OpTypes(*folded), ElementsAre(TSR_OP_MATMUL));
  EXPECT_EQ(folded->ops[0].inputs.size(), 3u);
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({2, 3, 4}, 37)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-6);
}

TEST(FoldBatchNorm, OneDimensionalConvThroughItsReshape) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 6});
  b.FloatInit("w", {3, 2, 3}, Floats(SeededFloats({3, 2, 3}, 13)));
  b.Node("Conv", {"x", "w"}, {"c"});
  AddBatchNorm(b, "c", "y");
  b.Output("y");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok() && plain.ok());
  EXPECT_FALSE(HasArithmetic(*folded));
  EXPECT_THAT(OpTypes(*folded), Contains(TSR_OP_CONV_2D));
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({1, 2, 6}, 17)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

// An f16 initializer (raw IEEE binary16 bits).
void HalfInit(OnnxModelBuilder& b, const std::string& name, const std::vector<int64_t>& dims,
              const std::vector<float>& values) {
  onnx::TensorProto* t = b.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT16);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw;
  for (float v : values) {
    const uint16_t h = cpu::FloatToHalf(v);
    raw.append(reinterpret_cast<const char*>(&h), 2);
  }
  t->set_raw_data(raw);
}

TEST(FoldBatchNorm, HalfPrecisionConv) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 4, 4});
  HalfInit(b, "w", {3, 2, 3, 3}, Floats(SeededFloats({3, 2, 3, 3}, 41)));
  HalfInit(b, "bn_scale", {3}, kScale);
  HalfInit(b, "bn_bias", {3}, kBias);
  HalfInit(b, "bn_mean", {3}, kMean);
  HalfInit(b, "bn_var", {3}, kVar);
  AttrInt(b.Node("Cast", {"x"}, {"xh"}), "to", onnx::TensorProto::FLOAT16);
  b.Node("Conv", {"xh", "w"}, {"c"});
  AttrFloat(b.Node("BatchNormalization", {"c", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn"}), "epsilon", kEps);
  AttrInt(b.Node("Cast", {"bn"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  b.Output("y");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_THAT(OpTypes(*folded), ElementsAre(TSR_OP_CAST, TSR_OP_CONV_2D, TSR_OP_CAST));
  // Both round to f16 (11 significant bits) at different points: a few
  // f16 ulps apart, |y| up to about 20 here.
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({1, 2, 4, 4}, 43)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-2);
}

TEST(FoldBatchNorm, ConvOutputReadElsewhereIsNotFolded) {
  OnnxModelBuilder b = ConvBatchNormModel();
  b.Node("Relu", {"c"}, {"side"});
  b.Output("side");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(HasArithmetic(*g));  // folding would change what Relu reads
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(FoldBatchNorm(*plain), 0);
}

TEST(FoldBatchNorm, RuntimeParametersAreNotFolded) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 2, 2});
  b.Input("scale", kFloat, {3});  // a runtime input, not a constant
  b.FloatInit("w", {3, 2, 1, 1}, {1, 2, -1, 0.5f, 3, -2});
  b.FloatInit("bn_bias", {3}, kBias);
  b.FloatInit("bn_mean", {3}, kMean);
  b.FloatInit("bn_var", {3}, kVar);
  b.Node("Conv", {"x", "w"}, {"c"});
  b.Node("BatchNormalization", {"c", "scale", "bn_bias", "bn_mean", "bn_var"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  // SUB mean and DIV by the constant stddev fold into the conv; the MUL by
  // the runtime scale (after its RESHAPE to [3, 1, 1]) and the ADD stay.
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_CONV_2D, TSR_OP_RESHAPE, TSR_OP_MUL, TSR_OP_ADD));
}

TEST(FoldBatchNorm, SharedWeightsStayIntact) {
  // Two convs share one weight initializer; each folds its own BN into a
  // new constant, so the other's weights stay intact.
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 2, 2});
  b.FloatInit("w", {3, 2, 1, 1}, {1, 2, -1, 0.5f, 3, -2});
  b.Node("Conv", {"x", "w"}, {"c"});
  AddBatchNorm(b, "c", "y");
  b.Node("Conv", {"x", "w"}, {"raw"});
  b.Output("y");
  b.Output("raw");
  absl::StatusOr<Graph> folded = ImportOnnxBytes(b.Bytes());
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), AsWritten());
  ASSERT_TRUE(folded.ok() && plain.ok());
  EXPECT_THAT(OpTypes(*folded), ElementsAre(TSR_OP_CONV_2D, TSR_OP_CONV_2D));
  absl::StatusOr<double> diff = MaxRelativeDifference(*folded, *plain, {SeededFloats({1, 2, 2, 2}, 19)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

}  // namespace
}  // namespace tessera::onnx_import
