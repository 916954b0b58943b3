// The importer's unrolling and opset limits (docs/onnx_import.md: opsets 6
// through 21, at most 1024 iterations per Loop or Scan, 4096 steps x
// directions per recurrent node, subgraphs at most 16 deep and 200000
// subgraph nodes in all), each at exactly the limit and one past it.
// Values at the limit are computed by hand.
#include <string>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrGraph;
using testing::AttrInt;
using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::OnnxModelBuilder;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

void BoolInit(OnnxModelBuilder& b, const std::string& name, bool v) {
  onnx::TensorProto* t = b.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(kBool);
  t->add_int32_data(v ? 1 : 0);
}

std::string Status(const absl::StatusOr<Graph>& g) { return g.ok() ? "OK" : std::string(g.status().message()); }

// A Loop carrying s, s += x. With `trips` >= 0 the trip count is M =
// trips and the condition stays true; with trips < 0 there is no M and
// the condition after iteration i is i < last, so the body runs last + 1
// times.
std::vector<uint8_t> SumLoop(int64_t trips, int64_t last = 0) {
  OnnxModelBuilder body;
  body.Input("i", kInt64, {});
  body.Input("c_in", kBool, {});
  body.Input("s_in", kFloat, {1});
  if (trips >= 0) {
    body.Node("Identity", {"c_in"}, {"c_out"});
  } else {
    body.Int64Init("last", {}, {last});
    body.Node("Less", {"i", "last"}, {"c_out"});
  }
  body.Node("Add", {"s_in", "x"}, {"s_out"});
  body.Output("c_out");
  body.Output("s_out");
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1});
  b.FloatInit("s0", {1}, {0});
  if (trips >= 0)
    b.Int64Init("m", {}, {trips});
  else
    BoolInit(b, "go", true);
  onnx::NodeProto& n = b.Node("Loop", {trips >= 0 ? "m" : "", trips >= 0 ? "" : "go", "s0"}, {"s"}, "loop0");
  AttrGraph(n, "body", body);
  b.Output("s");
  return b.Bytes();
}

TEST(OnnxImportBounds, LoopOf1024Trips) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SumLoop(1024));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1}, {0.5f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(512.0f));  // 1024 * 0.5
  EXPECT_THAT(Status(ImportOnnxBytes(SumLoop(1025))), HasSubstr("a Loop of 1025 iterations"));
}

// No trip count: 1024 iterations when last = 1023 (the limit), 1025 past it.
TEST(OnnxImportBounds, LoopConditionTrueFor1024Iterations) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SumLoop(-1, 1023));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1}, {0.25f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(256.0f));  // 1024 * 0.25
  EXPECT_THAT(Status(ImportOnnxBytes(SumLoop(-1, 1024))), HasSubstr("stays true past 1024"));
}

// Scan over a [steps, 1] input: the running sum of the rows.
std::vector<uint8_t> SumScan(int64_t steps) {
  OnnxModelBuilder body;
  body.Input("acc", kFloat, {1});
  body.Input("row", kFloat, {1});
  body.Node("Add", {"acc", "row"}, {"acc_out"});
  body.Output("acc_out");
  OnnxModelBuilder b(11);
  b.Input("rows", kFloat, {steps, 1});
  b.FloatInit("zero", {1}, {0});
  onnx::NodeProto& n = b.Node("Scan", {"zero", "rows"}, {"total"}, "scan0");
  AttrGraph(n, "body", body);
  AttrInt(n, "num_scan_inputs", 1);
  b.Output("total");
  return b.Bytes();
}

TEST(OnnxImportBounds, ScanOf1024Steps) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SumScan(1024));
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<float> rows(1024);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i);
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1024, 1}, rows)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(523776.0f));  // 0 + 1 + ... + 1023 = 1023 * 1024 / 2
  EXPECT_THAT(Status(ImportOnnxBytes(SumScan(1025))), HasSubstr("a Scan of 1025 iterations"));
}

// An RNN over X [steps, batch, 1]. The steps check comes before the
// empty-batch refusal (docs/onnx_import.md lists both), so with batch 0
// the limit shows without unrolling 4096 steps: at it, "empty sequence or
// batch"; one past, the unrolling limit.
std::vector<uint8_t> Rnn(int64_t steps, int64_t batch, bool bidirectional) {
  const int64_t dirs = bidirectional ? 2 : 1;
  OnnxModelBuilder b;
  b.Input("x", kFloat, {steps, batch, 1});
  b.FloatInit("w", {dirs, 1, 1}, std::vector<float>(dirs, 1));
  b.FloatInit("r", {dirs, 1, 1}, std::vector<float>(dirs, 0));
  onnx::NodeProto& n = b.Node("RNN", {"x", "w", "r"}, {"y"}, "rnn0");
  AttrInt(n, "hidden_size", 1);
  if (bidirectional) testing::AttrString(n, "direction", "bidirectional");
  b.Output("y");
  return b.Bytes();
}

TEST(OnnxImportBounds, RecurrentNodeOf4096StepsTimesDirections) {
  const std::string empty = "an empty sequence or batch", limit = "unrolling limit of 4096";
  EXPECT_THAT(Status(ImportOnnxBytes(Rnn(4096, 0, false))), HasSubstr(empty));
  EXPECT_THAT(Status(ImportOnnxBytes(Rnn(4097, 0, false))), HasSubstr(limit));
  EXPECT_THAT(Status(ImportOnnxBytes(Rnn(2048, 0, true))), HasSubstr(empty));
  EXPECT_THAT(Status(ImportOnnxBytes(Rnn(2049, 0, true))), HasSubstr(limit));
  // A short sequence imports (the refusals above are the bounds, not RNN).
  EXPECT_EQ(Status(ImportOnnxBytes(Rnn(3, 1, true))), "OK");
}

std::vector<uint8_t> ReluAtOpset(int64_t opset) {
  OnnxModelBuilder b(opset);
  b.Input("x", kFloat, {2});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  return b.Bytes();
}

TEST(OnnxImportBounds, OpsetsSixThrough21) {
  EXPECT_EQ(Status(ImportOnnxBytes(ReluAtOpset(21))), "OK");
  EXPECT_THAT(Status(ImportOnnxBytes(ReluAtOpset(22))), HasSubstr("opset 22 unsupported"));
  EXPECT_EQ(Status(ImportOnnxBytes(ReluAtOpset(6))), "OK");
  EXPECT_THAT(Status(ImportOnnxBytes(ReluAtOpset(5))), HasSubstr("opset 5 unsupported"));
}

// `depth` Ifs nested in then-branches, each on a true constant; the
// innermost branch computes x + 1.
OnnxModelBuilder NestedIf(int depth) {
  OnnxModelBuilder g;
  BoolInit(g, "t" + std::to_string(depth), true);
  onnx::NodeProto& n = g.Node("If", {"t" + std::to_string(depth)}, {"y" + std::to_string(depth)});
  OnnxModelBuilder leaf;
  leaf.FloatInit("one", {}, {1});
  leaf.Node("Add", {"x", "one"}, {"z"});
  leaf.Output("z");
  AttrGraph(n, "then_branch", depth == 1 ? leaf : NestedIf(depth - 1));
  AttrGraph(n, "else_branch", leaf);
  g.Output("y" + std::to_string(depth));
  return g;
}

std::vector<uint8_t> NestedIfModel(int depth) {
  OnnxModelBuilder b = NestedIf(depth);
  b.Input("x", kFloat, {1});
  return b.Bytes();
}

// The main graph is not a subgraph: n nested Ifs import n levels of
// subgraphs (each If's branch), so 16 Ifs are at the limit.
TEST(OnnxImportBounds, SubgraphsNested16Deep) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(NestedIfModel(16));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(3.0f));
  EXPECT_THAT(Status(ImportOnnxBytes(NestedIfModel(17))), HasSubstr("nested deeper than 16"));
}

// The node budget is checked before a subgraph is imported, so an If
// branch of exactly 200000 nodes passes it and fails on its first node, an
// op no opset has; 200001 nodes are refused by the budget.
std::vector<uint8_t> BigBranchModel(int nodes) {
  OnnxModelBuilder branch;
  branch.Node("NoSuchOp", {"x"}, {"t0"});
  onnx::GraphProto* g = branch.model().mutable_graph();
  for (int k = 1; k < nodes; ++k) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Identity");
    n->add_input("t" + std::to_string(k - 1));
    n->add_output("t" + std::to_string(k));
  }
  branch.Output("t" + std::to_string(nodes - 1));
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1});
  BoolInit(b, "yes", true);
  onnx::NodeProto& f = b.Node("If", {"yes"}, {"y"}, "if0");
  AttrGraph(f, "then_branch", branch);
  AttrGraph(f, "else_branch", branch);
  b.Output("y");
  return b.Bytes();
}

TEST(OnnxImportBounds, SubgraphOf200000Nodes) {
  const std::string at = Status(ImportOnnxBytes(BigBranchModel(200000)));
  EXPECT_THAT(at, Not(HasSubstr("more than 200000 nodes")));
  EXPECT_THAT(at, HasSubstr("NoSuchOp"));
  EXPECT_THAT(Status(ImportOnnxBytes(BigBranchModel(200001))), HasSubstr("more than 200000 nodes"));
}

}  // namespace
}  // namespace tessera::onnx_import
