// End to end through real plugin libraries: the bundled cpu plugin and the
// deliberately failing test plugin, compiled AOT and JIT, written to a
// model file, loaded back and run through the dispatch executor.
#include "framework/compiler/compile/compile_driver.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "dispatch/model_executor.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/allow_fp16_for_test.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

PluginRegistry Registry(std::vector<std::string> extra_dirs = {}) {
  return BundledPluginsForTest(std::move(extra_dirs));
}

// y = relu(x·Wᵀ + b) + x, z = sin(y)
Graph SmallModel() {
  ModelBuilder b("small");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4});
  std::vector<float> w(16), bias = {0.5f, -0.5f, 0.25f, 0.0f};
  for (int i = 0; i < 16; ++i) w[i] = (i % 5 == 0) ? 1.0f : 0.1f * static_cast<float>(i % 3);
  const int32_t fc =
      b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {4, 4}, w), b.Constant<float>("b", {4}, bias)},
           {{TSR_ATTR_ACTIVATION, Ints({TSR_ACTIVATION_RELU})}});
  const int32_t y = b.Op(TSR_OP_ADD, {fc, x}, {}, {.name = "y"});
  b.Output(b.Op(TSR_OP_SIN, {y}, {}, {.name = "z"}));
  return *std::move(b).Build();
}

HostTensor Input() {
  HostTensor t{"x", TSR_DTYPE_F32, {2, 4}, std::vector<uint8_t>(32)};
  const float v[8] = {1, 2, 3, 4, -1, -2, 0.5f, 0};
  std::memcpy(t.data.data(), v, sizeof(v));
  return t;
}

std::vector<float> Floats(const HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

std::vector<float> RunCompiled(const Graph& graph, const CompiledGraph& compiled, const PluginRegistry& registry,
                               const RuntimeOptions& runtime = {}) {
  auto executor = ModelExecutor::Create(graph, compiled.jit_slots, registry, runtime);
  EXPECT_TRUE(executor.ok()) << executor.status();
  if (!executor.ok()) return {};
  ExecutionProfile profile;
  auto outputs = (*executor)->Run({Input()}, &profile);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  EXPECT_EQ(profile.steps.size(), graph.ops.size());
  return Floats((*outputs)[0]);
}

std::vector<float> Expected() {
  // Hand evaluation of SmallModel on Input().
  const float x[2][4] = {{1, 2, 3, 4}, {-1, -2, 0.5f, 0}};
  std::vector<float> w(16);
  for (int i = 0; i < 16; ++i) w[i] = (i % 5 == 0) ? 1.0f : 0.1f * static_cast<float>(i % 3);
  const float bias[4] = {0.5f, -0.5f, 0.25f, 0.0f};
  std::vector<float> z;
  for (int r = 0; r < 2; ++r)
    for (int n = 0; n < 4; ++n) {
      float acc = bias[n];
      for (int k = 0; k < 4; ++k) acc += x[r][k] * w[n * 4 + k];
      z.push_back(std::sin(std::max(acc, 0.0f) + x[r][n]));
    }
  return z;
}

TEST(CompileDriver, AotThroughAModelFileMatchesHandComputedValues) {
  PluginRegistry registry = Registry();
  ASSERT_NE(registry.FindCompiler("cpu"), nullptr) << "bundled cpu plugin missing under " << TestBuildDir();
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
  options.accelerators = {"cpu"};
  auto compiled = CompileGraph(SmallModel(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->graph.ops.size(), 1u);
  EXPECT_EQ(compiled->graph.ops[0].type, TSR_OP_DISPATCH);
  EXPECT_EQ(compiled->graph.bytecodes.size(), 1u);
  // Inner constants live in the bytecode only.
  for (const Tensor& t : compiled->graph.tensors) EXPECT_FALSE(t.is_constant) << t.name;

  auto bytes = SerializeModel(compiled->graph);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto owned = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  auto loaded = ParseModel(*owned, owned);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  CompiledGraph nothing;  // an AOT model needs no compiler state to run
  std::vector<float> got = RunCompiled(*loaded, nothing, registry);
  std::vector<float> want = Expected();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

// The compiled graph points at the plugin's own blob instead of copying it
// (a copy was one more copy of the weights at compile's peak), and that
// graph alone keeps the blob alive: the model, its artifacts and the
// registry gone, a copy of the graph still serializes and runs.
TEST(CompileDriver, AotGraphSharesThePluginsBlobAndKeepsItAlive) {
  std::optional<Graph> kept;
  std::vector<uint8_t> file;
  {
    PluginRegistry registry = Registry();
    CompileOptions options;
    options.partitioning.policy = PartitionPolicy::kGreedy;
    options.accelerators = {"cpu"};
    auto compiled = CompileGraph(SmallModel(), registry, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    ASSERT_EQ(compiled->graph.bytecodes.size(), 1u);
    ASSERT_EQ(compiled->artifacts.size(), 1u);
    absl::StatusOr<std::span<const uint8_t>> blob = compiled->artifacts[0]->Bytecode();
    ASSERT_TRUE(blob.ok()) << blob.status();
    EXPECT_EQ(compiled->graph.bytecodes[0].bytes.data(), blob->data());
    EXPECT_EQ(compiled->graph.bytecodes[0].bytes.size(), blob->size());
    kept = compiled->graph;
    auto bytes = SerializeModel(compiled->graph);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    file = *std::move(bytes);
  }
  auto again = SerializeModel(*kept);  // reads the blob after its model is gone
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, file);
  kept.reset();  // the last owner releases the plugin's result (ASan checks this)
  PluginRegistry registry = Registry();
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(file));
  auto loaded = ParseModel(*owned, owned);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  CompiledGraph nothing;
  std::vector<float> got = RunCompiled(*loaded, nothing, registry);
  std::vector<float> want = Expected();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(CompileDriver, JitRunsInMemoryAndRefusesToBeWritten) {
  PluginRegistry registry = Registry();
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
  options.accelerators = {"cpu"};
  options.mode = CompileMode::kJit;
  auto compiled = CompileGraph(SmallModel(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->graph.bytecodes.empty());
  ASSERT_EQ(compiled->jit_slots.size(), 1u);
  std::vector<float> got = RunCompiled(compiled->graph, *compiled, registry);
  std::vector<float> want = Expected();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  auto bytes = SerializeModel(compiled->graph);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.status().message(), HasSubstr("JIT"));
  // Without the compiler's in-memory handles, a JIT graph cannot run.
  auto executor = ModelExecutor::Create(compiled->graph, {}, registry, {});
  ASSERT_FALSE(executor.ok());
  EXPECT_THAT(executor.status().message(), HasSubstr("only in the process that compiled them"));
}

TEST(CompileDriver, FailedCompileFallsBackToTheNextClaimantWithAReason) {
  PluginRegistry registry = Registry({TestBuildDir() + "/test_plugins/failing_compile"});
  ASSERT_NE(registry.FindCompiler("testvendor"), nullptr);
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
  options.accelerators = {"testvendor", "cpu"};
  auto compiled = CompileGraph(SmallModel(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->fallbacks.size(), 1u);
  EXPECT_EQ(compiled->fallbacks[0].vendor, "testvendor");
  EXPECT_EQ(compiled->fallbacks[0].op_ids.size(), 1u);  // the ADD
  for (const PlannedPartition& p : compiled->plan.partitions) EXPECT_EQ(p.vendor, "cpu");
  std::vector<float> got = RunCompiled(compiled->graph, *compiled, registry);
  std::vector<float> want = Expected();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(CompileDriver, UnknownAcceleratorIsAClearError) {
  PluginRegistry registry = Registry();
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
  options.accelerators = {"warp_drive"};
  auto compiled = CompileGraph(SmallModel(), registry, options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("warp_drive"));
  EXPECT_THAT(compiled.status().message(), HasSubstr("cpu"));  // lists what is loaded
}

TEST(CompileDriver, CpuAlwaysRunsLastInPriority) {
  PluginRegistry registry = Registry({TestBuildDir() + "/test_plugins/good"});
  auto order = ResolveAccelerators(registry, {"cpu", "testvendor"});
  ASSERT_TRUE(order.ok()) << order.status();
  ASSERT_EQ(order->size(), 2u);
  EXPECT_EQ((*order)[0]->vendor, "testvendor");
  EXPECT_EQ((*order)[1]->vendor, "cpu");
}

// The AOT/JIT mix: the NPU (AOT and JIT) and mock_dsp (JIT only) in one AOT
// compile. SmallModel's FULLY_CONNECTED goes to the NPU, its SIN to the DSP
// (greedy: the cost model does not decide here).
class AotJitMix : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindCompilerByName("npu") == nullptr || registry_.FindCompilerByName("dsp") == nullptr)
      GTEST_SKIP() << "systolic_npu or mock_dsp not built";
    // The DSP claims only on a SoC that describes it.
    absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
    ASSERT_TRUE(soc.ok()) << soc.status();
    options_.soc = *soc;
    options_.partitioning.policy = PartitionPolicy::kGreedy;
    options_.accelerators = {"npu", "dsp", "cpu"};
    options_.precision = AllowFp16ForTest(SmallModel());  // the NPU's FULLY_CONNECTED is FP16
  }
  // Vendor -> {DISPATCH ops holding bytecode, DISPATCH ops holding a JIT slot}.
  static std::map<std::string, std::pair<int, int>> Dispatches(const Graph& g) {
    std::map<std::string, std::pair<int, int>> out;
    for (const Op& op : g.ops) {
      if (op.type != TSR_OP_DISPATCH) continue;
      if (op.dispatch->jit_slot >= 0)
        ++out[op.dispatch->vendor].second;
      else if (op.dispatch->bytecode >= 0)
        ++out[op.dispatch->vendor].first;
    }
    return out;
  }
  // The NPU computes FC in reduced precision: within 2% of the largest value.
  static void ExpectHandValues(const std::vector<float>& got) {
    const std::vector<float> want = Expected();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-2) << i;
  }
  RuntimeOptions Runtime() const {
    RuntimeOptions r;
    r.soc = options_.soc;  // the DSP's device context needs its SoC section too
    return r;
  }
  PluginRegistry registry_ = Registry();
  CompileOptions options_;
};

TEST_F(AotJitMix, EachPluginCompilesTheWayItCanAndTheModelRuns) {
  auto compiled = CompileGraph(SmallModel(), registry_, options_);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->accelerators, (std::vector<std::string>{"systolic_npu", "mock_dsp", "cpu"}));
  EXPECT_EQ(compiled->accelerator_modes,
            (std::vector<CompileMode>{CompileMode::kAot, CompileMode::kJit, CompileMode::kAot}));
  const auto dispatches = Dispatches(compiled->graph);
  ASSERT_TRUE(dispatches.count("systolic_npu")) << "the NPU took no partition";
  ASSERT_TRUE(dispatches.count("mock_dsp")) << "the DSP took no partition";
  EXPECT_GT(dispatches.at("systolic_npu").first, 0);
  EXPECT_EQ(dispatches.at("systolic_npu").second, 0);
  EXPECT_EQ(dispatches.at("mock_dsp").first, 0);
  EXPECT_GT(dispatches.at("mock_dsp").second, 0);
  for (const BytecodeBlob& b : compiled->graph.bytecodes) EXPECT_NE(b.vendor, "mock_dsp");
  EXPECT_TRUE(compiled->left_for_jit.empty());
  ExpectHandValues(RunCompiled(compiled->graph, *compiled, registry_, Runtime()));
  // Its JIT handles cannot be written.
  EXPECT_FALSE(SerializeModel(compiled->graph).ok());
}

TEST_F(AotJitMix, LeftAsOpsTheDspPartitionsGoThroughAFileAndAreJitCompiledAtLoad) {
  options_.jit_only = JitOnlyInAot::kLeaveAsOps;
  auto compiled = CompileGraph(SmallModel(), registry_, options_);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->jit_slots.empty());
  std::vector<uint32_t> plain;
  for (const Op& op : compiled->graph.ops)
    if (op.type != TSR_OP_DISPATCH) plain.push_back(op.id);
  ASSERT_FALSE(plain.empty()) << "no op was left for the DSP";
  ASSERT_EQ(compiled->left_for_jit.size(), 1u);
  EXPECT_EQ(compiled->left_for_jit[0].vendor, "mock_dsp");
  EXPECT_EQ(compiled->left_for_jit[0].op_ids, plain);
  EXPECT_TRUE(Dispatches(compiled->graph).count("systolic_npu"));
  // Through the file: the stamp records what was left, and a load compiles
  // it (the DSP JIT, the NPU's bytecode kept as it was written).
  auto bytes = SerializeModel(compiled->graph);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto owned = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  auto loaded = ParseModel(*owned, owned);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->build_stamp.has_value());
  ASSERT_EQ(loaded->build_stamp->left_for_jit.size(), 1u);
  EXPECT_EQ(loaded->build_stamp->left_for_jit[0].vendor, "mock_dsp");
  EXPECT_EQ(loaded->build_stamp->left_for_jit[0].op_ids, plain);
  CompileOptions at_load;
  at_load.partitioning.policy = PartitionPolicy::kGreedy;
  at_load.accelerators = {"dsp", "cpu"};
  at_load.soc = options_.soc;
  auto reloaded = CompileGraph(*loaded, registry_, at_load);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  const auto dispatches = Dispatches(reloaded->graph);
  ASSERT_TRUE(dispatches.count("systolic_npu"));
  EXPECT_GT(dispatches.at("systolic_npu").first, 0);
  ASSERT_TRUE(dispatches.count("mock_dsp"));
  EXPECT_GT(dispatches.at("mock_dsp").second, 0);
  for (const Op& op : reloaded->graph.ops) EXPECT_EQ(op.type, TSR_OP_DISPATCH);
  ExpectHandValues(RunCompiled(reloaded->graph, *reloaded, registry_, Runtime()));
}

TEST(ModelExecutor, RejectsInputsOfTheWrongShape) {
  PluginRegistry registry = Registry();
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
  options.accelerators = {"cpu"};
  auto compiled = CompileGraph(SmallModel(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto executor = ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  HostTensor bad{"x", TSR_DTYPE_F32, {4, 2}, std::vector<uint8_t>(32)};
  auto out = (*executor)->Run({bad});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("shape [2,4]"));
}

}  // namespace
}  // namespace tessera
