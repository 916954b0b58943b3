#include "framework/compiler/onnx/passes/div_to_mul.h"

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

TEST(DivToMul, ConstantDivisorBecomesItsReciprocal) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.FloatInit("c", {3}, {2, -4, 0.1f});
  b.Node("Div", {"x", "c"}, {"y"});
  b.Node("Div", {"c", "x"}, {"z"});  // a runtime divisor stays a DIV
  b.Output("y");
  b.Output("z");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_MUL, TSR_OP_DIV));
  const std::vector<float> x = {1, 2, 3, -4, 5, 6};
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({2, 3}, x)});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> got = Floats((*y)[0]);
  const float c[3] = {2, -4, 0.1f};
  for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(got[i], x[i] / c[i % 3]) << i;
}

TEST(DivToMul, ZeroOrTinyDivisorsAndIntegersStay) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Input("i", onnx::TensorProto::INT32, {2});
  b.FloatInit("zero", {2}, {1, 0});
  b.FloatInit("tiny", {}, {1e-39f});  // 1/c overflows f32
  onnx::TensorProto* two = b.model().mutable_graph()->add_initializer();
  two->set_name("two");
  two->set_data_type(onnx::TensorProto::INT32);
  two->add_int32_data(2);
  b.Node("Div", {"x", "zero"}, {"a"});
  b.Node("Div", {"x", "tiny"}, {"t"});
  b.Node("Div", {"i", "two"}, {"q"});  // integer division truncates: no reciprocal
  b.Output("a");
  b.Output("t");
  b.Output("q");
  ImportOptions o;
  o.optimize = false;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), o);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(DivToMul(*g), 0);
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_DIV, TSR_OP_DIV, TSR_OP_DIV));
}

}  // namespace
}  // namespace tessera::onnx_import
