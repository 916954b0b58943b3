// Diagnostics through the binary: a model with four problems
// fails every command that imports it with one error naming all four, one
// line per group with its count; `inspect --json` gives them as data, and
// an empty array for a model that imports.
#include <cstdio>
#include <string>
#include <vector>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/onnx_test_util.h"
#include "tessera/app/model_diagnostics.hpp"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using onnx_import::testing::FourProblemModel;
using onnx_import::testing::OnnxModelBuilder;

// An .onnx file (commands tell ONNX by the name).
class OnnxFile {
 public:
  explicit OnnxFile(const std::vector<uint8_t>& bytes) : path_(file_.path() + ".onnx") {
    file_.Write(bytes);
    std::rename(file_.path().c_str(), path_.c_str());
  }
  ~OnnxFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  TempFile file_;
  std::string path_;
};

TEST(CliDiagnostics, EveryCommandListsAllProblemsWithCountsAndHints) {
  OnnxFile model(FourProblemModel());
  TempFile out;
  for (const std::string& command :
       {"import " + model.path() + " -o " + out.path(), "inspect " + model.path(),
        "run " + model.path() + " --accelerators cpu --random"}) {
    SCOPED_TRACE(command);
    Result r = Tessera(command);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("4 problems stop the import"));
    EXPECT_THAT(r.output, HasSubstr("\n  unsupported op com.example::Frobnicate, 2 nodes ('frob1', 'frob2'): op "
                                    "com.example::Frobnicate unsupported (the domain 'com.example' is not converted); "
                                    "only the default ONNX domain is converted"));
    EXPECT_THAT(r.output, HasSubstr("\n  unsupported op ai.onnx.ml::Normalizer, 1 node ('norm'): "));
    EXPECT_THAT(r.output, HasSubstr("\n  dynamic inputs, 1 input ('x'): graph input 'x' [N,4] has dynamic dimensions, "
                                    "and every shape must be static; give it a shape, for example --input-shape x=1,4"));
    EXPECT_THAT(r.output, HasSubstr("\n  unsupported attribute of BatchNormalization, 1 node ('bn'): "
                                    "BatchNormalization training_mode=1 unsupported; docs/onnx_import.md"));
    EXPECT_THAT(r.output, HasSubstr("\n  not checked, 1 node ('uses_frob'): "));
  }
  // The advised shape removes that problem and no other.
  Result shaped = Tessera("inspect " + model.path() + " --input-shape x=1,4");
  EXPECT_EQ(shaped.exit_code, 1);
  EXPECT_THAT(shaped.output, HasSubstr("3 problems stop the import"));
  EXPECT_THAT(shaped.output, ::testing::Not(HasSubstr("dynamic inputs")));
}

TEST(CliDiagnostics, InspectJsonGivesThemAsData) {
  OnnxFile model(FourProblemModel());
  Result r = Tessera("inspect " + model.path() + " --json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string json = r.output.substr(0, r.output.find('\n'));
  EXPECT_THAT(json, HasSubstr("{\"error\":\""));
  EXPECT_THAT(json, HasSubstr("{\"kind\":\"unsupported_op\",\"domain\":\"com.example\","
                              "\"op_type\":\"Frobnicate\",\"count\":2,\"nodes\":[\"frob1\",\"frob2\"],"
                              "\"message\":\"op com.example::Frobnicate unsupported (the domain 'com.example' is "
                              "not converted)\",\"hint\":\"only the default ONNX domain is converted"));
  EXPECT_THAT(json, HasSubstr("{\"kind\":\"unsupported_op\",\"domain\":\"ai.onnx.ml\",\"op_type\":\"Normalizer\","
                              "\"count\":1,\"nodes\":[\"norm\"]"));
  EXPECT_THAT(json, HasSubstr("{\"kind\":\"dynamic_input\",\"domain\":\"\",\"op_type\":\"\",\"count\":1,"
                              "\"nodes\":[\"x\"],\"message\":\"graph input 'x' [N,4] has dynamic dimensions, and "
                              "every shape must be static\",\"hint\":\"give it a shape, for example --input-shape "
                              "x=1,4 (the dynamic dimensions set to 1)\"}"));
  EXPECT_THAT(json, HasSubstr("{\"kind\":\"unsupported_attribute\",\"domain\":\"\",\"op_type\":\"BatchNormalization\","
                              "\"count\":1,\"nodes\":[\"bn\"],\"message\":\"BatchNormalization training_mode=1 "
                              "unsupported\",\"hint\":\"docs/onnx_import.md"));
  EXPECT_THAT(json, HasSubstr("{\"kind\":\"unchecked\",\"domain\":\"\",\"op_type\":\"\",\"count\":1,"
                              "\"nodes\":[\"uses_frob\"]"));
}

TEST(CliDiagnostics, InspectJsonOfAModelThatImportsHasAnEmptyArray) {
  OnnxModelBuilder b;
  b.Input("x", onnx::TensorProto::FLOAT, {2, 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  OnnxFile model(b.Bytes());
  Result r = Tessera("inspect " + model.path() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"op_count\":1"));
  EXPECT_THAT(r.output, HasSubstr("\"type\":\"RELU\""));
  EXPECT_THAT(r.output, HasSubstr("\"diagnostics\":[]}"));
}

// The app API has the same groups (the CLI prints what it returns).
TEST(CliDiagnostics, AppApiReturnsThemToo) {
  OnnxFile model(FourProblemModel());
  app::DiagnosedLoad load = app::LoadWithDiagnostics(model.path());
  ASSERT_FALSE(load.model.ok());
  EXPECT_EQ(load.model.status().code(), TSR_UNIMPLEMENTED);
  std::vector<std::string> groups;
  for (const app::ImportDiagnostic& d : load.diagnostics)
    groups.push_back(d.kind + " " + d.op_type + " " + std::to_string(d.count));
  EXPECT_THAT(groups, ::testing::UnorderedElementsAre("unsupported_op Frobnicate 2", "unsupported_op Normalizer 1",
                                                      "dynamic_input  1", "unsupported_attribute BatchNormalization 1",
                                                      "unchecked  1"));
  // Given the shape, that group is gone; a good model has none.
  app::LoadOptions shaped;
  shaped.input_shapes["x"] = {1, 4};
  EXPECT_EQ(app::LoadWithDiagnostics(model.path(), shaped).diagnostics.size(), 4u);
  OnnxModelBuilder b;
  b.Input("x", onnx::TensorProto::FLOAT, {2});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  OnnxFile good(b.Bytes());
  app::DiagnosedLoad fine = app::LoadWithDiagnostics(good.path());
  EXPECT_TRUE(fine.model.ok());
  EXPECT_TRUE(fine.diagnostics.empty());
}

}  // namespace
}  // namespace tessera
