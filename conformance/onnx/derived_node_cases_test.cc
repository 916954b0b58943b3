// The derived ONNX node cases (derived_node_cases.h): the derivation itself
// on models built here, then the derived libonnx-testdata cases through the
// `tessera` binary on the systolic NPU and, as the exact control, the cpu.
// The expected outputs are ONNX's output_0.pb, copied unchanged.
//
// The derived directories go to a temporary directory removed afterwards,
// or to $TESSERA_DERIVED_CASES_DIR (kept) when that is set, so a person can
// rerun `tessera onnx-test` on them (docs/conformance.md).
#include "conformance/onnx/derived_node_cases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>

#include "testing/cli_test_util.h"
#include "framework/core/io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera::conformance {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kNodeDir[] = "/usr/share/libonnx-testdata/data/node";
// The NPU's float GLOBAL_AVG_POOL is an AVG_POOL over the plane, whose
// window holds at most 4096 taps (docs/systolic_npu_isa.md, §9 table).
constexpr int64_t kNpuFloatGapMaxPlane = 4096;

onnx::ValueInfoProto* AddFloatValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                    const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  return v;
}

onnx::ModelProto OneNodeModel(const std::string& op, std::vector<std::string> inputs, int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(opset >= 11 ? 7 : 3);
  onnx::OperatorSetIdProto* id = m.add_opset_import();
  id->set_version(opset);
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output("z");
  return m;
}

onnx::ModelProto DivModel() {
  onnx::ModelProto m = OneNodeModel("Div", {"x", "y"}, 14);
  AddFloatValue(m.mutable_graph()->mutable_input(), "x", {2, 3});
  AddFloatValue(m.mutable_graph()->mutable_input(), "y", {3});
  AddFloatValue(m.mutable_graph()->mutable_output(), "z", {2, 3});
  return m;
}

onnx::TensorProto FloatTensor(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return t;
}

TEST(DerivedNodeCasesTest, DivBIsReplacedByAnInitializerHoldingInput1sBytes) {
  const onnx::TensorProto divisor = FloatTensor("input_1_name", {3}, {2.0f, -4.0f, 0.5f});
  absl::StatusOr<onnx::ModelProto> m = DivideByConstant(DivModel(), divisor);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->graph().input_size(), 1);
  EXPECT_EQ(m->graph().input(0).name(), "x");
  ASSERT_EQ(m->graph().initializer_size(), 1);
  const onnx::TensorProto& c = m->graph().initializer(0);
  EXPECT_EQ(c.name(), "y");  // bound to Div's B, whatever input_1.pb called it
  EXPECT_EQ(c.raw_data(), divisor.raw_data());
  EXPECT_EQ(c.dims_size(), 1);
  EXPECT_EQ(m->graph().node(0).input(1), "y");
  EXPECT_EQ(m->opset_import(0).version(), 14);  // Div's version untouched
}

TEST(DerivedNodeCasesTest, DivDerivationRefusesWhatItCannotKeepHonest) {
  // input_1.pb must be B as the model declares it.
  EXPECT_THAT(DivideByConstant(DivModel(), FloatTensor("y", {2}, {1, 2})).status().message(), HasSubstr("dims differ"));
  // Only a one-Div graph.
  onnx::ModelProto two = DivModel();
  *two.mutable_graph()->add_node() = two.graph().node(0);
  EXPECT_THAT(DivideByConstant(two, FloatTensor("y", {3}, {1, 2, 3})).status().message(), HasSubstr("one two-input Div"));
  // B must be a graph input (not already a constant).
  onnx::ModelProto no_input = DivModel();
  no_input.mutable_graph()->mutable_input()->DeleteSubrange(1, 1);
  EXPECT_THAT(DivideByConstant(no_input, FloatTensor("y", {3}, {1, 2, 3})).status().message(),
              HasSubstr("not a graph input"));
}

TEST(DerivedNodeCasesTest, GlobalAveragePoolOpsetIsRaisedAndNothingElse) {
  const onnx::ModelProto gap = OneNodeModel("GlobalAveragePool", {"x"}, 1);
  absl::StatusOr<onnx::ModelProto> m = RaiseGlobalAveragePoolOpset(gap, kDerivedGapOpset);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->opset_import_size(), 1);
  EXPECT_EQ(m->opset_import(0).version(), 11);
  EXPECT_EQ(m->ir_version(), 6);
  EXPECT_EQ(m->graph().SerializeAsString(), gap.graph().SerializeAsString());
  // Any other op may have changed meaning between opset 1 and 11 (Relu did).
  EXPECT_THAT(RaiseGlobalAveragePoolOpset(OneNodeModel("Relu", {"x"}, 1), 11).status().message(),
              HasSubstr("found Relu"));
}

// One case's object from `onnx-test --json`, by the case directory's last
// component ("name" is the path as given): the text from its "name" to the
// next case's (the nested objects carry no "name" key).
std::map<std::string, std::string> CasesByName(const std::string& json) {
  std::map<std::string, std::string> cases;
  const std::regex name_re("\\{\"name\":\"(?:[^\"]*/)?([^\"/]+)\"");
  std::vector<std::pair<std::string, size_t>> starts;
  for (std::sregex_iterator it(json.begin(), json.end(), name_re), end; it != end; ++it)
    starts.emplace_back((*it)[1].str(), static_cast<size_t>(it->position()));
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t stop = i + 1 < starts.size() ? starts[i + 1].second : json.size();
    cases[starts[i].first] = json.substr(starts[i].second, stop - starts[i].second);
  }
  return cases;
}

// The number after "key": in `text`, or NaN when absent.
double NumberAfter(const std::string& text, const std::string& key) {
  const std::regex re("\"" + key + "\":(-?[0-9.eE+-]+)");
  std::smatch m;
  return std::regex_search(text, m, re) ? std::stod(m[1].str()) : NAN;
}

// Ops each vendor ran, from the case's "ops_by_vendor" object.
std::map<std::string, int64_t> OpsByVendor(const std::string& text) {
  std::map<std::string, int64_t> ops;
  std::smatch obj;
  if (!std::regex_search(text, obj, std::regex("\"ops_by_vendor\":\\{([^}]*)\\}"))) return ops;
  const std::string body = obj[1].str();
  const std::regex entry("\"([^\"]+)\":([0-9]+)");
  for (std::sregex_iterator it(body.begin(), body.end(), entry), end; it != end; ++it)
    ops[(*it)[1].str()] = std::stoll((*it)[2].str());
  return ops;
}

// max |expected| of an f32 output_0.pb: the tolerance's relative part.
double MaxAbsExpected(const fs::path& pb) {
  absl::StatusOr<HostTensor> t = ReadTensorProtoFile(pb.string());
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok() || t->dtype != TSR_DTYPE_F32) return NAN;
  double m = 0;
  for (size_t i = 0; i + sizeof(float) <= t->data.size(); i += sizeof(float)) {
    float v;
    std::memcpy(&v, t->data.data() + i, sizeof(v));
    m = std::max(m, std::fabs(static_cast<double>(v)));
  }
  return m;
}

class DerivedOnnxCasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kNodeDir)) GTEST_SKIP() << "libonnx-testdata not installed (" << kNodeDir << ")";
    if (const char* keep = std::getenv("TESSERA_DERIVED_CASES_DIR"); keep != nullptr && *keep != '\0') {
      dir_ = keep;
    } else {
      char tmpl[] = "/tmp/tessera_derived_onnx_XXXXXX";
      ASSERT_NE(::mkdtemp(tmpl), nullptr);
      dir_ = tmpl;
      remove_ = true;
    }
    absl::StatusOr<std::vector<DerivedNodeCase>> cases = WriteDerivedNodeCases(kNodeDir, dir_);
    ASSERT_TRUE(cases.ok()) << cases.status();
    cases_ = *cases;
    // libonnx-testdata 1.12 ships all five sources.
    ASSERT_EQ(cases_.size(), DerivedNodeCases().size());
  }
  void TearDown() override {
    std::error_code ec;
    if (remove_) fs::remove_all(dir_, ec);
  }

  // Runs `onnx-test DIR --json FLAGS` and checks each derived case passed
  // with `vendor` running its one op, within the tolerance the run applied
  // (the NPU's declared one when it widened the comparison, else the
  // runner's f32 1e-5 + 1e-4·|expected|).
  void ExpectEveryCasePasses(const std::string& flags, const std::string& vendor) {
    const Result r = Tessera("onnx-test " + dir_.string() + " --json " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const std::map<std::string, std::string> by_name = CasesByName(r.output);
    for (const DerivedNodeCase& c : cases_) {
      SCOPED_TRACE(c.name + " with " + flags);
      const auto it = by_name.find(c.name);
      ASSERT_NE(it, by_name.end()) << r.output;
      const std::string& json = it->second;
      EXPECT_THAT(json, HasSubstr("\"status\":\"pass\""));
      // One source op (the Div or the GlobalAveragePool), all on `vendor`.
      EXPECT_EQ(OpsByVendor(json), (std::map<std::string, int64_t>{{vendor, 1}})) << json;
      const double rtol = std::isnan(NumberAfter(json, "rtol")) ? 1e-4 : NumberAfter(json, "rtol");
      const double atol = std::isnan(NumberAfter(json, "atol")) ? 1e-5 : NumberAfter(json, "atol");
      const double bound = atol + rtol * MaxAbsExpected(dir_ / c.name / "test_data_set_0" / "output_0.pb");
      EXPECT_LE(NumberAfter(json, "max_abs_error"), bound) << json;
    }
  }

  fs::path dir_;
  bool remove_ = false;
  std::vector<DerivedNodeCase> cases_;
};

TEST_F(DerivedOnnxCasesTest, GlobalAveragePoolPlanesFitTheNpusFloatPool) {
  for (const DerivedNodeCase& c : cases_) {
    if (c.op_type != "GlobalAveragePool") continue;
    absl::StatusOr<HostTensor> x = ReadTensorProtoFile((dir_ / c.name / "test_data_set_0" / "input_0.pb").string());
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_GE(x->shape.size(), 3u);
    int64_t plane = 1;
    for (size_t i = 2; i < x->shape.size(); ++i) plane *= x->shape[i];
    EXPECT_LE(plane, kNpuFloatGapMaxPlane) << c.name;
  }
}

// The run: the NPU must run each case's op (--require-vendor).
TEST_F(DerivedOnnxCasesTest, PassOnTheNpu) {
  ExpectEveryCasePasses("--accelerators npu,cpu --policy greedy --require-vendor systolic_npu", "systolic_npu");
}

// The import's div_to_mul pass turns a Div by a constant into a Mul by 1/c
// before partitioning; --no-optimize keeps the Div, so the NPU's own DIV by
// a constant lowering (compiler/div_by_constant.cc) is what runs.
TEST_F(DerivedOnnxCasesTest, PassOnTheNpuWithTheDivKept) {
  ExpectEveryCasePasses("--accelerators npu,cpu --policy greedy --require-vendor systolic_npu --no-optimize",
                        "systolic_npu");
}

// The control: the cpu's exact path on the same derived cases.
TEST_F(DerivedOnnxCasesTest, PassOnTheCpu) { ExpectEveryCasePasses("--accelerators cpu", "cpu"); }

}  // namespace
}  // namespace tessera::conformance
