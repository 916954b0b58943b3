// The import passes at scale: the work each does grows linearly with the
// graph (counted in op and edge visits, not timed), and a fusion never
// copies a constant once per use.
#include <set>

#include "framework/compiler/onnx/onnx_importer.h"
#include "framework/compiler/onnx/passes/graph_edit.h"
#include "framework/compiler/onnx/passes/import_optimizations.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::MaxRelativeDifference;
using testing::OnnxModelBuilder;
using testing::SeededFloats;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int64_t kWidth = 4;

// `blocks` times Identity -> MatMul(W) -> Add(B) -> Sin -> Div(two), every
// block reading the same three initializers: each pass but fuse_layer_norm
// has one rewrite per block.
std::vector<uint8_t> SharedChain(int blocks) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, kWidth});
  b.FloatInit("W", {kWidth, kWidth}, testing::Floats(SeededFloats({kWidth, kWidth}, 7)));
  b.FloatInit("B", {kWidth}, {0.5f, -0.25f, 0.125f, 1});
  b.FloatInit("two", {}, {2});
  std::string h = "x";
  for (int i = 0; i < blocks; ++i) {
    const std::string p = "b" + std::to_string(i) + "_";
    b.Node("Identity", {h}, {p + "id"});
    b.Node("MatMul", {p + "id", "W"}, {p + "mm"});
    b.Node("Add", {p + "mm", "B"}, {p + "add"});
    b.Node("Sin", {p + "add"}, {p + "sin"});
    h = i + 1 == blocks ? "y" : p + "div";
    b.Node("Div", {p + "sin", "two"}, {h});
  }
  b.Output("y");
  return b.Bytes();
}

struct Imported {
  Graph graph;
  int64_t work = 0;
};

Imported Import(int blocks) {
  ImportPassWork() = 0;
  absl::StatusOr<Graph> g = ImportOnnxBytes(SharedChain(blocks));
  EXPECT_TRUE(g.ok()) << g.status();
  return {g.ok() ? std::move(*g) : Graph{}, ImportPassWork()};
}

TEST(ImportScale, PassWorkGrowsLinearlyWithTheGraph) {
  // Five passes each sweep the graph a bounded number of times: at least
  // one visit per op, and ten times the blocks is at most ~ten times the
  // work. A pass that rescans the graph after each of its n rewrites does
  // ~n^2 / 2 work, i.e. a hundred times the work here.
  const Imported small = Import(100);
  const Imported large = Import(1000);
  ASSERT_EQ(small.graph.ops.size(), 300u);  // MatMul(+bias), Sin, Mul per block
  ASSERT_EQ(large.graph.ops.size(), 3000u);
  EXPECT_GE(small.work, 500);  // the 500 ops converted, each visited at least once
  EXPECT_LE(large.work, 11 * small.work) << "small " << small.work << ", large " << large.work;
}

TEST(ImportScale, SharedConstantsStayShared) {
  constexpr int kBlocks = 50;
  const Imported in = Import(kBlocks);
  std::set<int32_t> constants;
  int matmuls = 0;
  for (const Op& op : in.graph.ops) {
    matmuls += op.type == TSR_OP_MATMUL;
    for (int32_t t : op.inputs)
      if (t >= 0 && in.graph.tensors[t].is_constant) constants.insert(t);
  }
  EXPECT_EQ(matmuls, kBlocks);  // each Add folded into its MatMul
  // One weight (folding + B leaves W as is), one bias made of B, one
  // reciprocal of two: however many ops read them.
  EXPECT_EQ(constants.size(), 3u);

  ImportOptions off;
  off.optimize = false;
  absl::StatusOr<Graph> plain = ImportOnnxBytes(SharedChain(kBlocks), off);
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<double> diff = MaxRelativeDifference(in.graph, *plain, {SeededFloats({1, kWidth}, 3)});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_LT(*diff, 1e-5);
}

}  // namespace
}  // namespace tessera::onnx_import
