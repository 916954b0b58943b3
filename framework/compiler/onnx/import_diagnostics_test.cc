// Diagnostics: one import lists every problem of a model, grouped,
// with counts, node names and hints. The models are built by hand, so the
// expected groups are known from their construction.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrGraph;
using testing::AttrInt;
using ::testing::ElementsAre;
using testing::FourProblemModel;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::OnnxModelBuilder;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

// Imports `bytes`, the diagnostics into `found`.
absl::Status Diagnose(const std::vector<uint8_t>& bytes, std::vector<ImportDiagnostic>& found) {
  ImportOptions o;
  o.out_diagnostics = &found;
  return ImportOnnxBytes(bytes, o).status();
}

const ImportDiagnostic* Find(const std::vector<ImportDiagnostic>& all, const std::string& kind,
                             const std::string& op_type) {
  for (const ImportDiagnostic& d : all)
    if (d.kind == kind && d.op_type == op_type) return &d;
  return nullptr;
}

TEST(ImportDiagnostics, OneImportReportsEveryProblemWithCountsAndHints) {
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(FourProblemModel(), found);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.code(), absl::StatusCode::kUnimplemented);
  ASSERT_EQ(found.size(), 5u);  // four problems, then the node they leave unchecked

  const ImportDiagnostic* frob = Find(found, "unsupported_op", "Frobnicate");
  ASSERT_NE(frob, nullptr);
  EXPECT_EQ(frob->domain, "com.example");
  EXPECT_EQ(frob->count, 2);
  EXPECT_THAT(frob->nodes, ElementsAre("frob1", "frob2"));
  EXPECT_THAT(frob->hint, HasSubstr("without com.example ops"));

  const ImportDiagnostic* ml = Find(found, "unsupported_op", "Normalizer");
  ASSERT_NE(ml, nullptr);
  EXPECT_EQ(ml->domain, "ai.onnx.ml");
  EXPECT_EQ(ml->count, 1);
  EXPECT_THAT(ml->nodes, ElementsAre("norm"));

  const ImportDiagnostic* dynamic = Find(found, "dynamic_input", "");
  ASSERT_NE(dynamic, nullptr);
  EXPECT_EQ(dynamic->count, 1);
  EXPECT_THAT(dynamic->nodes, ElementsAre("x"));
  EXPECT_EQ(dynamic->message, "graph input 'x' [N,4] has dynamic dimensions, and every shape must be static");
  EXPECT_EQ(dynamic->hint, "give it a shape, for example --input-shape x=1,4 (the dynamic dimensions set to 1)");

  // Found although x is dynamic: it was converted with x as [1,4].
  const ImportDiagnostic* bn = Find(found, "unsupported_attribute", "BatchNormalization");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->count, 1);
  EXPECT_THAT(bn->nodes, ElementsAre("bn"));
  EXPECT_EQ(bn->message, "BatchNormalization training_mode=1 unsupported");
  EXPECT_THAT(bn->hint, Not(IsEmpty()));

  EXPECT_EQ(found.back().kind, "unchecked");
  EXPECT_EQ(found.back().count, 1);
  EXPECT_THAT(found.back().nodes, ElementsAre("uses_frob"));

  // The error: one line per group, with its count.
  const std::string m(g.message());
  EXPECT_THAT(m, HasSubstr("4 problems stop the import"));
  EXPECT_THAT(m, HasSubstr("\n  unsupported op com.example::Frobnicate, 2 nodes ('frob1', 'frob2'): "));
  EXPECT_THAT(m, HasSubstr("\n  unsupported op ai.onnx.ml::Normalizer, 1 node ('norm'): "));
  EXPECT_THAT(m, HasSubstr("\n  dynamic inputs, 1 input ('x'): graph input 'x' [N,4] has dynamic dimensions"));
  EXPECT_THAT(m, HasSubstr("\n  unsupported attribute of BatchNormalization, 1 node ('bn'): BatchNormalization "
                           "training_mode=1 unsupported; "));
  EXPECT_THAT(m, HasSubstr("\n  not checked, 1 node ('uses_frob'): "));
  // The CLI still takes shapes from --inputs DIR for it.
  EXPECT_TRUE(IsDynamicInputsError(g));
}

TEST(ImportDiagnostics, ModelThatImportsHasNone) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  std::vector<ImportDiagnostic> found{{"stale"}};
  ASSERT_TRUE(Diagnose(b.Bytes(), found).ok());
  EXPECT_THAT(found, IsEmpty());
}

TEST(ImportDiagnostics, LoneProblemKeepsItsOwnErrorAndGainsAHint) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Node("Frobnicate", {"x"}, {"y"}, "only").set_domain("com.example");
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(),
              HasSubstr("node 'only' (Frobnicate): op com.example::Frobnicate unsupported; only the default ONNX "
                        "domain is converted"));
}

// Two Ifs on the same runtime flag: one group of two, naming the input to
// freeze in a flag that can be pasted.
TEST(ImportDiagnostics, DynamicIfConditionsNameTheInputToFreeze) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Input("use fast", kBool, {1});
  OnnxModelBuilder then_branch, else_branch;
  then_branch.Node("Relu", {"x"}, {"t"});
  then_branch.Output("t");
  else_branch.Node("Neg", {"x"}, {"e"});
  else_branch.Output("e");
  for (const char* name : {"if1", "if2"}) {
    onnx::NodeProto& n = b.Node("If", {"use fast"}, {std::string(name) + "_out"}, name);
    AttrGraph(n, "then_branch", then_branch);
    AttrGraph(n, "else_branch", else_branch);
    b.Output(std::string(name) + "_out");
  }
  b.Node("Frobnicate", {"x"}, {"z"}, "custom").set_domain("com.example");
  b.Output("z");
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(b.Bytes(), found);
  ASSERT_FALSE(g.ok());
  const ImportDiagnostic* cond = Find(found, "dynamic_value", "If");
  ASSERT_NE(cond, nullptr) << g;
  EXPECT_EQ(cond->count, 2);
  EXPECT_THAT(cond->nodes, ElementsAre("if1", "if2"));
  EXPECT_EQ(cond->message, "the If condition does not fold to a constant: it depends on graph input 'use fast'");
  EXPECT_EQ(cond->hint, "freeze it with --freeze-input 'use fast=VALUE' (the graph has static control flow)");
  EXPECT_NE(Find(found, "unsupported_op", "Frobnicate"), nullptr);
  EXPECT_THAT(g.message(), HasSubstr("\n  dynamic value in If, 2 nodes ('if1', 'if2'): "));
}

// An If decided by the data itself (a score computed from a 1x16x96
// input, as openWakeWord's hey_jarvis does) cannot be fixed by freezing:
// the hint says so instead of offering --freeze-input for the data. A
// setting beside it (4 elements) is still named in the message.
TEST(ImportDiagnostics, IfDecidedByDataIsNotAdvisedToFreeze) {
  OnnxModelBuilder b;
  b.Input("x.1", kFloat, {1, 16, 96});
  b.Input("gain", kFloat, {4});
  OnnxModelBuilder then_branch, else_branch;
  then_branch.Node("Relu", {"gain"}, {"t"});
  then_branch.Output("t");
  else_branch.Node("Neg", {"gain"}, {"e"});
  else_branch.Output("e");
  AttrInt(b.Node("ReduceMax", {"x.1"}, {"score"}), "keepdims", 0);
  AttrInt(b.Node("ReduceMax", {"gain"}, {"level"}), "keepdims", 0);
  b.Node("Greater", {"score", "level"}, {"fire"});
  onnx::NodeProto& n = b.Node("If", {"fire"}, {"y"}, "verify");
  AttrGraph(n, "then_branch", then_branch);
  AttrGraph(n, "else_branch", else_branch);
  b.Output("y");
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(b.Bytes(), found);
  ASSERT_FALSE(g.ok());
  const ImportDiagnostic* cond = Find(found, "dynamic_value", "If");
  ASSERT_NE(cond, nullptr) << g;
  EXPECT_THAT(cond->message, HasSubstr("it depends on graph inputs "));
  EXPECT_THAT(cond->message, HasSubstr("'x.1'"));
  EXPECT_THAT(cond->message, HasSubstr("'gain'"));
  EXPECT_THAT(cond->hint, HasSubstr("computed from the data of 'x.1' (1536 elements)"));
  EXPECT_THAT(cond->hint, HasSubstr("freezing is no fix"));
  EXPECT_THAT(cond->hint, Not(HasSubstr("--freeze-input")));
}

// An op without converter inside the branch an If takes is named by its
// own node; the branch not taken is never looked at.
TEST(ImportDiagnostics, UnsupportedOpInTakenBranchIsNamed) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  OnnxModelBuilder taken, skipped;
  taken.Node("Warp", {"x"}, {"t"}, "inner_warp").set_domain("com.example");
  taken.Output("t");
  skipped.Node("Twist", {"x"}, {"e"}, "inner_twist").set_domain("com.example");
  skipped.Output("e");
  onnx::TensorProto* one = b.model().mutable_graph()->add_initializer();
  one->set_name("yes");
  one->set_data_type(kBool);
  one->set_raw_data(std::string(1, '\1'));
  onnx::NodeProto& n = b.Node("If", {"yes"}, {"y"}, "pick");
  AttrGraph(n, "then_branch", taken);
  AttrGraph(n, "else_branch", skipped);
  b.Node("Frobnicate", {"x"}, {"z"}, "custom").set_domain("com.example");
  b.Output("y");
  b.Output("z");
  std::vector<ImportDiagnostic> found;
  ASSERT_FALSE(Diagnose(b.Bytes(), found).ok());
  ASSERT_EQ(found.size(), 2u);
  const ImportDiagnostic* warp = Find(found, "unsupported_op", "Warp");
  ASSERT_NE(warp, nullptr);
  EXPECT_THAT(warp->nodes, ElementsAre("inner_warp"));
  EXPECT_EQ(Find(found, "unsupported_op", "Twist"), nullptr);
}

TEST(ImportDiagnostics, UnsupportedOpsetIsReportedAndTheNodesStillChecked) {
  OnnxModelBuilder b(30);
  b.Input("x", kFloat, {2});
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("Frobnicate", {"r"}, {"y"}, "custom").set_domain("com.example");
  b.Output("y");
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(b.Bytes(), found);
  ASSERT_FALSE(g.ok());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, "unsupported_opset");
  EXPECT_THAT(found[0].message, HasSubstr("opset 30 unsupported"));
  EXPECT_THAT(found[0].hint, HasSubstr("opset 11..21"));
  EXPECT_EQ(found[0].count, 1);  // the one node of the default domain
  EXPECT_THAT(found[0].nodes, ElementsAre("relu"));
  EXPECT_EQ(found[1].kind, "unsupported_op");
  EXPECT_THAT(g.message(), HasSubstr("2 problems stop the import"));
}

// A malformed model is not a question of support: its error is returned
// with its own code, the problems met before it listed after it.
TEST(ImportDiagnostics, HardErrorKeepsItsCodeAndListsTheProblemsBefore) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  b.Node("Frobnicate", {"x"}, {"f"}, "custom").set_domain("com.example");
  b.Node("Relu", {"nowhere"}, {"y"}, "broken");
  b.Output("y");
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(b.Bytes(), found);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.message(), HasSubstr("node 'broken' (Relu): input 'nowhere' is not a graph input"));
  EXPECT_THAT(g.message(), HasSubstr("\nbesides, 1 problem stops the import"));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].op_type, "Frobnicate");
}

// Node names in a group stop at kMaxDiagnosticNodes; the count does not.
TEST(ImportDiagnostics, NodeNamesAreCappedButCounted) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2});
  const int n = static_cast<int>(kMaxDiagnosticNodes) + 3;
  for (int i = 0; i < n; ++i) {
    b.Node("Frobnicate", {"x"}, {"f" + std::to_string(i)}).set_domain("com.example");
    b.Output("f" + std::to_string(i));
  }
  std::vector<ImportDiagnostic> found;
  const absl::Status g = Diagnose(b.Bytes(), found);
  ASSERT_FALSE(g.ok());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].count, n);
  EXPECT_EQ(found[0].nodes.size(), kMaxDiagnosticNodes);
  EXPECT_EQ(found[0].nodes[0], "#0");  // unnamed nodes by index
  EXPECT_THAT(g.message(), HasSubstr(absl::StrCat("1 problem stops the import")));
  EXPECT_THAT(g.message(), HasSubstr(absl::StrCat(n, " nodes ('#0', ")));
  EXPECT_THAT(g.message(), HasSubstr("'#9', ...)"));
}

}  // namespace
}  // namespace tessera::onnx_import
