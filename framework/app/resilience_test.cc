// The resilience policy (docs/resilience.md) through the public app API,
// against every fault option of the mock DSP: each run either gives the
// outputs of a formula written out below (within the DSP's declared 1e-5),
// or a clear error and no outputs; and nothing is leaked: the mock DSP
// logs an error for every executable, invocation or buffer still live when
// its device context is destroyed, and the test's log sink must see none.
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

constexpr int kRows = 2, kCols = 8;
float X(int i) { return static_cast<float>(i % 7 - 3) * 0.3f; }
float W(int i) { return static_cast<float>(i % 5 - 2) * 0.125f; }

// out = tanh(f) + f with f = (sin(x)·x)·Wᵀ: SIN, MUL on the DSP, the
// FULLY_CONNECTED on the cpu (the DSP refuses it), TANH, ADD on the DSP
// again: two DSP partitions, two DSP invokes per run.
std::string WriteModel() {
  tessera::ModelBuilder b("resilience_test");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {kRows, kCols});
  std::vector<float> w(kCols * kCols);
  for (int i = 0; i < kCols * kCols; ++i) w[i] = W(i);
  const int32_t a = b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {x}), x});
  const int32_t f = b.Op(TSR_OP_FULLY_CONNECTED, {a, b.Constant<float>("w", {kCols, kCols}, w)});
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_TANH, {f}), f}, {}, {.name = "out"}));
  const std::string path = (fs::temp_directory_path() / ("resilience_" + std::to_string(getpid()) + ".tsr")).string();
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}

// The formula, in double.
std::vector<double> Expected() {
  std::vector<double> out(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kCols; ++n) {
      double f = 0;
      for (int k = 0; k < kCols; ++k) {
        const double x = X(r * kCols + k);
        f += std::sin(x) * x * W(n * kCols + k);
      }
      out[r * kCols + n] = std::tanh(f) + f;
    }
  return out;
}

class Resilience : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { path_ = new std::string(WriteModel()); }
  static void TearDownTestSuite() {
    std::remove(path_->c_str());
    delete path_;
  }
  void SetUp() override {
    EnvironmentOptions o;
    o.read_environment = false;
    o.bundled_plugin_directory = BuildDir() + "/lib";
    o.soc_directory = BuildDir() + "/share/tessera/socs";
    o.log_level = LogLevel::kError;
    o.log_sink = [this](const std::string& vendor, LogLevel, const std::string& text) {
      std::lock_guard<std::mutex> lock(log_lock_);
      log_ += vendor + ": " + text + "\n";
    };
    Result<Environment> env = Environment::Create(o);
    ASSERT_TRUE(env.ok()) << env.status().message();
    env_.emplace(*std::move(env));
  }
  // Everything of the model is gone by now: the DSP checked its counts.
  void TearDown() override {
    env_.reset();
    std::lock_guard<std::mutex> lock(log_lock_);
    EXPECT_EQ(log_.find("still live"), std::string::npos) << log_;
  }

  Result<CompiledModel> Compile(std::vector<std::pair<std::string, std::string>> faults, CompileOptions o = {}) {
    Result<Model> model = Model::Load(*path_);
    if (!model.ok()) return model.status();
    o.accelerators = {"dsp", "cpu"};
    o.mode = CompileMode::kJit;
    o.policy = "greedy";
    o.soc = "ref-phone";  // it has a [mock_dsp] section
    o.plugin_options = std::move(faults);
    return CompiledModel::Compile(*env_, *model, o);
  }

  static Tensor Input() {
    Tensor t = Tensor::Allocate({"x", TSR_DTYPE_F32, {kRows, kCols}});
    for (int i = 0; i < kRows * kCols; ++i) t.as<float>()[i] = X(i);
    return t;
  }

  // One run; its outputs checked against the formula when it succeeds.
  static Status RunChecked(RunContext& context, RunProfile* profile) {
    Result<std::vector<Tensor>> out = context.Run({Input()}, profile);
    if (!out.ok()) return out.status();
    const std::vector<double> want = Expected();
    EXPECT_EQ(out->size(), 1u);
    for (int i = 0; i < kRows * kCols; ++i)
      EXPECT_NEAR((*out)[0].as<float>()[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << "element " << i;
    return Status();
  }

  static std::vector<std::string> Vendors(const RunProfile& p) {
    std::vector<std::string> v;
    for (const RunProfile::Step& s : p.steps) v.push_back(s.vendor);
    return v;
  }

  static std::string* path_;
  std::optional<Environment> env_;
  std::mutex log_lock_;
  std::string log_;
};
std::string* Resilience::path_ = nullptr;

const std::vector<std::string> kOnDsp = {"mock_dsp", "cpu", "mock_dsp"};
const std::vector<std::string> kOnCpu = {"cpu", "cpu", "cpu"};

TEST_F(Resilience, NoFaultRunsOnTheDspWithNoFallback) {
  Result<CompiledModel> compiled = Compile({});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnDsp);
  EXPECT_TRUE(p.fallbacks.empty());
}

TEST_F(Resilience, RefuseLoadIsAClearCompileError) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.refuse_load", "1"}});
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("mock_dsp: refusing to load (fault injection"));
}

TEST_F(Resilience, FailCompileOpMovesThatOpToTheCpu) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.fail_compile_op", "TANH"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_TRUE(p.fallbacks.empty());  // a compile-time move, in the partition report
}

TEST_F(Resilience, OneFailedInvokeIsRetriedOnTheDsp) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.fail_invoke", "2"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnDsp);
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].partition, 2u);
  EXPECT_EQ(p.fallbacks[0].to, "mock_dsp");
  EXPECT_EQ(p.fallbacks[0].failure, "transient");
  EXPECT_EQ(p.fallbacks[0].attempts, 2);
  EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("invoke 2 failed (fault injection: mock_dsp.fail_invoke=2)"));
}

TEST_F(Resilience, WithoutRetriesAFailedInvokeRunsTheCpuPlan) {
  CompileOptions o;
  o.max_retries = 0;
  Result<CompiledModel> compiled = Compile({{"mock_dsp.fail_invoke", "1"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), (std::vector<std::string>{"cpu", "cpu", "mock_dsp"}));
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].to, "cpu");
  EXPECT_EQ(p.fallbacks[0].attempts, 1);
}

TEST_F(Resilience, FailAfterMovesEveryLaterInvokeToTheCpuPlanRunAfterRun) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.fail_after", "1"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), (std::vector<std::string>{"mock_dsp", "cpu", "cpu"}));
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(RunChecked(*context, &p).ok());
    EXPECT_EQ(Vendors(p), kOnCpu);
    ASSERT_EQ(p.fallbacks.size(), 2u);
    EXPECT_EQ(p.fallbacks[1].attempts, 3);  // 1 + max_retries (2)
  }
}

TEST_F(Resilience, FailuresWithFallbackOffAreClearErrors) {
  CompileOptions o;
  o.fallback = false;
  Result<CompiledModel> compiled = Compile({{"mock_dsp.fail_after", "0"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  const Status s = RunChecked(*context, nullptr);
  EXPECT_EQ(s.code(), TSR_UNAVAILABLE);
  EXPECT_THAT(s.message(), HasSubstr("invoke 3 failed (fault injection: mock_dsp.fail_after=0) "
                                     "[transient, 3 attempts on mock_dsp; fallback is off]"));
}

TEST_F(Resilience, LatencyUnderTheDeadlineStaysOnTheDsp) {
  CompileOptions o;
  o.deadline_ms = 5000;
  Result<CompiledModel> compiled = Compile({{"mock_dsp.latency_us", "2000"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnDsp);
  EXPECT_TRUE(p.fallbacks.empty());
}

TEST_F(Resilience, LatencyOverTheDeadlineIsAbandonedForTheCpuPlan) {
  CompileOptions o;
  o.deadline_ms = 1;
  o.max_retries = 1;
  Result<CompiledModel> compiled = Compile({{"mock_dsp.latency_us", "3000"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnCpu);
  ASSERT_EQ(p.fallbacks.size(), 2u);
  EXPECT_EQ(p.fallbacks[0].failure, "deadline_exceeded");
  EXPECT_EQ(p.fallbacks[0].attempts, 2);
  EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("ms deadline"));
}

TEST_F(Resilience, CorruptResultsAreNeverUsed) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.corrupt", "1"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnCpu);
  ASSERT_EQ(p.fallbacks.size(), 2u);
  EXPECT_EQ(p.fallbacks[0].failure, "corrupt");
  EXPECT_EQ(p.fallbacks[0].attempts, 1);  // never retried: DATA_LOSS is TSR_RETRY_NEVER
  // Off: an error, and no outputs.
  CompileOptions off;
  off.fallback = false;
  Result<CompiledModel> strict = Compile({{"mock_dsp.corrupt", "1"}}, off);
  ASSERT_TRUE(strict.ok());
  Result<RunContext> c2 = RunContext::Create(*strict);
  ASSERT_TRUE(c2.ok());
  Result<std::vector<Tensor>> out = c2->Run({Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), TSR_DATA_LOSS);
  EXPECT_THAT(out.status().message(), HasSubstr("the outputs must not be used [corrupt, 1 attempt on mock_dsp"));
}

TEST_F(Resilience, ALostDeviceStaysOnTheCpuPlanForLaterRunsAndContexts) {
  Result<CompiledModel> compiled = Compile({{"mock_dsp.device_lost_after", "1"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), (std::vector<std::string>{"mock_dsp", "cpu", "cpu"}));
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].failure, "device_lost");
  EXPECT_EQ(p.fallbacks[0].attempts, 1);  // a lost device is not retried
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(RunChecked(*context, &p).ok());
    EXPECT_EQ(Vendors(p), kOnCpu);
    ASSERT_EQ(p.fallbacks.size(), 2u);
    EXPECT_EQ(p.fallbacks[0].attempts, 0);
    EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("mock_dsp was lost in an earlier step or run"));
  }
  // A context made after the loss creates nothing on the lost device.
  Result<RunContext> later = RunContext::Create(*compiled);
  ASSERT_TRUE(later.ok()) << later.status().message();
  ASSERT_TRUE(RunChecked(*later, &p).ok());
  EXPECT_EQ(Vendors(p), kOnCpu);
}

TEST_F(Resilience, AHungInvokeIsAbandonedAtItsDeadlineAndRetried) {
  CompileOptions o;
  o.deadline_ms = 20;
  Result<CompiledModel> compiled = Compile({{"mock_dsp.hang_invoke", "1"}, {"mock_dsp.hang_ms", "60"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  ASSERT_TRUE(RunChecked(*context, &p).ok());
  EXPECT_EQ(Vendors(p), kOnDsp);
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].failure, "deadline_exceeded");
  EXPECT_EQ(p.fallbacks[0].to, "mock_dsp");
  EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("invoke 1 hung for 60 ms"));
  EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("over its 20 ms deadline"));
}

TEST_F(Resilience, BadPolicyOptionsAreRefused) {
  CompileOptions o;
  o.max_retries = -1;
  Result<CompiledModel> compiled = Compile({}, o);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), TSR_INVALID_ARGUMENT);
}

// The C API's appended members, read only when struct_size covers them:
// an old-sized struct gets the defaults (a retry cures fail_invoke=1); the
// full one can turn retries and the fallback off (the run's error).
TEST_F(Resilience, TheCApiReadsThePolicyByStructSize) {
  const std::string lib = BuildDir() + "/lib", socs = BuildDir() + "/share/tessera/socs";
  const char* dirs[] = {lib.c_str()};
  tsr_app_environment_options eo{};
  eo.struct_size = sizeof(eo);
  eo.plugin_directories = dirs;
  eo.plugin_directory_count = 1;
  eo.bundled_plugin_directory = lib.c_str();
  eo.soc_directory = socs.c_str();
  eo.log_level = TSR_LOG_ERROR;
  tsr_app_environment env = nullptr;
  ASSERT_EQ(tsr_app_environment_create(&eo, &env), TSR_OK) << tsr_app_last_error();
  tsr_app_model model = nullptr;
  ASSERT_EQ(tsr_app_model_load(path_->c_str(), nullptr, &model), TSR_OK) << tsr_app_last_error();
  const tsr_key_value fault[] = {{"mock_dsp.fail_invoke", "1"}};
  Tensor in = Input();
  const void* inputs[] = {in.data()};
  std::vector<float> out(kRows * kCols);
  void* outputs[] = {out.data()};
  const size_t input_sizes[] = {in.size()}, output_sizes[] = {out.size() * sizeof(float)};
  for (const bool full : {false, true}) {
    tsr_app_compile_options o{};
    o.struct_size = full ? sizeof(o) : offsetof(tsr_app_compile_options, max_retries);
    o.mode = 1;
    o.accelerators = "dsp,cpu";
    o.soc = "ref-phone";
    o.plugin_options = fault;
    o.plugin_option_count = 1;
    o.policy = "greedy";
    o.max_retries = -1;
    o.no_fallback = 1;
    tsr_app_compiled_model compiled = nullptr;
    ASSERT_EQ(tsr_app_compile(env, model, &o, &compiled), TSR_OK) << tsr_app_last_error();
    tsr_app_run_context context = nullptr;
    ASSERT_EQ(tsr_app_run_context_create(compiled, &context), TSR_OK) << tsr_app_last_error();
    const tsr_status s = tsr_app_run_sized(context, inputs, input_sizes, 1, outputs, output_sizes, 1);
    if (full) {
      EXPECT_EQ(s, TSR_UNAVAILABLE);
      EXPECT_THAT(tsr_app_last_error(), HasSubstr("[transient, 1 attempt on mock_dsp; fallback is off]"));
    } else {
      EXPECT_EQ(s, TSR_OK) << tsr_app_last_error();
      const std::vector<double> want = Expected();
      for (int i = 0; i < kRows * kCols; ++i) EXPECT_NEAR(out[i], want[i], 1e-5 + 1e-5 * std::abs(want[i]));
    }
    tsr_app_run_context_destroy(context);
    tsr_app_compiled_model_destroy(compiled);
  }
  tsr_app_model_destroy(model);
  tsr_app_environment_destroy(env);
}

}  // namespace
}  // namespace tessera::app
