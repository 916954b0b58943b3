#include "framework/compiler/onnx/passes/dead_code_elimination.h"

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using ::testing::ElementsAre;
using testing::OnnxModelBuilder;
using testing::OpTypes;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

TEST(DeadCodeElimination, RemovesChainsNobodyReads) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {4});
  b.Node("Relu", {"x"}, {"y"});
  b.Node("Exp", {"x"}, {"e"});  // dead, and
  b.Node("Log", {"e"}, {"l"});  // what reads it is dead too
  b.Int64Init("parts", {2}, {1, 3});
  b.Node("Split", {"x", "parts"}, {"head", "tail"});
  b.Node("Neg", {"tail"}, {"n"});
  b.Output("y");
  b.Output("n");
  ImportOptions as_written;
  as_written.optimize = false;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), as_written);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->ops.size(), 6u);         // RELU EXP LOG SLICE SLICE NEG
  EXPECT_EQ(EliminateDeadCode(*g), 3);  // EXP, LOG and the unused SLICE
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RELU, TSR_OP_SLICE, TSR_OP_NEG));
  EXPECT_EQ(EliminateDeadCode(*g), 0);
}

TEST(DeadCodeElimination, RunsAtImport) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {4});
  b.Node("Sigmoid", {"x"}, {"unused"});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  std::vector<OptimizationStats> report;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), {}, "m", &report);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_RELU));
  ASSERT_GE(report.size(), 2u);
  EXPECT_EQ(report[1].pass, "dead_code_elimination");
  EXPECT_EQ(report[1].changed, 1);
  EXPECT_EQ(report[1].ops_removed, 1);
}

}  // namespace
}  // namespace tessera::onnx_import
