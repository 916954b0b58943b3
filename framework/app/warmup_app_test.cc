// Background warm-up through the app API: Compile returns on the cpu plan,
// WaitForAccelerated() reports the JIT compile's end, runs before and after
// agree (the switch itself, held by a latch, is tested in
// framework/compiler/compile/background_warmup_test.cc), and AOT is refused.
#include <cmath>
#include <cstdlib>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"

namespace tessera::app {
namespace {
using ::testing::HasSubstr;

Environment Env() {
  const char* build = std::getenv("TESSERA_BUILD_DIR");
  EnvironmentOptions o;
  o.read_environment = false;
  o.bundled_plugin_directory = std::string(build ? build : ".") + "/lib";
  o.soc_directory = std::string(build ? build : ".") + "/share/tessera/socs";
  return *Environment::Create(o);
}

// z = sin(x) * x, x [32]: the DSP claims both ops.
Model SinTimesX() {
  tessera::ModelBuilder b("warm_app");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {32});
  b.Output(b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {x}), x}, {}, {.name = "z"}));
  absl::StatusOr<std::vector<uint8_t>> bytes = tessera::SerializeModel(*std::move(b).Build());
  return *Model::FromMemory(bytes->data(), bytes->size());
}

std::vector<float> RunOnce(RunContext& context) {
  Tensor x = Tensor::Allocate({"x", TSR_DTYPE_F32, {32}});
  float* v = static_cast<float*>(x.data());
  for (int i = 0; i < 32; ++i) v[i] = 0.2f * static_cast<float>(i) - 3.0f;
  Result<std::vector<Tensor>> out = context.Run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  const float* z = static_cast<const float*>((*out)[0].data());
  return std::vector<float>(z, z + 32);
}

// SinTimesX on dsp,cpu, JIT with a background warm-up.
Result<CompiledModel> CompileWarming(const Environment& env) {
  return CompiledModel::Compile(env, SinTimesX(),
                                {.accelerators = {"dsp", "cpu"},
                                 .mode = CompileMode::kJit,
                                 .soc = "ref-phone",
                                 .policy = "greedy",
                                 .background_warmup = true});
}

TEST(AppWarmup, RunsBeforeAndAfterTheBackgroundCompileAgree) {
  Environment env = Env();
  Result<CompiledModel> compiled = CompileWarming(env);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  const std::vector<float> first = RunOnce(*context);
  for (int i = 0; i < 32; ++i) {
    const float x = 0.2f * static_cast<float>(i) - 3.0f;
    EXPECT_NEAR(first[i], std::sin(x) * x, 1e-5f);
  }
  ASSERT_TRUE(compiled->WaitForAccelerated().ok()) << compiled->WaitForAccelerated().message();
  EXPECT_TRUE(compiled->accelerated());
  const std::vector<float> later = RunOnce(*context);
  // mock_dsp computes f32 (docs/mock_dsp.md): a few ulps of sin apart at most.
  for (int i = 0; i < 32; ++i) EXPECT_NEAR(later[i], first[i], 1e-5f + 1e-5f * std::abs(first[i]));
}

// Before the switch nothing was partitioned here; after it the report is
// the accelerated plan's: one DSP partition of both ops, and its JSON.
TEST(AppWarmup, TheReportIsTheAcceleratedPlansOnceSwitched) {
  Environment env = Env();
  Result<CompiledModel> compiled = CompileWarming(env);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  if (!compiled->accelerated()) {
    EXPECT_TRUE(compiled->partition_report().partitions.empty());
    EXPECT_EQ(compiled->partition_report_json(), "");
  }
  ASSERT_TRUE(compiled->WaitForAccelerated().ok());
  const PartitionReport& report = compiled->partition_report();
  ASSERT_EQ(report.partitions.size(), 1u);
  EXPECT_EQ(report.partitions[0].vendor, "mock_dsp");
  EXPECT_EQ(report.partitions[0].op_ids.size(), 2u);
  EXPECT_EQ(report.partitions[0].mode, "jit");
  EXPECT_NE(compiled->partition_report_json().find("\"vendor\":\"mock_dsp\""), std::string::npos)
      << compiled->partition_report_json();
  EXPECT_TRUE(compiled->partition_picture(CompiledModel::PictureFormat::kDot).ok());
}

TEST(AppWarmup, AotIsRefused) {
  Environment env = Env();
  Result<CompiledModel> compiled = CompiledModel::Compile(env, SinTimesX(), {.background_warmup = true});
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(compiled.status().message(), HasSubstr("kJit"));
}

}  // namespace
}  // namespace tessera::app
