// Background warm-up, deterministically: a latch holds the accelerated
// (mock_dsp, JIT) compile until three runs have happened on the cpu plan;
// once the worker is done the next run uses the accelerated plan, and its
// outputs agree with the cpu plan's within the tolerance the accelerated
// partitions declare. No sleeps, no clocks.
#include "framework/compiler/compile/background_warmup.h"

#include <cmath>
#include <cstring>
#include <latch>

#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;

// z = sin(x) * x + cos(x): elementwise, all claimed by the DSP.
Graph Model() {
  ModelBuilder b("warm");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {64});
  const int32_t s = b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {x}), x});
  b.Output(b.Op(TSR_OP_ADD, {s, b.Op(TSR_OP_COS, {x})}, {}, {.name = "z"}));
  return *std::move(b).Build();
}

std::vector<HostTensor> Inputs() {
  HostTensor x{"x", TSR_DTYPE_F32, {64}, std::vector<uint8_t>(256)};
  float* v = reinterpret_cast<float*>(x.data.data());
  for (int i = 0; i < 64; ++i) v[i] = 0.1f * static_cast<float>(i) - 3.0f;
  return {x};
}

std::vector<float> Floats(const HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

struct BackgroundWarmupTest : ::testing::Test {
  void SetUp() override {
    absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
    ASSERT_TRUE(soc.ok()) << soc.status();
    options.soc = *soc;
    options.mode = CompileMode::kJit;
    options.accelerators = {"dsp", "cpu"};
    options.partitioning.policy = PartitionPolicy::kGreedy;  // the DSP gets its ops whatever they cost
    runtime.soc = *soc;
  }
  PluginRegistry registry = BundledPluginsForTest();
  CompileOptions options;
  RuntimeOptions runtime;
};

TEST_F(BackgroundWarmupTest, RunsUseTheCpuPlanUntilTheCompileIsDoneThenSwitchAtARunBoundary) {
  std::latch release_compile(1);
  WarmupHooks hooks;
  hooks.before_accelerated_compile = [&] { release_compile.wait(); };
  absl::StatusOr<std::unique_ptr<BackgroundWarmup>> warm =
      BackgroundWarmup::Start(Model(), registry, options, runtime, hooks);
  ASSERT_TRUE(warm.ok()) << warm.status();
  std::vector<float> before;
  for (int run = 0; run < 3; ++run) {
    WarmupPlan used = WarmupPlan::kAccelerated;
    absl::StatusOr<std::vector<HostTensor>> out = (*warm)->Run(Inputs(), nullptr, &used);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(used, WarmupPlan::kCpu) << "run " << run;
    EXPECT_FALSE((*warm)->accelerated_ready());
    before = Floats((*out)[0]);
  }
  // The cpu plan is the reference: sin(x) * x + cos(x), in f32.
  const std::vector<HostTensor> in = Inputs();
  const float* x = reinterpret_cast<const float*>(in[0].data.data());
  for (int i = 0; i < 64; ++i) EXPECT_NEAR(before[i], std::sin(x[i]) * x[i] + std::cos(x[i]), 1e-5f);

  release_compile.count_down();
  ASSERT_TRUE((*warm)->WaitForAccelerated().ok()) << (*warm)->WaitForAccelerated();
  ASSERT_NE((*warm)->accelerated_model(), nullptr);
  bool on_dsp = false;
  for (const PlannedPartition& p : (*warm)->accelerated_model()->plan.partitions) on_dsp |= p.vendor == "mock_dsp";
  EXPECT_TRUE(on_dsp);

  WarmupPlan used = WarmupPlan::kCpu;
  absl::StatusOr<std::vector<HostTensor>> out = (*warm)->Run(Inputs(), nullptr, &used);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(used, WarmupPlan::kAccelerated);
  const std::vector<float> after = Floats((*out)[0]);
  const OutputTolerance tol = (*warm)->accelerated_executor()->OutputToleranceFor(0, 1e-6, 1e-6);
  for (int i = 0; i < 64; ++i)
    EXPECT_LE(std::abs(after[i] - before[i]), tol.absolute + tol.relative * std::abs(before[i]))
        << "element " << i << " " << tol.Describe();
}

TEST_F(BackgroundWarmupTest, AFailedBackgroundCompileLeavesTheRunsOnTheCpuWithTheReason) {
  options.accelerators = {"no_such_accelerator"};
  absl::StatusOr<std::unique_ptr<BackgroundWarmup>> warm = BackgroundWarmup::Start(Model(), registry, options, runtime);
  ASSERT_TRUE(warm.ok()) << warm.status();
  const absl::Status status = (*warm)->WaitForAccelerated();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("runs stay on the cpu plan"));
  EXPECT_THAT(status.message(), HasSubstr("no_such_accelerator"));
  WarmupPlan used = WarmupPlan::kAccelerated;
  ASSERT_TRUE((*warm)->Run(Inputs(), nullptr, &used).ok());
  EXPECT_EQ(used, WarmupPlan::kCpu);
}

TEST_F(BackgroundWarmupTest, AotIsRefusedWithTheReason) {
  options.mode = CompileMode::kAot;
  absl::StatusOr<std::unique_ptr<BackgroundWarmup>> warm = BackgroundWarmup::Start(Model(), registry, options, runtime);
  ASSERT_FALSE(warm.ok());
  EXPECT_THAT(warm.status().message(), HasSubstr("JIT"));
}

}  // namespace
}  // namespace tessera
