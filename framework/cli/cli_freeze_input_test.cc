// --freeze-input the same way on every command that imports an .onnx
// (docs/onnx_import.md#constant-folding): without it an If on a graph input
// is refused naming the input; with it the input becomes a constant, the If
// is inlined, and the input leaves the model's inputs.
#include <cstdio>
#include <string>
#include <vector>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "testing/onnx_test_util.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using onnx_import::testing::OnnxModelBuilder;

// y = If(sr == 16000) then x + 1 else x * 10; x f32 [2], sr i64 [1].
class SampleRateModel {
 public:
  SampleRateModel() {
    OnnxModelBuilder m;
    m.Input("x", onnx::TensorProto::FLOAT, {2});
    m.Input("sr", onnx::TensorProto::INT64, {1});
    m.Int64Init("k16000", {}, {16000});
    m.Node("Equal", {"sr", "k16000"}, {"is16k"});
    onnx::NodeProto& n = m.Node("If", {"is16k"}, {"y"}, "by_rate");
    Branch(n, "then_branch", "Add", 1.0f);
    Branch(n, "else_branch", "Mul", 10.0f);
    m.Output("y");
    path_ = file_.path() + ".onnx";
    file_.Write(m.Bytes());
    std::rename(file_.path().c_str(), path_.c_str());
  }
  ~SampleRateModel() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static void Branch(onnx::NodeProto& n, const std::string& attr, const std::string& op, float c) {
    OnnxModelBuilder g;
    g.FloatInit(attr + "_c", {}, {c});
    g.Node(op, {"x", attr + "_c"}, {attr + "_y"});
    g.Output(attr + "_y");
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g.model().graph();
  }
  TempFile file_;
  std::string path_;
};

TEST(CliFreezeInput, EveryImportingCommandTakesIt) {
  SampleRateModel model;
  TempFile out;
  for (const std::string& command : {
           "import " + model.path() + " -o " + out.path(),
           "inspect " + model.path(),
           "partition " + model.path() + " --accelerators cpu",
           "compile " + model.path() + " --accelerators cpu -o " + out.path(),
           "run " + model.path() + " --accelerators cpu --random",
           "bench " + model.path() + " --accelerators cpu --reps 1 --warmup 0",
       }) {
    SCOPED_TRACE(command);
    Result refused = Tessera(command);
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_THAT(refused.output, HasSubstr("node 'by_rate' (If): the If condition does not fold to a constant: it "
                                          "depends on graph input 'sr'; freeze it with --freeze-input"));
    Result frozen = Tessera(command + " --freeze-input sr=16000");
    EXPECT_EQ(frozen.exit_code, 0) << frozen.output;
  }
}

TEST(CliFreezeInput, TheFrozenValueChoosesTheBranchAndTheInputLeaves) {
  SampleRateModel model;
  Result fast = Tessera("inspect " + model.path() + " --freeze-input sr=16000");
  ASSERT_EQ(fast.exit_code, 0) << fast.output;
  EXPECT_THAT(fast.output, HasSubstr("input  'x' f32 [2]"));
  EXPECT_THAT(fast.output, Not(HasSubstr("input  'sr'")));
  EXPECT_THAT(fast.output, HasSubstr("ADD"));
  Result slow = Tessera("inspect " + model.path() + " --freeze-input sr=8000");
  ASSERT_EQ(slow.exit_code, 0) << slow.output;
  EXPECT_THAT(slow.output, HasSubstr("MUL"));
  EXPECT_THAT(slow.output, Not(HasSubstr("ADD")));
}

TEST(CliFreezeInput, BadValuesAndNamesAreRefused) {
  SampleRateModel model;
  Result malformed = Tessera("inspect " + model.path() + " --freeze-input sr=16k");
  EXPECT_EQ(malformed.exit_code, 2) << malformed.output;
  EXPECT_THAT(malformed.output, HasSubstr("--freeze-input: bad value '16k' in 'sr=16k'"));
  Result count = Tessera("inspect " + model.path() + " --freeze-input sr=1,2");
  EXPECT_EQ(count.exit_code, 1) << count.output;
  EXPECT_THAT(count.output, HasSubstr("--freeze-input gives 2 values; graph input 'sr' [1] holds 1"));
  Result name = Tessera("inspect " + model.path() + " --freeze-input rate=16000");
  EXPECT_EQ(name.exit_code, 1) << name.output;
  EXPECT_THAT(name.output, HasSubstr("--freeze-input names 'rate', which is not a graph input"));

  ModelBuilder b("fixed");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2});
  b.Output(b.Op(TSR_OP_RELU, {x}));
  TempFile tsr;
  tsr.Write(*SerializeModel(*std::move(b).Build()));
  Result on_tsr = Tessera("inspect " + tsr.path() + " --freeze-input sr=16000");
  EXPECT_EQ(on_tsr.exit_code, 1) << on_tsr.output;
  EXPECT_THAT(on_tsr.output, HasSubstr("--freeze-input applies to .onnx models"));
}

}  // namespace
}  // namespace tessera
