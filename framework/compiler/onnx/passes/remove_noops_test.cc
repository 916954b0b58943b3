#include "framework/compiler/onnx/passes/remove_noops.h"

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInt;
using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

absl::StatusOr<Graph> AsWritten(const OnnxModelBuilder& b) {
  ImportOptions o;
  o.optimize = false;
  return ImportOnnxBytes(b.Bytes(), o);
}

TEST(RemoveNoOps, IdentityDropoutCastAndReshapeToTheSameType) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.Int64Init("same", {2}, {2, 3});
  b.Node("Identity", {"x"}, {"i"});
  b.Node("Dropout", {"i"}, {"d"});
  AttrInt(b.Node("Cast", {"d"}, {"c"}), "to", onnx::TensorProto::FLOAT);
  b.Node("Reshape", {"c", "same"}, {"r"});
  b.Node("Relu", {"r"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = AsWritten(b);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RESHAPE, TSR_OP_RESHAPE, TSR_OP_CAST, TSR_OP_RESHAPE, TSR_OP_RELU));
  EXPECT_EQ(RemoveNoOps(*g), 4);
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RELU));
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({2, 3}, {-1, 2, -3, 4, 0, 6})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ElementsAre(0, 2, 0, 4, 0, 6));
}

TEST(RemoveNoOps, GraphOutputKeepsItsNameAndProducer) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {3});
  b.Node("Relu", {"x"}, {"r"});
  b.Node("Identity", {"r"}, {"y"});
  b.Node("Identity", {"x"}, {"passthrough"});  // an input as an output: its copy stays
  b.Output("y");
  b.Output("passthrough");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RELU, TSR_OP_RESHAPE));
  EXPECT_EQ(g->tensors[g->outputs[0]].name, "y");
  EXPECT_EQ(g->tensors[g->outputs[1]].name, "passthrough");
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({3}, {-1, 0, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ElementsAre(0, 0, 2));
  EXPECT_THAT(Floats((*y)[1]), ElementsAre(-1, 0, 2));
}

TEST(RemoveNoOps, ReshapeChainsCollapse) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.Int64Init("flat", {1}, {6});
  b.Int64Init("t", {2}, {3, 2});
  b.Int64Init("axes", {1}, {0});
  b.Node("Reshape", {"x", "flat"}, {"a"});
  b.Node("Reshape", {"a", "t"}, {"b2"});
  b.Node("Unsqueeze", {"b2", "axes"}, {"u"});  // [1, 3, 2]
  b.Node("Squeeze", {"u", "axes"}, {"s"});     // [3, 2]
  b.Node("Neg", {"s"}, {"y"});                 // the chain [2,3] -> [3,2] is one RESHAPE
  b.Node("Reshape", {"a", "flat"}, {"a2"});    // [6] -> [6]: gone
  b.Node("Abs", {"a2"}, {"z"});
  b.Output("y");
  b.Output("z");
  absl::StatusOr<Graph> g = AsWritten(b);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->ops.size(), 7u);
  // Three reshapes re-pointed at their chain's source (two of them then
  // unread and gone), one [6] -> [6] bypassed.
  EXPECT_EQ(RemoveNoOps(*g), 4);
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RESHAPE, TSR_OP_RESHAPE, TSR_OP_NEG, TSR_OP_ABS));
  // Every reshape now reads x itself.
  EXPECT_EQ(g->ops[0].inputs[0], g->inputs[0]);
  EXPECT_EQ(g->ops[1].inputs[0], g->inputs[0]);
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({2, 3}, {1, -2, 3, -4, 5, -6})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ElementsAre(-1, 2, -3, 4, -5, 6));
  EXPECT_THAT(Floats((*y)[1]), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{3, 2}));
}

TEST(RemoveNoOps, RealCastsStay) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {3});
  AttrInt(b.Node("Cast", {"x"}, {"i"}), "to", onnx::TensorProto::INT32);
  b.Output("i");
  absl::StatusOr<Graph> g = AsWritten(b);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(RemoveNoOps(*g), 0);
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_CAST));
}

}  // namespace
}  // namespace tessera::onnx_import
