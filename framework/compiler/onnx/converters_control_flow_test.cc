// If inlining, --freeze-input, Loop and Scan unrolling. Expected values are
// written by hand.
#include <cstring>
#include <utility>
#include <vector>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrGraph;
using testing::AttrInt;
using testing::AttrInts;
using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

// A branch computing `out` = x <op> c, reading x from the enclosing graph.
OnnxModelBuilder Branch(const std::string& op, float c, const std::string& out) {
  OnnxModelBuilder g;
  g.FloatInit(out + "_c", {}, {c});
  g.Node(op, {"x", out + "_c"}, {out});
  g.Output(out);
  return g;
}

// y = If(Equal(sr, 16000)) then x + 1 else x * 10.
std::vector<uint8_t> SampleRateModel() {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Input("sr", kInt64, {1});
  b.Int64Init("k16000", {}, {16000});
  b.Node("Equal", {"sr", "k16000"}, {"is16k"});
  onnx::NodeProto& n = b.Node("If", {"is16k"}, {"y"}, "pick");
  AttrGraph(n, "then_branch", Branch("Add", 1, "t"));
  AttrGraph(n, "else_branch", Branch("Mul", 10, "e"));
  b.Output("y");
  return b.Bytes();
}

TEST(OnnxControlFlow, IfOnAConstantConditionIsInlined) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Int64Init("one", {}, {1});
  AttrInt(b.Node("Cast", {"one"}, {"cond"}), "to", kBool);
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if0");
  AttrGraph(n, "then_branch", Branch("Add", 1, "t"));
  AttrGraph(n, "else_branch", Branch("Mul", 10, "e"));
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(OpTypes(*g), ElementsAre(TSR_OP_ADD));
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(2, 3));
}

TEST(OnnxControlFlow, DynamicIfConditionNamesTheInputToFreeze) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SampleRateModel());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'pick' (If): the If condition does not fold to a constant"));
  EXPECT_THAT(g.status().message(), HasSubstr("graph input 'sr'"));
  EXPECT_THAT(g.status().message(), HasSubstr("freeze it with --freeze-input sr=VALUE"));
}

TEST(OnnxControlFlow, FrozenInputSelectsTheBranchAndLeavesTheInputs) {
  for (double sr : {16000.0, 8000.0}) {
    ImportOptions o;
    o.frozen_inputs["sr"] = {sr};
    absl::StatusOr<Graph> g = ImportOnnxBytes(SampleRateModel(), o);
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->inputs.size(), 1u);
    EXPECT_EQ(g->tensors[g->inputs[0]].name, "x");
    EXPECT_EQ(g->FindMetadata("onnx.frozen_inputs"), "1");
    absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2}, {1, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    if (sr == 16000.0)
      EXPECT_THAT(Floats((*out)[0]), ElementsAre(2, 3));
    else
      EXPECT_THAT(Floats((*out)[0]), ElementsAre(10, 20));
  }
}

// y = If(Not(Equal(Cast(sr, FLOAT), 16000))) then x * 10 else x + 1.
std::vector<uint8_t> CastSampleRateModel() {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Input("sr", kInt64, {1});
  AttrInt(b.Node("Cast", {"sr"}, {"sr_f"}), "to", kFloat);
  b.FloatInit("k16000", {}, {16000.0f});
  b.Node("Equal", {"sr_f", "k16000"}, {"is16k"});
  b.Node("Not", {"is16k"}, {"other"});
  onnx::NodeProto& n = b.Node("If", {"other"}, {"y"}, "pick");
  AttrGraph(n, "then_branch", Branch("Mul", 10, "t"));
  AttrGraph(n, "else_branch", Branch("Add", 1, "e"));
  b.Output("y");
  return b.Bytes();
}

TEST(OnnxControlFlow, AConditionComputedFromAValuedInputFoldsAndFreezesIt) {
  // The runner's values (positional_input_values): sr is frozen, the Cast,
  // Equal and Not fold away, and only the taken branch's op is left.
  for (int64_t sr : {16000, 8000}) {
    HostTensor rate{"sr", TSR_DTYPE_I64, {1}, std::vector<uint8_t>(8)};
    std::memcpy(rate.data.data(), &sr, 8);
    ImportOptions o;
    o.positional_input_values = {FloatTensor({2}, {1, 2}), rate};
    absl::StatusOr<Graph> g = ImportOnnxBytes(CastSampleRateModel(), o);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->FindMetadata("onnx.frozen_inputs"), "1");
    ASSERT_EQ(g->inputs.size(), 1u);
    EXPECT_THAT(OpTypes(*g), ElementsAre(sr == 16000 ? TSR_OP_ADD : TSR_OP_MUL));
    absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2}, {1, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    if (sr == 16000)
      EXPECT_THAT(Floats((*out)[0]), ElementsAre(2, 3));
    else
      EXPECT_THAT(Floats((*out)[0]), ElementsAre(10, 20));
  }
  // Without a value the condition still does not fold, and says why.
  absl::StatusOr<Graph> none = ImportOnnxBytes(CastSampleRateModel());
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("the If condition does not fold to a constant"));
}

TEST(OnnxControlFlow, FreezeInputFlagErrors) {
  ImportOptions o;
  EXPECT_FALSE(ParseFreezeInputFlag("sr", o).ok());
  EXPECT_FALSE(ParseFreezeInputFlag("sr=", o).ok());
  EXPECT_FALSE(ParseFreezeInputFlag("sr=16k", o).ok());
  ASSERT_TRUE(ParseFreezeInputFlag("sr=1,2", o).ok());
  absl::StatusOr<Graph> count = ImportOnnxBytes(SampleRateModel(), o);
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.status().message(), HasSubstr("--freeze-input gives 2 values; graph input 'sr' [1] holds 1"));
  ImportOptions other;
  ASSERT_TRUE(ParseFreezeInputFlag("rate=16000", other).ok());
  absl::StatusOr<Graph> name = ImportOnnxBytes(SampleRateModel(), other);
  ASSERT_FALSE(name.ok());
  EXPECT_THAT(name.status().message(), HasSubstr("--freeze-input names 'rate', which is not a graph input"));
}

// Loop(M=3) carrying s: s += x, with s also a scan output.
std::vector<uint8_t> SumLoop(int64_t trips) {
  OnnxModelBuilder body;
  body.Input("i", kInt64, {});
  body.Input("c_in", kBool, {});
  body.Input("s_in", kFloat, {2});
  body.Node("Add", {"s_in", "x"}, {"s_out"});
  body.Node("Identity", {"c_in"}, {"c_out"});
  body.Node("Identity", {"s_out"}, {"scan"});
  body.Output("c_out");
  body.Output("s_out");
  body.Output("scan");
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Int64Init("m", {}, {trips});
  b.FloatInit("s0", {2}, {0, 0});
  onnx::NodeProto& n = b.Node("Loop", {"m", "", "s0"}, {"s", "all"}, "loop0");
  AttrGraph(n, "body", body);
  b.Output("s");
  b.Output("all");
  return b.Bytes();
}

TEST(OnnxControlFlow, LoopWithConstantTripCountIsUnrolled) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SumLoop(3));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(3, 6));
  EXPECT_EQ((*out)[1].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(1, 2, 2, 4, 3, 6));
}

TEST(OnnxControlFlow, LoopPastTheUnrollingLimitIsRefused) {
  absl::StatusOr<Graph> g = ImportOnnxBytes(SumLoop(1000000000));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'loop0' (Loop): a Loop of 1000000000 iterations"));
  EXPECT_THAT(g.status().message(), HasSubstr("unrolling limit is 1024"));
}

// A Scan body: acc += row, also emitted as the scan output.
OnnxModelBuilder RunningSumBody() {
  OnnxModelBuilder body;
  body.Input("acc", kFloat, {2});
  body.Input("row", kFloat, {2});
  body.Node("Add", {"acc", "row"}, {"acc_out"});
  body.Node("Identity", {"acc_out"}, {"elem"});
  body.Output("acc_out");
  body.Output("elem");
  return body;
}

TEST(OnnxControlFlow, ScanRunningSumReversedOutput) {
  const OnnxModelBuilder body = RunningSumBody();
  OnnxModelBuilder b(11);
  b.Input("rows", kFloat, {3, 2});
  b.FloatInit("zero", {2}, {0, 0});
  onnx::NodeProto& n = b.Node("Scan", {"zero", "rows"}, {"total", "partial"}, "scan0");
  AttrGraph(n, "body", body);
  AttrInt(n, "num_scan_inputs", 1);
  AttrInts(n, "scan_output_directions", {1});
  b.Output("total");
  b.Output("partial");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({3, 2}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(9, 12));
  // Partial sums (1,2), (4,6), (9,12), written last-first.
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(9, 12, 4, 6, 1, 2));
}

TEST(OnnxControlFlow, Opset8ScanRunsTheBodyPerBatchEntry) {
  const OnnxModelBuilder body = RunningSumBody();
  OnnxModelBuilder b(8);
  b.Input("rows", kFloat, {2, 2, 2});  // [batch, time, 2]
  b.FloatInit("zero", {2, 2}, {0, 0, 100, 100});
  onnx::NodeProto& n = b.Node("Scan", {"", "zero", "rows"}, {"total", "partial"}, "scan8");
  AttrGraph(n, "body", body);
  AttrInt(n, "num_scan_inputs", 1);
  b.Output("total");
  b.Output("partial");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Entry 0 from (0,0): (1,2), (4,6); entry 1 from (100,100): (105,106), (112,114).
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(4, 6, 112, 114));
  EXPECT_EQ((*out)[1].shape, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_THAT(Floats((*out)[1]), ElementsAre(1, 2, 4, 6, 105, 106, 112, 114));
}

// Truncated and bit-flipped control-flow and recurrent models: any status,
// never a crash (the subgraph, trip-count and gate arithmetic all see
// attacker-chosen values).
TEST(OnnxControlFlow, MalformedModelsNeverCrash) {
  OnnxModelBuilder lstm;
  lstm.Input("x", kFloat, {3, 2, 2});
  lstm.FloatInit("w", {2, 8, 2}, std::vector<float>(32, 0.1f));
  lstm.FloatInit("r", {2, 8, 2}, std::vector<float>(32, 0.1f));
  lstm.FloatInit("h0", {2, 2, 2}, std::vector<float>(8, 0.5f));
  onnx::NodeProto& n = lstm.Node("LSTM", {"x", "w", "r", "", "", "h0"}, {"y", "yh", "yc"}, "l");
  AttrInt(n, "hidden_size", 2);
  testing::AttrString(n, "direction", "bidirectional");
  lstm.Output("y");
  lstm.Output("yc");
  ImportOptions frozen, plain;
  frozen.frozen_inputs["sr"] = {16000};
  const std::vector<std::pair<std::vector<uint8_t>, ImportOptions>> models = {
      {SumLoop(3), plain}, {SampleRateModel(), frozen}, {lstm.Bytes(), plain}};
  for (const auto& [bytes, options] : models) {
    ASSERT_TRUE(ImportOnnxBytes(bytes, options).ok());
    for (size_t k = 0; k < bytes.size(); ++k) {
      (void)ImportOnnxBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + k), options);
      for (uint8_t mask : {uint8_t{0x5a}, uint8_t{0xff}, uint8_t{0x01}}) {
        std::vector<uint8_t> flipped = bytes;
        flipped[k] ^= mask;
        (void)ImportOnnxBytes(flipped, options);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::onnx_import
