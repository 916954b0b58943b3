#include "framework/compiler/onnx/passes/import_optimizations.h"

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrFloat;
using ::testing::ElementsAre;
using testing::MaxRelativeDifference;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::SeededFloats;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

// Conv -> BN -> Relu -> Identity -> Div by 2, plus a dead branch and a
// folded shape computation: one model that gives every pass work.
OnnxModelBuilder SmallNet() {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 2, 4, 4});
  b.FloatInit("w", {3, 2, 3, 3}, testing::Floats(SeededFloats({3, 2, 3, 3}, 29)));
  b.FloatInit("s", {3}, {1, 2, 0.5f});
  b.FloatInit("bb", {3}, {0, -1, 1});
  b.FloatInit("m", {3}, {0.1f, 0.2f, -0.3f});
  b.FloatInit("v", {3}, {1, 4, 0.25f});
  b.FloatInit("two", {}, {2});
  b.FloatInit("one", {}, {1});
  b.Node("Conv", {"x", "w"}, {"c"});
  AttrFloat(b.Node("BatchNormalization", {"c", "s", "bb", "m", "v"}, {"bn"}), "epsilon", 1e-5f);
  b.Node("Relu", {"bn"}, {"r"});
  b.Node("Identity", {"r"}, {"i"});
  b.Node("Add", {"two", "one"}, {"three"});  // folds at import
  b.Node("Div", {"i", "three"}, {"y"});
  b.Node("Exp", {"r"}, {"dead"});
  b.Output("y");
  return b;
}

TEST(ImportOptimizations, ReportListsEveryPassInOrder) {
  std::vector<OptimizationStats> report;
  absl::StatusOr<Graph> g = ImportOnnxBytes(SmallNet().Bytes(), {}, "m", &report);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_CONV_2D, TSR_OP_RELU, TSR_OP_MUL));
  std::vector<std::string> names;
  for (const OptimizationStats& s : report) names.push_back(s.pass);
  EXPECT_THAT(names, ElementsAre("constant_folding", "dead_code_elimination", "remove_noops", "fuse_layer_norm",
                                 "fold_batch_norm", "div_to_mul"));
  // The Add of two constants; BN's var + eps, its sqrt and the RESHAPEs of
  // its four parameters to [3, 1, 1].
  EXPECT_EQ(report[0].changed, 7);
  EXPECT_EQ(report[1].changed, 1);  // Exp
  EXPECT_EQ(report[2].changed, 1);  // Identity
  EXPECT_EQ(report[3].changed, 0);
  EXPECT_EQ(report[4].changed, 1);
  EXPECT_EQ(report[4].ops_removed, 4);  // SUB DIV MUL ADD
  EXPECT_EQ(report[5].changed, 1);
  EXPECT_EQ(report[5].ops_removed, 0);
}

TEST(ImportOptimizations, OffKeepsTheGraphAsWrittenAndTheNumbers) {
  ImportOptions off;
  off.optimize = false;
  std::vector<OptimizationStats> report;
  absl::StatusOr<Graph> plain = ImportOnnxBytes(SmallNet().Bytes(), off, "m", &report);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_EQ(report.size(), 1u);  // constant folding is part of conversion
  EXPECT_EQ(report[0].pass, "constant_folding");
  EXPECT_THAT(OpTypes(*plain), ElementsAre(TSR_OP_CONV_2D, TSR_OP_SUB, TSR_OP_DIV, TSR_OP_MUL, TSR_OP_ADD, TSR_OP_RELU,
                                           TSR_OP_RESHAPE, TSR_OP_DIV, TSR_OP_EXP));
  absl::StatusOr<Graph> optimized = ImportOnnxBytes(SmallNet().Bytes());
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  for (uint32_t seed : {1u, 2u, 3u}) {
    absl::StatusOr<double> diff = MaxRelativeDifference(*optimized, *plain, {SeededFloats({1, 2, 4, 4}, seed)});
    ASSERT_TRUE(diff.ok()) << diff.status();
    EXPECT_LT(*diff, 1e-5) << "seed " << seed;
  }
}

}  // namespace
}  // namespace tessera::onnx_import
