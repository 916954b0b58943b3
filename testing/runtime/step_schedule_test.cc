// ScheduleSteps on a cpu -> DSP -> cpu plan, against dependencies worked
// out by hand from the graph: f = x·Wᵀ (cpu), g = sin(f)·f (DSP),
// out = g·Wᵀ (cpu). Every edge crosses between host and dsp_tcm memory, so
// each step reads converted copies: the producers show up as host waits
// (the conversions copy on the host), not as in-library dependencies.
#include "dispatch/step_schedule.h"

#include <memory>
#include <vector>

#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

Graph CpuDspCpu() {
  ModelBuilder b("schedule");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  const std::vector<float> w(64, 0.125f);
  const int32_t f = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {8, 8}, w)});
  const int32_t g = b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {f}), f});
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {g, b.Constant<float>("w2", {8, 8}, w)}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

TEST(StepSchedule, CpuDspCpuWaitsOnTheHostForEachConvertedEdge) {
  PluginRegistry registry = BundledPluginsForTest();
  if (registry.FindCompilerByName("dsp") == nullptr) GTEST_SKIP() << "mock_dsp not built";
  absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
  ASSERT_TRUE(soc.ok()) << soc.status();
  CompileOptions c;
  c.soc = *soc;
  c.accelerators = {"dsp", "cpu"};
  c.mode = CompileMode::kJit;
  c.partitioning.policy = PartitionPolicy::kGreedy;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(CpuDspCpu(), registry, c);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  RuntimeOptions r;
  r.soc = *soc;
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, r);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->steps().size(), 3u);
  const StepSchedule s = ScheduleSteps(**model);
  EXPECT_EQ(s.async, (std::vector<bool>{false, true, false}));  // only the DSP has the async table
  EXPECT_TRUE(s.any_async);
  using Steps = std::vector<int32_t>;
  EXPECT_EQ(s.host_waits[0], Steps{});
  EXPECT_EQ(s.host_waits[1], Steps{0});                                     // f, copied host -> dsp_tcm
  EXPECT_EQ(s.host_waits[2], Steps{1});                                     // g, copied dsp_tcm -> host
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(s.depends_on[k], Steps{}) << k;  // every input is a converted copy
  // The steps' own outputs are theirs; the converted copies the host's.
  for (size_t k = 0; k < 3; ++k)
    for (int32_t storage : (*model)->steps()[k].output_storage) EXPECT_EQ(s.producer[storage], static_cast<int32_t>(k));
  for (size_t k = 0; k < 3; ++k)
    for (const LoadedStep::Conversion& conv : (*model)->steps()[k].conversions_before)
      EXPECT_EQ(s.producer[conv.to], -1);
}

}  // namespace
}  // namespace tessera
