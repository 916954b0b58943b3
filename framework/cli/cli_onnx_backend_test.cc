// `tessera onnx-test` on cases written here in the ONNX test layout
// (DIR/model.onnx, DIR/test_data_set_N/{input,output}_K.pb): an If whose
// condition is computed from an input (Cast, Equal, Not) is folded from
// the case's values; --freeze-input freezes an input by name; a failing
// case still says who ran its ops; an infinite error is "inf" in JSON.
// Expected outputs are worked by hand from the model's formula.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/core/graph/host_tensor.h"
#include "framework/core/io/tensor_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cli_test_util.h"
#include "testing/onnx_test_util.h"
#include "tessera/common.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using onnx_import::testing::AttrGraph;
using onnx_import::testing::AttrInt;
using onnx_import::testing::OnnxModelBuilder;
using ::testing::HasSubstr;
using ::testing::Not;

// y = If(Not(Equal(Cast(sr, FLOAT), 16000))) then x * 10 else x + 1;
// x f32 [2], sr i64 [1]: at 16000, y = x + 1; otherwise y = 10 x.
std::vector<uint8_t> SampleRateModel() {
  OnnxModelBuilder m;
  m.Input("x", onnx::TensorProto::FLOAT, {2});
  m.Input("sr", onnx::TensorProto::INT64, {1});
  AttrInt(m.Node("Cast", {"sr"}, {"sr_f"}), "to", onnx::TensorProto::FLOAT);
  m.FloatInit("k16000", {}, {16000.0f});
  m.Node("Equal", {"sr_f", "k16000"}, {"is16k"});
  m.Node("Not", {"is16k"}, {"other"});
  onnx::NodeProto& n = m.Node("If", {"other"}, {"y"}, "by_rate");
  auto branch = [](const std::string& op, float c, const std::string& out) {
    OnnxModelBuilder g;
    g.FloatInit(out + "_c", {}, {c});
    g.Node(op, {"x", out + "_c"}, {out});
    g.Output(out);
    return g;
  };
  AttrGraph(n, "then_branch", branch("Mul", 10, "t"));
  AttrGraph(n, "else_branch", branch("Add", 1, "e"));
  m.Output("y");
  return m.Bytes();
}

HostTensor F32(const std::string& name, std::vector<float> v) {
  HostTensor t{name, TSR_DTYPE_F32, {static_cast<int64_t>(v.size())}, {}};
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

HostTensor I64(const std::string& name, int64_t v) {
  HostTensor t{name, TSR_DTYPE_I64, {1}, std::vector<uint8_t>(8)};
  std::memcpy(t.data.data(), &v, 8);
  return t;
}

// A case directory under a fresh temporary root, removed at the end.
class CaseDir {
 public:
  explicit CaseDir(const std::string& name) {
    char tmpl[] = "/tmp/tessera_onnx_backend_XXXXXX";
    root_ = ::mkdtemp(tmpl);
    dir_ = root_ / name;
    fs::create_directories(dir_);
    const std::vector<uint8_t> bytes = SampleRateModel();
    TempFile model;
    model.Write(bytes);
    fs::copy_file(model.path(), dir_ / "model.onnx");
  }
  ~CaseDir() { fs::remove_all(root_); }
  // test_data_set_<n> with these inputs and expected outputs.
  void AddSet(int n, const std::vector<HostTensor>& inputs, const std::vector<HostTensor>& outputs) const {
    const fs::path set = dir_ / ("test_data_set_" + std::to_string(n));
    fs::create_directories(set);
    for (size_t i = 0; i < inputs.size(); ++i)
      ASSERT_TRUE(WriteTensorProtoFile(inputs[i], (set / ("input_" + std::to_string(i) + ".pb")).string()).ok());
    for (size_t i = 0; i < outputs.size(); ++i)
      ASSERT_TRUE(WriteTensorProtoFile(outputs[i], (set / ("output_" + std::to_string(i) + ".pb")).string()).ok());
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path root_, dir_;
};

TEST(CliOnnxBackend, AnIfConditionComputedFromAnInputFoldsFromTheCaseValues) {
  CaseDir c("sample_rate");
  c.AddSet(0, {F32("x", {1, 2}), I64("sr", 16000)}, {F32("y", {2, 3})});   // x + 1
  c.AddSet(1, {F32("x", {1, 2}), I64("sr", 8000)}, {F32("y", {10, 20})});  // 10 x
  Result r = Tessera("onnx-test " + c.path() + " --accelerators cpu");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("PASS "));
  EXPECT_THAT(r.output, HasSubstr("passed 1, failed 0, skipped 0"));
}

TEST(CliOnnxBackend, FreezeInputFreezesByNameAndTheCaseNeedNotFeedIt) {
  CaseDir c("frozen");
  c.AddSet(0, {F32("x", {1, 2})}, {F32("y", {10, 20})});  // sr=8000: 10 x
  Result r = Tessera("onnx-test " + c.path() + " --accelerators cpu --freeze-input sr=8000");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("passed 1, failed 0, skipped 0"));
  // A case that has a file for the frozen input does not feed it.
  CaseDir both("both");
  both.AddSet(0, {F32("x", {1, 2}), I64("sr", 16000)}, {F32("y", {2, 3})});
  Result fed = Tessera("onnx-test " + both.path() + " --accelerators cpu --freeze-input sr=16000");
  EXPECT_EQ(fed.exit_code, 0) << fed.output;
  Result bad = Tessera("onnx-test " + c.path() + " --accelerators cpu --freeze-input sr=16k");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--freeze-input: bad value '16k' in 'sr=16k'"));
}

TEST(CliOnnxBackend, AFailingCaseReportsWhoRanItsOps) {
  CaseDir c("wrong");
  c.AddSet(0, {F32("x", {1, 2}), I64("sr", 16000)}, {F32("y", {2, 4})});  // 3 is right
  Result r = Tessera("onnx-test " + c.path() + " --accelerators cpu --json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"status\":\"fail\""));
  EXPECT_THAT(r.output, HasSubstr("\"max_abs_error\":1"));
  EXPECT_THAT(r.output, HasSubstr("\"ops_by_vendor\":{\"cpu\":1}"));  // the ADD the If left
}

TEST(CliOnnxBackend, AnInfiniteErrorIsTheStringInfNeverNull) {
  CaseDir c("nan_expected");
  c.AddSet(0, {F32("x", {1, 2}), I64("sr", 16000)}, {F32("y", {NAN, 3})});
  Result r = Tessera("onnx-test " + c.path() + " --accelerators cpu --json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"max_abs_error\":\"inf\""));
  EXPECT_THAT(r.output, Not(HasSubstr("null")));
}

}  // namespace
}  // namespace tessera
