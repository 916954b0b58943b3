// GroupNormalization (18 and 21), Gelu (none, tanh) and Mish import.
// Expected values were evaluated in f64 from the ONNX formulas with
// Python's math module (math.erf, math.tanh, math.log1p), outside Tessera.
#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrString;
using testing::FirstOutputFloats;
using ::testing::FloatNear;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using ::testing::Pointwise;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

absl::StatusOr<Graph> GroupNormModel(int64_t opset, int64_t groups, const std::vector<float>& scale,
                                     const std::vector<float>& bias) {
  OnnxModelBuilder b(opset);
  b.Input("x", kFloat, {1, 4, 2});
  const int64_t n = static_cast<int64_t>(scale.size());
  b.FloatInit("scale", {n}, scale);
  b.FloatInit("bias", {n}, bias);
  AttrInt(b.Node("GroupNormalization", {"x", "scale", "bias"}, {"y"}), "num_groups", groups);
  b.Output("y");
  return ImportOnnxBytes(b.Bytes());
}

// Channels [1, 2], [3, 5], [0, 4], [8, 8]; two groups of two channels.
const std::vector<float> kX = {1, 2, 3, 5, 0, 4, 8, 8};

TEST(OnnxGroupNormImport, Opset18ScalesPerGroup) {
  auto g = GroupNormModel(18, 2, {2, -1}, {0.5f, 1});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(FirstOutputFloats(*g, {FloatTensor({1, 4, 2}, kX)}),
              Pointwise(FloatNear(2e-5f), std::vector<float>{-1.866427f, -0.514183f, 0.838061f, 3.542548f, 2.507556f,
                                                             1.301511f, 0.095466f, 0.095466f}));
}

TEST(OnnxGroupNormImport, Opset21ScalesPerChannel) {
  auto g = GroupNormModel(21, 2, {1, 2, 3, 4}, {0, 1, 0, -1});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(FirstOutputFloats(*g, {FloatTensor({1, 4, 2}, kX)}),
              Pointwise(FloatNear(2e-5f), std::vector<float>{-1.183213f, -0.507091f, 1.338061f, 4.042548f, -4.522668f,
                                                             -0.904534f, 2.618134f, 2.618134f}));
}

TEST(OnnxGroupNormImport, BadGroupsAndScaleSizesSayWhy) {
  auto g = GroupNormModel(21, 3, {1, 1, 1, 1}, {0, 0, 0, 0});
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("divide C = 4"));
  g = GroupNormModel(21, 2, {1, 1}, {0, 0});  // opset 21 wants [C]
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("must have 4 elements"));
}

absl::StatusOr<Graph> UnaryModel(int64_t opset, const std::string& op, const std::string& approximate = "") {
  OnnxModelBuilder b(opset);
  b.Input("x", kFloat, {7});
  onnx::NodeProto& n = b.Node(op, {"x"}, {"y"});
  if (!approximate.empty()) AttrString(n, "approximate", approximate);
  b.Output("y");
  return ImportOnnxBytes(b.Bytes());
}

TEST(OnnxActivationImport, GeluExactAndTanh) {
  const HostTensor x = FloatTensor({7}, {-3, -1, -0.5f, 0, 0.5f, 1, 3});
  auto exact = UnaryModel(20, "Gelu");
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_THAT(FirstOutputFloats(*exact, {x}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{-0.0040497f, -0.1586553f, -0.1542688f, 0, 0.3457312f,
                                                             0.8413447f, 2.9959503f}));
  auto tanh = UnaryModel(20, "Gelu", "tanh");
  ASSERT_TRUE(tanh.ok()) << tanh.status();
  EXPECT_THAT(FirstOutputFloats(*tanh, {x}),
              Pointwise(FloatNear(1e-6f),
                        std::vector<float>{-0.0036374f, -0.158808f, -0.154286f, 0, 0.345714f, 0.841192f, 2.9963626f}));
  auto bad = UnaryModel(20, "Gelu", "sigmoid");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("'none', 'tanh'"));
}

TEST(OnnxActivationImport, MishIncludingOverflowingSoftplus) {
  auto g = UnaryModel(18, "Mish");
  ASSERT_TRUE(g.ok()) << g.status();
  // exp(100) overflows f32: softplus = inf, tanh = 1, y = x exactly.
  EXPECT_THAT(FirstOutputFloats(*g, {FloatTensor({7}, {-20, -1, 0, 1, 5, 100, 2})}),
              Pointwise(FloatNear(1e-6f), std::vector<float>{-4.1223072e-08f, -0.30340146f, 0, 0.86509839f, 4.99955208f,
                                                             100, 1.94395896f}));
}

}  // namespace
}  // namespace tessera::onnx_import
