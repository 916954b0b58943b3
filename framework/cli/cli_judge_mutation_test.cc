// The judge still fails a wrong kernel on real models: each model passes
// `onnx-test --accelerators cpu` as it is, then fails once the model is
// mutated the way a wrong kernel would compute it:
//   - a dropped bias: the last Conv, ConvTranspose or Gemm that adds a bias
//     loses it;
//   - a swapped operand: the first Sub or Div gets its operands the other
//     way round; in a model without one, the first convolution with a
//     square kernel gets its filter transposed (rows for columns, the
//     convolution's own operand swap).
// The models: Debian's libonnx-testdata networks with biases, and every
// case under $TESSERA_REAL_ONNX_CASES (third-party models with ONNX
// Runtime's outputs, made by bench/ort_reference_case.js; docs/benchmarks.md).
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cli_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<fs::path> Cases() {
  std::vector<fs::path> out;
  const fs::path debian = "/usr/share/libonnx-testdata/data/pytorch-converted";
  for (const char* name : {"test_Conv2d", "test_Conv1d", "test_Linear", "test_Conv2d_depthwise", "test_Conv2d_groups",
                           "test_ConvTranspose2d"})
    if (fs::exists(debian / name / "model.onnx")) out.push_back(debian / name);
  if (const char* dir = std::getenv("TESSERA_REAL_ONNX_CASES"); dir != nullptr && fs::is_directory(dir))
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx")) out.push_back(e.path());
  return out;
}

bool Load(const fs::path& file, onnx::ModelProto& model) {
  std::ifstream in(file, std::ios::binary);
  return in && model.ParseFromIstream(&in);
}

// Every node, those of subgraphs (an If's branches) after their node, and
// every initializer, in the same order.
void Collect(onnx::GraphProto& g, std::vector<onnx::NodeProto*>& nodes, std::vector<onnx::TensorProto*>& inits) {
  for (onnx::TensorProto& t : *g.mutable_initializer()) inits.push_back(&t);
  for (onnx::NodeProto& n : *g.mutable_node()) {
    nodes.push_back(&n);
    for (onnx::AttributeProto& a : *n.mutable_attribute())
      if (a.has_g()) Collect(*a.mutable_g(), nodes, inits);
  }
}

std::vector<onnx::NodeProto*> Nodes(onnx::ModelProto& model) {
  std::vector<onnx::NodeProto*> nodes;
  std::vector<onnx::TensorProto*> inits;
  Collect(*model.mutable_graph(), nodes, inits);
  return nodes;
}

bool DropBias(onnx::ModelProto& model) {
  const std::vector<onnx::NodeProto*> nodes = Nodes(model);
  for (size_t i = nodes.size(); i-- > 0;) {
    onnx::NodeProto& n = *nodes[i];
    const bool biased = n.op_type() == "Conv" || n.op_type() == "ConvTranspose" || n.op_type() == "Gemm";
    if (biased && n.input_size() == 3 && !n.input(2).empty()) {
      n.mutable_input()->RemoveLast();
      return true;
    }
  }
  return false;
}

onnx::TensorProto* Initializer(onnx::ModelProto& model, const std::string& name) {
  std::vector<onnx::NodeProto*> nodes;
  std::vector<onnx::TensorProto*> inits;
  Collect(*model.mutable_graph(), nodes, inits);
  for (onnx::TensorProto* t : inits)
    if (t->name() == name) return t;
  return nullptr;
}

bool SwapOperands(onnx::ModelProto& model) {
  for (onnx::NodeProto* node : Nodes(model))
    if (onnx::NodeProto& n = *node;
        (n.op_type() == "Sub" || n.op_type() == "Div") && n.input_size() == 2 && n.input(0) != n.input(1)) {
      std::swap(*n.mutable_input(0), *n.mutable_input(1));
      return true;
    }
  // No Sub or Div: transpose a square convolution filter [O, I, k, k].
  for (onnx::NodeProto* node : Nodes(model)) {
    onnx::NodeProto& n = *node;
    if (n.op_type() != "Conv" || n.input_size() < 2) continue;
    onnx::TensorProto* w = Initializer(model, n.input(1));
    if (w == nullptr || w->dims_size() != 4 || w->dims(2) != w->dims(3) || w->dims(2) < 2 ||
        w->data_type() != onnx::TensorProto::FLOAT)
      continue;
    const int64_t k = w->dims(2), planes = w->dims(0) * w->dims(1);
    std::vector<float> v(static_cast<size_t>(planes * k * k));
    if (w->has_raw_data() && w->raw_data().size() == v.size() * 4)
      std::memcpy(v.data(), w->raw_data().data(), w->raw_data().size());
    else if (static_cast<size_t>(w->float_data_size()) == v.size())
      std::copy(w->float_data().begin(), w->float_data().end(), v.begin());
    else
      continue;
    std::vector<float> t(v.size());
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t r = 0; r < k; ++r)
        for (int64_t c = 0; c < k; ++c) t[(p * k + c) * k + r] = v[(p * k + r) * k + c];
    if (t == v) continue;  // a symmetric filter: the swap changes nothing
    w->clear_float_data();
    w->set_raw_data(std::string(reinterpret_cast<const char*>(t.data()), t.size() * 4));
    return true;
  }
  return false;
}

// `model` as a case beside the original's data sets.
fs::path MutantCase(const fs::path& original, const onnx::ModelProto& model, const std::string& tag) {
  char tmpl[] = "/tmp/tessera_mutant_XXXXXX";
  const fs::path dir = fs::path(::mkdtemp(tmpl)) / (original.filename().string() + "_" + tag);
  fs::create_directories(dir);
  std::ofstream(dir / "model.onnx", std::ios::binary) << model.SerializeAsString();
  for (const fs::directory_entry& e : fs::directory_iterator(original))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      fs::create_directory_symlink(e.path(), dir / e.path().filename());
  return dir;
}

TEST(CliJudgeMutation, AWrongKernelFailsOnEveryRealModelThatPasses) {
  const std::vector<fs::path> cases = Cases();
  if (cases.empty()) GTEST_SKIP() << "no real models (apt-get install libonnx-testdata)";
  for (const fs::path& c : cases) {
    int mutants = 0;
    SCOPED_TRACE(c.string());
    Result clean = Tessera("onnx-test " + c.string() + " --accelerators cpu");
    ASSERT_EQ(clean.exit_code, 0) << clean.output;
    ASSERT_THAT(clean.output, HasSubstr("passed 1, failed 0"));
    for (const std::string tag : {"dropped_bias", "swapped_operand"}) {
      onnx::ModelProto model;
      ASSERT_TRUE(Load(c / "model.onnx", model));
      if (!(tag == "dropped_bias" ? DropBias(model) : SwapOperands(model))) continue;
      const fs::path mutant = MutantCase(c, model, tag);
      Result r = Tessera("onnx-test " + mutant.string() + " --accelerators cpu");
      EXPECT_EQ(r.exit_code, 1) << tag << ": " << r.output;
      EXPECT_THAT(r.output, HasSubstr("passed 0, failed 1")) << tag;
      std::cout << c.filename().string() << " " << tag << ": " << (r.exit_code == 1 ? "fails" : "PASSES") << "\n";
      fs::remove_all(mutant.parent_path());
      ++mutants;
    }
    EXPECT_GE(mutants, 1) << "no mutation applies";
  }
}

}  // namespace
}  // namespace tessera
