// Declared numerics through the real bundled libraries: the systolic NPU
// declares FP16 for an FP32 model it runs as FP16, the cpu declares FP32,
// the tolerance follows the outputs that depend on the FP16 partition only,
// and a 1.0 dispatch table (no executable_numerics) is assumed FP32.
#include "dispatch/declared_numerics.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/allow_fp16_for_test.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

PluginRegistry Registry() { return BundledPluginsForTest(); }

// out0 = x·Wᵀ (the NPU claims it), out1 = sin(x) (the NPU never claims SIN).
Graph TwoOutputModel() {
  ModelBuilder b("two_outputs");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 8});
  std::vector<float> w(8 * 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
  const int32_t wt = b.Constant<float>("w", {8, 8}, w);
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, wt});
  const int32_t s = b.Op(TSR_OP_SIN, {x});
  b.Output(fc);
  b.Output(s);
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

std::unique_ptr<ModelExecutor> Prepare(const PluginRegistry& registry, const Graph& graph,
                                       std::vector<std::string> accelerators, CompiledGraph& keep) {
  CompileOptions options;
  options.accelerators = std::move(accelerators);
  options.partitioning.policy = PartitionPolicy::kGreedy;  // the NPU runs what it claims
  options.precision = AllowFp16ForTest(graph);             // FP16 included: its declaration is the subject
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, registry, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  keep = std::move(*compiled);
  absl::StatusOr<std::unique_ptr<ModelExecutor>> e = ModelExecutor::Create(keep.graph, keep.jit_slots, registry, {});
  EXPECT_TRUE(e.ok()) << e.status();
  return std::move(*e);
}

TEST(DeclaredNumerics, NpuFp16WidensOnlyTheOutputsItFeeds) {
  const PluginRegistry registry = Registry();
  if (registry.FindDispatch("systolic_npu") == nullptr) GTEST_SKIP() << "systolic_npu not built";
  CompiledGraph keep;
  std::unique_ptr<ModelExecutor> e = Prepare(registry, TwoOutputModel(), {"npu", "cpu"}, keep);
  ASSERT_NE(e, nullptr);
  const OutputTolerance fc = e->OutputToleranceFor(0, 1e-4, 1e-5);
  ASSERT_EQ(fc.reduced_by.size(), 1u);
  EXPECT_EQ(fc.reduced_by[0].vendor, "systolic_npu");
  EXPECT_EQ(fc.reduced_by[0].precision, TSR_PRECISION_FP16);
  EXPECT_TRUE(fc.reduced_by[0].declared);
  EXPECT_GT(fc.relative, 1e-4);
  EXPECT_GT(fc.absolute, 1e-5);
  EXPECT_NE(fc.Describe().find("systolic_npu ran FP16"), std::string::npos) << fc.Describe();
  const OutputTolerance sin = e->OutputToleranceFor(1, 1e-4, 1e-5);
  EXPECT_TRUE(sin.reduced_by.empty());
  EXPECT_EQ(sin.relative, 1e-4);
  EXPECT_EQ(sin.absolute, 1e-5);
  EXPECT_EQ(sin.Describe(), "");
}

TEST(DeclaredNumerics, CpuDeclaresFp32) {
  const PluginRegistry registry = Registry();
  CompiledGraph keep;
  std::unique_ptr<ModelExecutor> e = Prepare(registry, TwoOutputModel(), {"cpu"}, keep);
  ASSERT_NE(e, nullptr);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(e->OutputToleranceFor(i, 1e-4, 1e-5).reduced_by.empty());
  ExecutionProfile profile;
  std::vector<HostTensor> inputs = {{"x", TSR_DTYPE_F32, {4, 8}, std::vector<uint8_t>(4 * 8 * 4, 0)}};
  ASSERT_TRUE(e->Run(inputs, &profile).ok());
  ASSERT_FALSE(profile.steps.empty());
  EXPECT_TRUE(profile.steps[0].numerics.declared);
  EXPECT_EQ(profile.steps[0].numerics.precision, TSR_PRECISION_FP32);
  EXPECT_NE(profile.steps[0].numerics.description.find("FP32"), std::string::npos);
}

// What a dispatch library built against the 1.0 headers presents: the
// same table, its struct_size ending at get_metric.
TEST(DeclaredNumerics, Version10LibraryIsAssumedFp32) {
  const PluginRegistry registry = Registry();
  const DispatchLibrary* cpu = registry.FindDispatch("cpu");
  ASSERT_NE(cpu, nullptr);
  tsr_dispatch_api v10 = *cpu->api;
  v10.header.struct_size = static_cast<uint32_t>(offsetof(tsr_dispatch_api, get_metric) + sizeof(v10.get_metric));
  DispatchLibrary old = *cpu;
  old.api = &v10;
  absl::StatusOr<std::unique_ptr<DeviceSession>> session = DeviceSession::Create(old, {}, {});
  ASSERT_TRUE(session.ok()) << session.status();
  // Never called: the member is beyond struct_size, so no executable needed.
  absl::StatusOr<DeclaredNumerics> n = QueryNumerics(**session, nullptr);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_FALSE(n->declared);
  EXPECT_EQ(n->precision, TSR_PRECISION_FP32);
  EXPECT_EQ(n->vendor, "cpu");
  // The 1.1 table does call it, and a NULL executable is refused cleanly.
  absl::StatusOr<std::unique_ptr<DeviceSession>> current = DeviceSession::Create(*cpu, {}, {});
  ASSERT_TRUE(current.ok());
  EXPECT_FALSE(QueryNumerics(**current, nullptr).ok());
}

// ToleranceFor on a hand-built compiled graph, no library involved:
//   t0 -> op0 (FP16, rtol 1e-3, atol 2e-3) -> t1 -> op2 (FP16, rtol 1e-6, atol 1e-7) -> t3
//   t0 -> op1 (FP32 declared)               -> t2
// The widest of the runner's own and every reduced declaration upstream
// applies, whatever the order; a tighter declaration never narrows it.
TEST(DeclaredNumerics, ToleranceForTakesTheWidestUpstreamDeclaration) {
  Graph g;
  for (int i = 0; i < 4; ++i) g.tensors.push_back({"t" + std::to_string(i), TSR_DTYPE_F32, {2}});
  g.inputs = {0};
  g.ops.resize(3);
  g.ops[0].inputs = {0};
  g.ops[0].outputs = {1};
  g.ops[1].inputs = {0};
  g.ops[1].outputs = {2};
  g.ops[2].inputs = {1};
  g.ops[2].outputs = {3};
  g.outputs = {2, 3};
  std::vector<DeclaredNumerics> per_op(3);
  per_op[0] = {"npu", TSR_PRECISION_FP16, 1e-3, 2e-3, "", true};
  per_op[1] = {"cpu", TSR_PRECISION_FP32, 0.5, 0.5, "", true};  // FP32: not a widening
  per_op[2] = {"dsp", TSR_PRECISION_FP16, 1e-6, 1e-7, "", true};
  const OutputTolerance t3 = ToleranceFor(g, per_op, 3, 1e-4, 1e-5);
  EXPECT_EQ(t3.relative, 1e-3);  // op0's, though op2 (visited first) is tighter
  EXPECT_EQ(t3.absolute, 2e-3);
  ASSERT_EQ(t3.reduced_by.size(), 2u);
  const OutputTolerance t2 = ToleranceFor(g, per_op, 2, 1e-4, 1e-5);
  EXPECT_EQ(t2.relative, 1e-4);  // only the FP32 op upstream
  EXPECT_EQ(t2.absolute, 1e-5);
  EXPECT_TRUE(t2.reduced_by.empty());
  // Only the tight declaration upstream: the runner's own stands.
  per_op[0] = {"npu", TSR_PRECISION_FP32, 0, 0, "", true};
  const OutputTolerance tight = ToleranceFor(g, per_op, 3, 1e-4, 1e-5);
  EXPECT_EQ(tight.relative, 1e-4);
  EXPECT_EQ(tight.absolute, 1e-5);
  ASSERT_EQ(tight.reduced_by.size(), 1u);
  EXPECT_EQ(tight.reduced_by[0].vendor, "dsp");
  // Out-of-range tensors and missing declarations are not errors.
  EXPECT_TRUE(ToleranceFor(g, {}, 3, 1e-4, 1e-5).reduced_by.empty());
  EXPECT_EQ(ToleranceFor(g, per_op, 99, 1e-4, 1e-5).relative, 1e-4);
}

TEST(DeclaredNumerics, PrecisionNames) {
  EXPECT_STREQ(PrecisionName(TSR_PRECISION_FP32), "fp32");
  EXPECT_STREQ(PrecisionName(TSR_PRECISION_FP16), "fp16");
  EXPECT_STREQ(PrecisionName(TSR_PRECISION_BF16), "bf16");
  EXPECT_STREQ(PrecisionName(77), "unknown");
}

}  // namespace
}  // namespace tessera
