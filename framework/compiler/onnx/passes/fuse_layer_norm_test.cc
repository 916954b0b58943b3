#include "framework/compiler/onnx/passes/fuse_layer_norm.h"

#include <cmath>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInts;
using ::testing::ElementsAre;
using testing::Floats;
using testing::MaxRelativeDifference;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;
using testing::SeededFloats;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr float kEps = 1e-5f;
const std::vector<float> kGamma = {1, 0.5f, -2, 3}, kBeta = {0, 1, -1, 0.25f};

struct Decomposition {
  bool square_by_mul = false;  // d * d instead of Pow(d, 2)
  bool affine = true;          // the trailing Mul(gamma) / Add(beta)
  std::vector<int64_t> axes = {-1};
};

// LayerNorm over the last axis of x [2, 3, 4], the way torch.onnx exports
// nn.LayerNorm at opset < 17.
OnnxModelBuilder DecomposedLayerNorm(const Decomposition& d) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 3, 4});
  b.FloatInit("two", {}, {2});
  b.FloatInit("eps", {}, {kEps});
  b.FloatInit("gamma", {4}, kGamma);
  b.FloatInit("beta", {4}, kBeta);
  AttrInts(b.Node("ReduceMean", {"x"}, {"mean"}), "axes", d.axes);
  b.Node("Sub", {"x", "mean"}, {"d"});
  if (d.square_by_mul)
    b.Node("Mul", {"d", "d"}, {"sq"});
  else
    b.Node("Pow", {"d", "two"}, {"sq"});
  AttrInts(b.Node("ReduceMean", {"sq"}, {"var"}), "axes", d.axes);
  b.Node("Add", {"var", "eps"}, {"ve"});
  b.Node("Sqrt", {"ve"}, {"std"});
  b.Node("Div", {"d", "std"}, {d.affine ? "n" : "y"});
  if (d.affine) {
    b.Node("Mul", {"n", "gamma"}, {"scaled"});
    b.Node("Add", {"scaled", "beta"}, {"y"});
  }
  b.Output("y");
  return b;
}

// The LayerNorm formula over rows of 4, in f64.
std::vector<double> LayerNormOf(const std::vector<float>& x, bool affine) {
  std::vector<double> y(x.size());
  for (size_t row = 0; row < x.size() / 4; ++row) {
    double mean = 0, var = 0;
    for (int i = 0; i < 4; ++i) mean += x[row * 4 + i] / 4.0;
    for (int i = 0; i < 4; ++i) var += (x[row * 4 + i] - mean) * (x[row * 4 + i] - mean) / 4.0;
    for (int i = 0; i < 4; ++i) {
      const double n = (x[row * 4 + i] - mean) / std::sqrt(var + kEps);
      y[row * 4 + i] = affine ? n * kGamma[i] + kBeta[i] : n;
    }
  }
  return y;
}

void ExpectFusedAndCorrect(const Decomposition& d) {
  const OnnxModelBuilder b = DecomposedLayerNorm(d);
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_THAT(OpTypes(*g), ElementsAre(TSR_OP_LAYER_NORM));
  const Op& ln = g->ops[0];
  EXPECT_EQ(ln.FindAttr(TSR_ATTR_AXIS)->ints, (std::vector<int64_t>{2}));
  EXPECT_EQ(ln.FindAttr(TSR_ATTR_EPSILON)->floats, (std::vector<float>{kEps}));
  EXPECT_EQ(ln.inputs.size(), d.affine ? 3u : 2u);
  EXPECT_EQ(g->tensors[g->outputs[0]].name, "y");

  const HostTensor x = SeededFloats({2, 3, 4}, 23);
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> got = Floats((*y)[0]);
  const std::vector<double> want = LayerNormOf(Floats(x), d.affine);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;

  ImportOptions as_written;
  as_written.optimize = false;
  absl::StatusOr<Graph> plain = ImportOnnxBytes(b.Bytes(), as_written);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_GE(plain->ops.size(), 7u);
  absl::StatusOr<double> diff = MaxRelativeDifference(*g, *plain, {x});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

TEST(FuseLayerNorm, PyTorchDecompositionBecomesOneOp) { ExpectFusedAndCorrect({}); }

TEST(FuseLayerNorm, SquareByMulWithoutAffine) {
  Decomposition d;
  d.square_by_mul = true;
  d.affine = false;
  ExpectFusedAndCorrect(d);
}

TEST(FuseLayerNorm, PositiveAxesAreTrailingToo) {
  Decomposition d;
  d.axes = {2};
  ExpectFusedAndCorrect(d);
}

TEST(FuseLayerNorm, NonTrailingAxesStay) {
  Decomposition d;
  d.axes = {1};  // normalizing over the middle axis is not LAYER_NORM
  d.affine = false;
  absl::StatusOr<Graph> g = ImportOnnxBytes(DecomposedLayerNorm(d).Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  for (const Op& op : g->ops) EXPECT_NE(op.type, TSR_OP_LAYER_NORM);
}

TEST(FuseLayerNorm, MeanReadElsewhereStays) {
  OnnxModelBuilder b = DecomposedLayerNorm({});
  b.Output("mean");  // the mean is a graph output: the pattern is not self-contained
  ImportOptions as_written;
  as_written.optimize = false;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), as_written);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(FuseLayerNorm(*g), 0);
}

}  // namespace
}  // namespace tessera::onnx_import
