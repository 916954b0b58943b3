// Per-run options (run_options.hpp): a run cancelled from another thread
// ends with TSR_CANCELLED, one past its deadline with
// TSR_DEADLINE_EXCEEDED, and its tag names it in the profile and the
// trace. The context runs normally again after each.
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/profile_report.hpp"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// y = OP(x) for x of `shape`, compiled for the cpu: one step.
CompiledModel CompileUnary(int32_t op, const std::vector<int64_t>& shape, const std::string& name) {
  const char* build = std::getenv("TESSERA_BUILD_DIR");  // ctest sets it
  EnvironmentOptions o;
  o.read_environment = false;
  o.bundled_plugin_directory = std::string(build ? build : ".") + "/lib";
  o.soc_directory = std::string(build ? build : ".") + "/share/tessera/socs";
  o.log_level = LogLevel::kError;
  Result<Environment> env = Environment::Create(o);
  EXPECT_TRUE(env.ok()) << env.status().message();
  tessera::ModelBuilder b("run_options_test");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, shape);
  b.Output(b.Op(op, {x}, {}, {.name = "y"}));
  const std::string path = (fs::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".tsr")).string();
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  Result<Model> model = Model::Load(path);
  fs::remove(path);
  EXPECT_TRUE(model.ok()) << model.status().message();
  Result<CompiledModel> compiled = CompiledModel::Compile(*env, *model, {.accelerators = {"cpu"}});
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  return *std::move(compiled);
}

Tensor SmallInput() {
  Tensor x = Tensor::Allocate({"x", TSR_DTYPE_F32, {1, 4}});
  const float v[4] = {-1.5f, 0.0f, 2.25f, -0.5f};
  for (int i = 0; i < 4; ++i) x.as<float>()[i] = v[i];
  return x;
}

void ExpectRelu(const Result<std::vector<Tensor>>& y) {
  ASSERT_TRUE(y.ok()) << y.status().message();
  const float want[4] = {0.0f, 0.0f, 2.25f, 0.0f};  // relu by hand
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*y)[0].as<float>()[i], want[i]) << i;
}

TEST(AppRunOptions, ACancelFromAnotherThreadEndsTheRunAndResetRunsAgain) {
  CompiledModel compiled = CompileUnary(TSR_OP_RELU, {1, 4}, "cancel");
  Result<RunContext> context = RunContext::Create(compiled);
  ASSERT_TRUE(context.ok());
  RunOptions options;
  ExpectRelu(context->Run({SmallInput()}, options));  // not cancelled: an ordinary run
  std::thread other([cancel = options.cancel] { cancel.Cancel(); });
  other.join();
  EXPECT_TRUE(options.cancel.cancelled());
  Result<std::vector<Tensor>> cancelled = context->Run({SmallInput()}, options);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.status().code(), TSR_CANCELLED);
  EXPECT_THAT(cancelled.status().message(), HasSubstr("cancelled after 0 of 1 steps"));
  // RunInto too, and the context keeps no limit for a run without options.
  std::vector<Tensor> out = {Tensor::Allocate(compiled.outputs()[0])};
  EXPECT_EQ(context->RunInto({SmallInput()}, out, options).code(), TSR_CANCELLED);
  ExpectRelu(context->Run({SmallInput()}));
  options.cancel.Reset();
  ExpectRelu(context->Run({SmallInput()}, options));
}

TEST(AppRunOptions, RunsInALoopStopOnceAnotherThreadCancels) {
  CompiledModel compiled = CompileUnary(TSR_OP_RELU, {1, 4}, "cancel_loop");
  Result<RunContext> context = RunContext::Create(compiled);
  ASSERT_TRUE(context.ok());
  RunOptions options;
  std::thread canceller([cancel = options.cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    cancel.Cancel();
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  Status last;
  size_t good = 0;
  while (std::chrono::steady_clock::now() < give_up) {
    Result<std::vector<Tensor>> y = context->Run({SmallInput()}, options);
    if (!y.ok()) {
      last = y.status();
      break;
    }
    ++good;
    EXPECT_EQ((*y)[0].as<float>()[2], 2.25f);
  }
  canceller.join();
  EXPECT_EQ(last.code(), TSR_CANCELLED) << last.message() << " after " << good << " good runs";
}

TEST(AppRunOptions, ARunPastItsDeadlineFailsAndOneWithinItSucceeds) {
  // sin over 4M floats (16 MB in, 16 MB out): far longer than 1 ms.
  CompiledModel compiled = CompileUnary(TSR_OP_SIN, {2048, 2048}, "deadline");
  Result<RunContext> context = RunContext::Create(compiled);
  ASSERT_TRUE(context.ok());
  Tensor x = Tensor::Allocate(compiled.inputs()[0]);
  for (size_t i = 0; i < 2048u * 2048u; ++i) x.as<float>()[i] = static_cast<float>(i % 7) * 0.5f;
  Result<std::vector<Tensor>> late = context->Run({x}, RunOptions{.deadline_ms = 1});
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), TSR_DEADLINE_EXCEEDED);
  EXPECT_THAT(late.status().message(), HasSubstr("passed its 1 ms deadline"));
  Result<std::vector<Tensor>> in_time = context->Run({x}, RunOptions{.deadline_ms = 600000});
  ASSERT_TRUE(in_time.ok()) << in_time.status().message();
  for (size_t i : {size_t{0}, size_t{1}, size_t{5}, size_t{2048 * 2048 - 1}})
    EXPECT_NEAR((*in_time)[0].as<float>()[i], std::sin(static_cast<double>(i % 7) * 0.5), 1e-5) << i;
}

TEST(AppRunOptions, TheTagNamesTheRunInItsProfileAndTrace) {
  CompiledModel compiled = CompileUnary(TSR_OP_RELU, {1, 4}, "tag");
  Result<RunContext> context = RunContext::Create(compiled);
  ASSERT_TRUE(context.ok());
  RunProfile profile;
  ExpectRelu(context->Run({SmallInput()}, RunOptions{.tag = "frame-42"}, &profile));
  EXPECT_EQ(profile.tag, "frame-42");
  EXPECT_THAT(ChromeTraceJson(profile, compiled), HasSubstr("\"tessera run: frame-42\""));
  RunProfile untagged;
  ExpectRelu(context->Run({SmallInput()}, &untagged));
  EXPECT_EQ(untagged.tag, "");
  EXPECT_THAT(ChromeTraceJson(untagged, compiled), HasSubstr("\"tessera run\""));
}

}  // namespace
}  // namespace tessera::app
