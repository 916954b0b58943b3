// External constants end to end (ABI 1.4, TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK):
// the cpu's AOT bytecode names its weights instead of carrying them, the
// model keeps them, and the runtime binds them from the mapped file. The
// expected outputs are computed here by hand, not by any kernel.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "dispatch/execution_context.h"
#include "dispatch/loaded_model.h"
#include "framework/compiler/claims/compiler_instance.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr int kIn = 64, kOut = 32, kRows = 2;  // w: 32x64 f32 = 8 KiB, above the cpu's 4 KiB threshold

std::vector<float> Weights() {
  std::vector<float> w(kOut * kIn);
  for (int o = 0; o < kOut; ++o)
    for (int i = 0; i < kIn; ++i) w[o * kIn + i] = static_cast<float>((o * 7 + i * 3) % 11 - 5) / 8.0f;
  return w;
}
std::vector<float> Bias() {
  std::vector<float> b(kOut);
  for (int o = 0; o < kOut; ++o) b[o] = static_cast<float>(o % 5) - 2.0f;
  return b;
}
std::vector<float> Inputs() {
  std::vector<float> x(kRows * kIn);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(static_cast<int>(k % 9) - 4) / 4.0f;
  return x;
}

// y = relu(x·wᵀ + b): FULLY_CONNECTED then RELU, the graph the tests compile.
Graph Model() {
  ModelBuilder b("external_constants");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {kRows, kIn});
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED,
                          {x, b.Constant<float>("w", {kOut, kIn}, Weights()), b.Constant<float>("b", {kOut}, Bias())});
  b.Output(b.Op(TSR_OP_RELU, {fc}, {}, {.name = "y"}));
  return *std::move(b).Build();
}

std::vector<float> Expected() {
  const std::vector<float> w = Weights(), bias = Bias(), x = Inputs();
  std::vector<float> y(kRows * kOut);
  for (int r = 0; r < kRows; ++r)
    for (int o = 0; o < kOut; ++o) {
      double acc = bias[o];
      for (int i = 0; i < kIn; ++i) acc += static_cast<double>(x[r * kIn + i]) * w[o * kIn + i];
      y[r * kOut + o] = acc > 0 ? static_cast<float>(acc) : 0.0f;
    }
  return y;
}

class ExternalConstants : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindCompilerByName("cpu") == nullptr) GTEST_SKIP() << "cpu not built";
  }
  absl::StatusOr<CompiledGraph> Compile(CompileMode mode) {
    CompileOptions options;
    options.accelerators = {"cpu"};
    options.mode = mode;
    return CompileGraph(Model(), registry_, options);
  }
  absl::StatusOr<std::vector<float>> Run(const Graph& g, std::span<const tsr_jit_handle> jit = {}) {
    absl::StatusOr<std::shared_ptr<const LoadedModel>> model = LoadedModel::Create(g, jit, registry_, {});
    if (!model.ok()) return model.status();
    absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*model);
    if (!context.ok()) return context.status();
    const std::vector<float> xs = Inputs();
    HostTensor in{"x", TSR_DTYPE_F32, {kRows, kIn}, std::vector<uint8_t>(xs.size() * 4)};
    std::memcpy(in.data.data(), xs.data(), in.data.size());
    absl::StatusOr<std::vector<HostTensor>> out = (*context)->Run({in});
    if (!out.ok()) return out.status();
    std::vector<float> y(out->at(0).data.size() / 4);
    std::memcpy(y.data(), out->at(0).data.data(), y.size() * 4);
    return y;
  }
  static int32_t TensorNamed(const Graph& g, const std::string& name) {
    for (size_t t = 0; t < g.tensors.size(); ++t)
      if (g.tensors[t].name == name) return static_cast<int32_t>(t);
    return -1;
  }
  static void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  }
  PluginRegistry registry_ = BundledPluginsForTest();
};

TEST_F(ExternalConstants, AotBytecodeNamesTheWeightsAndTheModelKeepsThem) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kAot);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->graph.ops.size(), 1u);
  const DispatchRef& ref = *c->graph.ops[0].dispatch;
  ASSERT_EQ(ref.constants.size(), 1u);  // w only: b (128 bytes) stays in the bytecode
  const int32_t w = TensorNamed(c->graph, "w");
  ASSERT_GE(w, 0);
  EXPECT_EQ(ref.constants[0].tensor, w);
  EXPECT_TRUE(c->graph.tensors[w].is_constant);
  // The blob no longer carries the 8 KiB of weights.
  EXPECT_LT(c->graph.bytecodes[ref.bytecode].bytes.size(), size_t{kOut * kIn * 4});
}

TEST_F(ExternalConstants, CompileWriteLoadRunEqualsTheDirectRun) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kAot);
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<std::vector<float>> direct = Run(c->graph);
  ASSERT_TRUE(direct.ok()) << direct.status();
  ExpectNear(*direct, Expected());
  const std::string path =
      (std::filesystem::temp_directory_path() / ("external_constants_" + std::to_string(getpid()) + ".tsr")).string();
  ASSERT_TRUE(WriteModelFile(c->graph, path).ok());
  for (VerifyLevel level : {VerifyLevel::kStructure, VerifyLevel::kFull}) {
    absl::StatusOr<Graph> loaded = LoadModelFile(path, {}, level);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->ops[0].dispatch->constants.size(), 1u);
    absl::StatusOr<std::vector<float>> from_file = Run(*loaded);
    ASSERT_TRUE(from_file.ok()) << from_file.status();
    EXPECT_EQ(*from_file, *direct);  // the same kernels on the same bytes
  }
  std::remove(path.c_str());
}

TEST_F(ExternalConstants, JitStaysSelfContainedAndAgrees) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kJit);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->graph.ops[0].dispatch->constants.empty());
  absl::StatusOr<std::vector<float>> y = Run(c->graph, c->jit_slots);
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectNear(*y, Expected());
}

TEST_F(ExternalConstants, AMissingBindingIsRefusedNamingKeyTensorAndSize) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kAot);
  ASSERT_TRUE(c.ok()) << c.status();
  Graph g = c->graph;
  const uint32_t key = g.ops[0].dispatch->constants[0].key;
  g.ops[0].dispatch->constants.clear();  // as a host that drops them would
  absl::StatusOr<std::vector<float>> y = Run(g);
  ASSERT_FALSE(y.ok());
  EXPECT_THAT(y.status().message(), HasSubstr(absl::StrCat("external constant key ", key, " (tensor ")));
  EXPECT_THAT(y.status().message(), HasSubstr("'w', 8192 bytes) has no binding"));
}

TEST_F(ExternalConstants, AWrongSizeBindingIsRefused) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kAot);
  ASSERT_TRUE(c.ok()) << c.status();
  Graph g = c->graph;
  // The bound tensor's bytes cut to 128 (b is not in the compiled graph: it
  // stayed in the bytecode, and pruning dropped it).
  EXPECT_EQ(TensorNamed(g, "b"), -1);
  Tensor& w = g.tensors[g.ops[0].dispatch->constants[0].tensor];
  w.data = w.data.first(128);
  absl::StatusOr<std::vector<float>> y = Run(g);
  ASSERT_FALSE(y.ok());
  EXPECT_THAT(std::string(y.status().message()), HasSubstr("needs 8192 bytes, its binding has 128"));
}

TEST_F(ExternalConstants, ABindingToANonConstantIsRefusedByTheRuntime) {
  absl::StatusOr<CompiledGraph> c = Compile(CompileMode::kAot);
  ASSERT_TRUE(c.ok()) << c.status();
  for (int32_t bad : {TensorNamed(c->graph, "x"), 99}) {
    Graph g = c->graph;
    g.ops[0].dispatch->constants[0].tensor = bad;
    absl::StatusOr<std::vector<float>> y = Run(g);
    ASSERT_FALSE(y.ok()) << bad;
    EXPECT_THAT(std::string(y.status().message()), HasSubstr("which is not a constant of this model")) << bad;
  }
}

TEST_F(ExternalConstants, AHostWithoutTheFlagGetsSelfContainedBytecode) {
  const CompilerPluginLibrary* lib = registry_.FindCompilerByName("cpu");
  absl::StatusOr<std::shared_ptr<CompilerInstance>> instance = CompilerInstance::Create(*lib, {});
  ASSERT_TRUE(instance.ok()) << instance.status();
  const Graph g = Model();
  const GraphUses uses(g);
  const GraphView view = GraphView::Partition(g, {0, 1}, uses);
  for (bool flag : {false, true}) {
    absl::StatusOr<std::unique_ptr<CompiledArtifact>> a =
        (*instance)->Compile({&view}, TSR_COMPILE_MODE_AOT, {}, false, false, /*external_constants_ok=*/flag);
    ASSERT_TRUE(a.ok()) << a.status();
    absl::StatusOr<std::vector<tsr_constant_reference>> refs = (*a)->ConstantReferences(0);
    ASSERT_TRUE(refs.ok());
    absl::StatusOr<std::span<const uint8_t>> blob = (*a)->Bytecode();
    ASSERT_TRUE(blob.ok());
    EXPECT_EQ(refs->size(), flag ? 1u : 0u) << flag;
    if (flag)
      EXPECT_LT(blob->size(), size_t{kOut * kIn * 4});
    else
      EXPECT_GT(blob->size(), size_t{kOut * kIn * 4});  // the weights are inside
  }
}

}  // namespace
}  // namespace tessera
