// Dynamic shapes the same way on every command that takes an .onnx
// (docs/onnx_import.md#shapes): the refusal names every dynamic input and
// gives --input-shape flags that, pasted onto the same command, work;
// `run`/`bench --inputs DIR` take the shapes from the files; a given shape
// of the wrong rank or against a fixed dimension is refused naming both;
// --no-optimize reaches every command.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "framework/core/io/tensor_proto.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "testing/onnx_test_util.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using onnx_import::testing::FloatTensor;
using onnx_import::testing::OnnxModelBuilder;

// z = Identity(x + y), x and y f32 [N,3]. The Identity is what
// --no-optimize keeps (a RESHAPE copy) and the optimizer removes.
class DynamicModel {
 public:
  explicit DynamicModel(const std::string& second_input = "y") {
    OnnxModelBuilder m;
    m.Input("x", onnx::TensorProto::FLOAT, {-1, 3});
    m.Input(second_input, onnx::TensorProto::FLOAT, {-1, 3});
    m.Node("Add", {"x", second_input}, {"s"});
    m.Node("Identity", {"s"}, {"z"});
    m.Output("z");
    path_ = file_.path() + ".onnx";
    file_.Write(m.Bytes());
    std::rename(file_.path().c_str(), path_.c_str());
  }
  ~DynamicModel() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  TempFile file_;
  std::string path_;
};

// Every command that takes an .onnx, as a command line missing only shapes.
std::vector<std::string> Commands(const std::string& model, const std::string& out) {
  return {
      "import " + model + " -o " + out,
      "inspect " + model,
      "partition " + model + " --accelerators cpu",
      "compile " + model + " --accelerators cpu -o " + out,
      "run " + model + " --accelerators cpu --random",
      "bench " + model + " --accelerators cpu --reps 1 --warmup 0",
  };
}

// The flags the refusal advises: the text after "for example " up to the
// note that ends the advice.
std::string AdvisedFlags(const std::string& message) {
  const std::string start = "for example ", end = " (the dynamic dimensions set to 1)";
  const size_t a = message.find(start);
  if (a == std::string::npos) return "";
  const size_t b = message.find(end, a);
  return b == std::string::npos ? "" : message.substr(a + start.size(), b - a - start.size());
}

TEST(CliDynamicShapes, EveryCommandNamesAllDynamicInputsAndItsAdviceWorks) {
  DynamicModel model;
  TempFile out;
  for (const std::string& command : Commands(model.path(), out.path())) {
    SCOPED_TRACE(command);
    Result refused = Tessera(command);
    ASSERT_EQ(refused.exit_code, 1) << refused.output;
    // Both inputs in one message, not one per attempt.
    EXPECT_THAT(refused.output, HasSubstr("2 graph inputs 'x' [N,3], 'y' [N,3] have dynamic dimensions"));
    const std::string flags = AdvisedFlags(refused.output);
    EXPECT_EQ(flags, "--input-shape x=1,3 --input-shape y=1,3") << refused.output;
    Result fixed = Tessera(command + " " + flags);
    EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  }
}

TEST(CliDynamicShapes, AdviceQuotesNamesTheShellWouldSplit) {
  DynamicModel model("the 'other' input");
  Result refused = Tessera("run " + model.path() + " --accelerators cpu --random --input-shape x=2,3");
  ASSERT_EQ(refused.exit_code, 1) << refused.output;
  const std::string flags = AdvisedFlags(refused.output);
  EXPECT_EQ(flags, "--input-shape 'the '\\''other'\\'' input=1,3'") << refused.output;
  // x=2,3 with the other at 1 broadcasts: the advice only has to run.
  Result fixed = Tessera("run " + model.path() + " --accelerators cpu --random --input-shape x=2,3 " + flags);
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
}

TEST(CliDynamicShapes, WrongRankOrFixedDimensionIsRefusedNamingBoth) {
  DynamicModel model;
  TempFile out;
  for (const std::string& command : Commands(model.path(), out.path())) {
    SCOPED_TRACE(command);
    Result rank = Tessera(command + " --input-shape x=2 --input-shape y=2,3");
    EXPECT_EQ(rank.exit_code, 1) << rank.output;
    EXPECT_THAT(rank.output, HasSubstr("--input-shape x=2 has rank 1; graph input 'x' is [N,3], rank 2"));
    Result conflict = Tessera(command + " --input-shape x=2,3 --input-shape y=2,4");
    EXPECT_EQ(conflict.exit_code, 1) << conflict.output;
    EXPECT_THAT(conflict.output,
                HasSubstr("--input-shape y=2,4 conflicts with graph input 'y' [N,3]: dimension 1 is fixed at 3, not 4"));
    Result malformed = Tessera(command + " --input-shape x=2,three");
    EXPECT_EQ(malformed.exit_code, 2) << malformed.output;
    EXPECT_THAT(malformed.output, HasSubstr("bad dimension 'three'"));
  }
}

TEST(CliDynamicShapes, NoOptimizeReachesEveryCommand) {
  DynamicModel model;
  TempFile out;
  const std::string shapes = " --input-shape x=2,3 --input-shape y=2,3";
  for (const std::string& command : Commands(model.path(), out.path())) {
    SCOPED_TRACE(command);
    Result plain = Tessera(command + shapes + " --no-optimize");
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
  }
  // Where the op count shows, the Identity's copy is there only as written.
  const std::string inspect = "inspect " + model.path() + shapes;
  EXPECT_THAT(Tessera(inspect + " --no-optimize").output, HasSubstr("RESHAPE"));
  EXPECT_THAT(Tessera(inspect).output, Not(HasSubstr("RESHAPE")));
  const std::string partition = "partition " + model.path() + shapes + " --accelerators cpu";
  EXPECT_THAT(Tessera(partition + " --no-optimize").output, HasSubstr("2 ops ->"));
  EXPECT_THAT(Tessera(partition).output, HasSubstr("1 ops ->"));
}

class InputDir {
 public:
  explicit InputDir(const std::vector<HostTensor>& tensors) {
    dir_ = file_.path() + ".d";
    if (!WriteTensorSet(tensors, dir_, "input").ok()) dir_.clear();
  }
  ~InputDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const std::string& path() const { return dir_; }

 private:
  TempFile file_;
  std::string dir_;
};

TEST(CliDynamicShapes, RunAndBenchTakeDynamicShapesFromInputFiles) {
  DynamicModel model;
  InputDir inputs({FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}), FloatTensor({2, 3}, {10, 20, 30, 40, 50, 60})});
  ASSERT_FALSE(inputs.path().empty());
  Result run = Tessera("run " + model.path() + " --accelerators cpu --json --inputs " + inputs.path());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("\"shape\":[2,3]"));
  EXPECT_THAT(run.output, HasSubstr("11,22,33,44,55,66"));
  Result bench = Tessera("bench " + model.path() + " --accelerators cpu --reps 1 --warmup 0 --inputs " + inputs.path());
  EXPECT_EQ(bench.exit_code, 0) << bench.output;
}

// A frozen input before the dynamic one takes no position: input_0.pb is
// x, the first input left after freezing, and gives x its shape.
TEST(CliDynamicShapes, InputFilesSkipAnInputFrozenBeforeThem) {
  OnnxModelBuilder m;
  m.Input("k", onnx::TensorProto::FLOAT, {1});
  m.Input("x", onnx::TensorProto::FLOAT, {-1, 3});
  m.Node("Mul", {"x", "k"}, {"z"});
  m.Output("z");
  TempFile file;
  const std::string path = file.path() + ".onnx";
  file.Write(m.Bytes());
  std::rename(file.path().c_str(), path.c_str());
  InputDir inputs({FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(inputs.path().empty());
  Result run = Tessera("run " + path + " --accelerators cpu --json --freeze-input k=10 --inputs " + inputs.path());
  std::remove(path.c_str());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("\"shape\":[2,3]"));
  EXPECT_THAT(run.output, HasSubstr("10,20,30,40,50,60"));
}

TEST(CliDynamicShapes, AnInputFileAgainstAFixedDimensionIsRefusedNamingBoth) {
  DynamicModel model;
  InputDir inputs({FloatTensor({2, 3}, std::vector<float>(6, 1)), FloatTensor({2, 4}, std::vector<float>(8, 1))});
  ASSERT_FALSE(inputs.path().empty());
  for (const std::string command : {"run", "bench"}) {
    Result r = Tessera(command + " " + model.path() + " --accelerators cpu --inputs " + inputs.path());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("--inputs '" + inputs.path() + "'"));
    EXPECT_THAT(r.output, HasSubstr("the shape [2,4] given for input 1 conflicts with graph input 'y' [N,3]: "
                                    "dimension 1 is fixed at 3, not 4"));
  }
}

TEST(CliDynamicShapes, ImportFlagsOnATsrAreRefused) {
  ModelBuilder b("fixed");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  b.Output(b.Op(TSR_OP_RELU, {x}));
  TempFile model;
  model.Write(*SerializeModel(*std::move(b).Build()));
  Result shape = Tessera("inspect " + model.path() + " --input-shape x=2,3");
  EXPECT_EQ(shape.exit_code, 1) << shape.output;
  EXPECT_THAT(shape.output, HasSubstr("--input-shape applies to .onnx models"));
  Result plain = Tessera("run " + model.path() + " --accelerators cpu --random --no-optimize");
  EXPECT_EQ(plain.exit_code, 1) << plain.output;
  EXPECT_THAT(plain.output, HasSubstr("--no-optimize applies to .onnx models"));
}

}  // namespace
}  // namespace tessera
