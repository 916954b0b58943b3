// Asynchronous execution end to end: the mock DSP's steps are queued with
// invoke_async (dispatch/execution_context_async.cc) on models that mix it with
// the cpu, and the app's RunAsync / tsr_app_run_async_sized run over any model.
// Expected values come from formulas written out below (in double, within
// the DSP's declared 1e-5), and an async run must equal the synchronous
// run of the same context byte for byte. Overlap is proven without clocks:
// the DSP holds its invoke (mock_dsp.hold_invoke) until the host step that
// must run meanwhile has ended, and only then is it released.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "framework/app/app_internal.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"
#include "testing/allocation_counter.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

constexpr int kRows = 2, kCols = 8, kCount = kRows * kCols;
float X(int i) { return static_cast<float>(i % 7 - 3) * 0.3f; }
float Y(int i) { return static_cast<float>(i % 5 - 2) * 0.2f; }
float W1(int i) { return static_cast<float>(i % 5 - 2) * 0.125f; }
float W2(int i) { return static_cast<float>(i % 3 - 1) * 0.25f; }

std::vector<float> Weights(float (*w)(int)) {
  std::vector<float> v(kCols * kCols);
  for (int i = 0; i < kCols * kCols; ++i) v[i] = w(i);
  return v;
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / (name + "_" + std::to_string(getpid()))).string();
}

// Dependencies both ways: f = x·W1ᵀ (cpu), g = sin(f)·f (DSP), out = g·W2ᵀ
// (cpu); and side = tanh(x), which nothing else reads (greedy puts it in
// the DSP's one partition with sin and mul).
std::string WriteMixedModel() {
  tessera::ModelBuilder b("async_mixed");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {kRows, kCols});
  b.Output(b.Op(TSR_OP_TANH, {x}, {}, {.name = "side"}));
  const int32_t f = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w1", {kCols, kCols}, Weights(W1))});
  const int32_t g = b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {f}), f});
  b.Output(
      b.Op(TSR_OP_FULLY_CONNECTED, {g, b.Constant<float>("w2", {kCols, kCols}, Weights(W2))}, {}, {.name = "out"}));
  const std::string path = TempPath("async_mixed") + ".tsr";
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}

// Two independent partitions: a = tanh(x) on the DSP, b = y·W1ᵀ on the cpu.
std::string WriteIndependentModel() {
  tessera::ModelBuilder b("async_independent");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {kRows, kCols});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {kRows, kCols});
  b.Output(b.Op(TSR_OP_TANH, {x}, {}, {.name = "a"}));
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {y, b.Constant<float>("w1", {kCols, kCols}, Weights(W1))}, {}, {.name = "b"}));
  const std::string path = TempPath("async_independent") + ".tsr";
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}

// row r of v·Wᵀ.
double Dot(float (*v)(int), const std::vector<double>* values, int r, int n, float (*w)(int)) {
  double s = 0;
  for (int k = 0; k < kCols; ++k) s += (values ? (*values)[r * kCols + k] : v(r * kCols + k)) * w(n * kCols + k);
  return s;
}

std::vector<double> ExpectedSide() {
  std::vector<double> out(kCount);
  for (int i = 0; i < kCount; ++i) out[i] = std::tanh(static_cast<double>(X(i)));
  return out;
}

std::vector<double> ExpectedOut() {
  std::vector<double> g(kCount), out(kCount);
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kCols; ++n) {
      const double f = Dot(X, nullptr, r, n, W1);
      g[r * kCols + n] = std::sin(f) * f;
    }
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kCols; ++n) out[r * kCols + n] = Dot(nullptr, &g, r, n, W2);
  return out;
}

std::vector<double> ExpectedB() {
  std::vector<double> out(kCount);
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kCols; ++n) out[r * kCols + n] = Dot(Y, nullptr, r, n, W1);
  return out;
}

void ExpectNear(const Tensor& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size() * sizeof(float));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.as<float>()[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << "element " << i;
}

Tensor Filled(const char* name, float (*v)(int)) {
  Tensor t = Tensor::Allocate({name, TSR_DTYPE_F32, {kRows, kCols}});
  for (int i = 0; i < kCount; ++i) t.as<float>()[i] = v(i);
  return t;
}

// The runtime's context under an app context: for the test hook and the
// synchronous reference run.
tessera::ExecutionContext& Inner(RunContext& context) { return *RunContextAccess::Of(context)->context; }

bool WaitForFile(const std::string& path) {
  for (int i = 0; i < 10000; ++i) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

class AsyncRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    mixed_ = new std::string(WriteMixedModel());
    independent_ = new std::string(WriteIndependentModel());
  }
  static void TearDownTestSuite() {
    std::remove(mixed_->c_str());
    std::remove(independent_->c_str());
    delete mixed_;
    delete independent_;
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
    hold_ = TempPath("async_hold");
    fs::remove(hold_);
    fs::remove(hold_ + ".held");
  }
  void TearDown() override {
    env_.reset();
    fs::remove(hold_);
    fs::remove(hold_ + ".held");
    std::lock_guard<std::mutex> lock(log_lock_);
    EXPECT_EQ(log_.find("still live"), std::string::npos) << log_;  // nothing leaked on the DSP
  }

  Result<CompiledModel> Compile(const std::string& path, std::vector<std::pair<std::string, std::string>> options,
                                CompileOptions o = {}, std::vector<std::string> accelerators = {"dsp", "cpu"}) {
    Result<Model> model = Model::Load(path);
    if (!model.ok()) return model.status();
    o.accelerators = std::move(accelerators);
    o.mode = CompileMode::kJit;
    o.policy = "greedy";
    o.soc = "ref-phone";  // it has a [mock_dsp] section
    o.plugin_options = std::move(options);
    return CompiledModel::Compile(*env_, *model, o);
  }
  std::vector<std::pair<std::string, std::string>> Hold() const {
    return {{"mock_dsp.hold_invoke", "1"}, {"mock_dsp.hold_file", hold_}, {"mock_dsp.hang_ms", "10000"}};
  }

  static std::vector<std::string> Vendors(const RunProfile& p) {
    std::vector<std::string> v;
    for (const RunProfile::Step& s : p.steps) v.push_back(s.vendor);
    return v;
  }

  static std::string* mixed_;
  static std::string* independent_;
  std::optional<Environment> env_;
  std::string hold_;
  std::mutex log_lock_;
  std::string log_;
};
std::string* AsyncRun::mixed_ = nullptr;
std::string* AsyncRun::independent_ = nullptr;

TEST_F(AsyncRun, CpuDspCpuOrderingHoldsAndEqualsTheSynchronousRun) {
  Result<CompiledModel> compiled = Compile(*mixed_, {});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok()) << context.status().message();
  const Tensor x = Filled("x", X);
  RunProfile p;
  Result<std::vector<Tensor>> async = context->Run({x}, &p);
  ASSERT_TRUE(async.ok()) << async.status().message();
  // cpu -> DSP (queued) -> cpu, as the steps started.
  EXPECT_EQ(Vendors(p), (std::vector<std::string>{"cpu", "mock_dsp", "cpu"}));
  ASSERT_EQ(async->size(), 2u);
  ExpectNear((*async)[0], ExpectedSide());
  ExpectNear((*async)[1], ExpectedOut());
  Inner(*context).SetAsynchronous(false);
  for (int run = 0; run < 3; ++run) {  // and again: the timelines' next values
    Result<std::vector<Tensor>> sync = context->Run({x});
    ASSERT_TRUE(sync.ok()) << sync.status().message();
    Inner(*context).SetAsynchronous(run % 2 == 1);
    Result<std::vector<Tensor>> again = context->Run({x});
    ASSERT_TRUE(again.ok()) << again.status().message();
    for (size_t o = 0; o < 2; ++o) {
      ASSERT_EQ(std::memcmp((*sync)[o].data(), (*async)[o].data(), (*sync)[o].size()), 0) << "output " << o;
      ASSERT_EQ(std::memcmp((*again)[o].data(), (*async)[o].data(), (*again)[o].size()), 0) << "output " << o;
    }
  }
}

// Queuing costs no allocation: one timeline per step made with the
// context, the wait lists inline, the DSP's queue a ring grown once. (The
// DSP's invoke allocates for its kernels either way.)
TEST_F(AsyncRun, QueuedStepsAllocateNoMoreThanSynchronousOnes) {
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizers replace operator new";
  Result<CompiledModel> compiled = Compile(*mixed_, {});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  const std::vector<Tensor> inputs = {Filled("x", X)};
  std::vector<Tensor> outputs = {Tensor::Allocate(compiled->outputs()[0]), Tensor::Allocate(compiled->outputs()[1])};
  auto run = [&] { return context->RunInto(inputs, outputs).ok(); };
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(run());  // warm-up, queued
  const int queued = AllocationsInRuns(20, run);
  Inner(*context).SetAsynchronous(false);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(run());
  const int synchronous = AllocationsInRuns(20, run);
  EXPECT_EQ(queued, synchronous);
}

TEST_F(AsyncRun, IndependentPartitionsOnTwoDevicesOverlap) {
  Result<CompiledModel> compiled = Compile(*independent_, Hold());
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok()) << context.status().message();
  // The cpu step starts only once the DSP holds its invoke, and the DSP is
  // released only after the cpu step ended: both ran at once, or (a runtime
  // that waited for the DSP first) the hold runs out and the DSP fails.
  bool saw_held = false;
  Inner(*context).SetHostStepHookForTest([&](size_t, bool done) {
    if (!done) {
      saw_held = WaitForFile(hold_ + ".held");
    } else {
      std::ofstream(hold_).flush();
    }
  });
  RunProfile p;
  Result<std::vector<Tensor>> out = context->Run({Filled("x", X), Filled("y", Y)}, &p);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(saw_held);
  EXPECT_TRUE(p.fallbacks.empty()) << p.fallbacks[0].reason;
  ASSERT_EQ(Vendors(p), (std::vector<std::string>{"mock_dsp", "cpu"}));
  // The DSP's interval (its own timestamps) holds the cpu step's.
  const RunProfile::Step& dsp = p.steps[0];
  const RunProfile::Step& cpu = p.steps[1];
  EXPECT_LE(dsp.start_us, cpu.start_us);
  EXPECT_LE(cpu.start_us + cpu.host_time_us, dsp.start_us + dsp.host_time_us);
  ExpectNear((*out)[0], ExpectedSide());
  ExpectNear((*out)[1], ExpectedB());
}

TEST_F(AsyncRun, AnAsyncFailureKeepsItsTextAndTheCpuPlanStillRuns) {
  CompileOptions o;
  o.max_retries = 0;
  Result<CompiledModel> compiled = Compile(*mixed_, {{"mock_dsp.fail_invoke", "1"}}, o);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  RunProfile p;
  Result<std::vector<Tensor>> out = context->Run({Filled("x", X)}, &p);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear((*out)[0], ExpectedSide());
  ExpectNear((*out)[1], ExpectedOut());
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].to, "cpu");
  EXPECT_EQ(p.fallbacks[0].attempts, 1);
  EXPECT_THAT(p.fallbacks[0].reason, HasSubstr("invoke 1 failed (fault injection: mock_dsp.fail_invoke=1)"));
  // The failed timeline was renewed: the next run is all on the DSP again.
  ASSERT_TRUE(context->Run({Filled("x", X)}, &p).ok());
  EXPECT_TRUE(p.fallbacks.empty());
  // Retried on the DSP (synchronously) when retries are on.
  Result<CompiledModel> retrying = Compile(*mixed_, {{"mock_dsp.fail_invoke", "1"}});
  ASSERT_TRUE(retrying.ok());
  Result<RunContext> c2 = RunContext::Create(*retrying);
  ASSERT_TRUE(c2.ok());
  ASSERT_TRUE(c2->Run({Filled("x", X)}, &p).ok());
  ASSERT_EQ(p.fallbacks.size(), 1u);
  EXPECT_EQ(p.fallbacks[0].to, "mock_dsp");
  EXPECT_EQ(p.fallbacks[0].attempts, 2);
  // Neither: the run's error is the injected one.
  CompileOptions strict;
  strict.max_retries = 0;
  strict.fallback = false;
  Result<CompiledModel> failing = Compile(*mixed_, {{"mock_dsp.fail_invoke", "1"}}, strict);
  ASSERT_TRUE(failing.ok());
  Result<RunContext> c3 = RunContext::Create(*failing);
  ASSERT_TRUE(c3.ok());
  Result<std::vector<Tensor>> failed = c3->Run({Filled("x", X)});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), TSR_UNAVAILABLE);
  EXPECT_THAT(failed.status().message(), HasSubstr("invoke 1 failed (fault injection: mock_dsp.fail_invoke=1)"));
  EXPECT_THAT(failed.status().message(), HasSubstr("fallback is off"));
}

TEST_F(AsyncRun, RunAsyncWorksOverASyncOnlyModelAndOverTheDsp) {
  for (const std::vector<std::string>& accelerators :
       {std::vector<std::string>{"cpu"}, std::vector<std::string>{"dsp", "cpu"}}) {
    Result<CompiledModel> compiled = Compile(*mixed_, {}, {}, accelerators);
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    Result<RunContext> context = RunContext::Create(*compiled);
    ASSERT_TRUE(context.ok());
    const Tensor x = Filled("x", X);
    Result<std::vector<Tensor>> sync = context->Run({x});
    ASSERT_TRUE(sync.ok());
    std::vector<Tensor> outputs = {Tensor::Allocate(compiled->outputs()[0]), Tensor::Allocate(compiled->outputs()[1])};
    RunProfile p;
    for (int run = 0; run < 3; ++run) {
      ASSERT_TRUE(context->RunAsync({x}, outputs, &p).ok());
      Status done = context->Wait();
      ASSERT_TRUE(done.ok()) << done.message();
      EXPECT_EQ(p.steps.size(), accelerators.size() == 1 ? 1u : 3u);
      for (size_t o = 0; o < 2; ++o)
        EXPECT_EQ(std::memcmp(outputs[o].data(), (*sync)[o].data(), outputs[o].size()), 0) << accelerators[0];
    }
    ExpectNear(outputs[0], ExpectedSide());
    ExpectNear(outputs[1], ExpectedOut());
    EXPECT_EQ(context->Wait().code(), TSR_FAILED_PRECONDITION);  // nothing in flight
  }
}

TEST_F(AsyncRun, OneRunInFlightPerContextAndATimedWait) {
  Result<CompiledModel> compiled = Compile(*independent_, Hold());
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  const Tensor x = Filled("x", X), y = Filled("y", Y);
  std::vector<Tensor> outputs = {Tensor::Allocate(compiled->outputs()[0]), Tensor::Allocate(compiled->outputs()[1])};
  ASSERT_TRUE(context->RunAsync({x, y}, outputs).ok());
  // Held on the DSP until the file exists: the run is certainly in flight.
  ASSERT_TRUE(WaitForFile(hold_ + ".held"));
  EXPECT_EQ(context->Wait(1'000'000).code(), TSR_DEADLINE_EXCEEDED);
  Result<std::vector<Tensor>> busy = context->Run({x, y});
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), TSR_FAILED_PRECONDITION);
  EXPECT_THAT(busy.status().message(), HasSubstr("an asynchronous run of this context is in flight"));
  EXPECT_EQ(context->RunAsync({x, y}, outputs).code(), TSR_FAILED_PRECONDITION);
  std::ofstream(hold_).flush();
  Status done = context->Wait();
  ASSERT_TRUE(done.ok()) << done.message();
  ExpectNear(outputs[0], ExpectedSide());
  ExpectNear(outputs[1], ExpectedB());
  // A bad tensor is refused at once, and nothing is left in flight.
  std::vector<Tensor> wrong = {Tensor::Allocate({"a", TSR_DTYPE_F32, {1}}), outputs[1]};
  EXPECT_EQ(context->RunAsync({x, y}, wrong).code(), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(context->Wait().code(), TSR_FAILED_PRECONDITION);
  // A context destroyed with a run in flight waits for it (the DSP is no
  // longer held: hold_invoke counted its one invoke). The tensors are
  // declared first, so they outlive it.
  std::vector<Tensor> last = {Tensor::Allocate(compiled->outputs()[0]), Tensor::Allocate(compiled->outputs()[1])};
  {
    Result<RunContext> doomed = RunContext::Create(*compiled);
    ASSERT_TRUE(doomed.ok());
    ASSERT_TRUE(doomed->RunAsync({x, y}, last).ok());
  }
  ExpectNear(last[0], ExpectedSide());
  ExpectNear(last[1], ExpectedB());
}

// The app's output vector, declared after the context, goes first when the
// scope ends, while the run is still in flight: the run shares the
// ownership of its Allocate()d tensors, so the worker writes into memory it
// still owns (before, ASan reported a heap-use-after-free here), and frees
// it when it ends. The profile, never collected by Wait, is never written.
TEST_F(AsyncRun, OutputsDroppedWhileTheRunIsInFlightAreHeldByIt) {
  Result<CompiledModel> compiled = Compile(*independent_, Hold());
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  std::optional<Tensor> kept;
  std::weak_ptr<std::vector<uint8_t>> dropped;
  RunProfile profile;
  {
    Result<RunContext> context = RunContext::Create(*compiled);
    ASSERT_TRUE(context.ok());
    // Declared after the context, so it goes first: lets the DSP finish.
    struct Release {
      std::string path;
      ~Release() { std::ofstream(path).flush(); }
    } release{hold_};
    {
      std::vector<Tensor> outputs = {Tensor::Allocate(compiled->outputs()[0]),
                                     Tensor::Allocate(compiled->outputs()[1])};
      // The inputs are temporaries too: gone once RunAsync returns.
      ASSERT_TRUE(context->RunAsync({Filled("x", X), Filled("y", Y)}, outputs, &profile).ok());
      kept.emplace(outputs[1]);
      dropped = TensorAccess::Owner(outputs[0]);
      ASSERT_TRUE(WaitForFile(hold_ + ".held"));  // the DSP holds the run: certainly in flight
    }
    EXPECT_FALSE(dropped.expired()) << "the run in flight must hold the output the app dropped";
  }  // the DSP is released, then the context waits for the run
  EXPECT_TRUE(dropped.expired()) << "the run must let go of the dropped output once it ended";
  ExpectNear(*kept, ExpectedB());
  EXPECT_TRUE(profile.steps.empty()) << "a profile is written by Wait only";
}

TEST_F(AsyncRun, TheCApiRunsAsynchronouslyToo) {
  const std::string lib = BuildDir() + "/lib", socs = BuildDir() + "/share/tessera/socs";
  tsr_app_environment_options eo{};
  eo.struct_size = sizeof(eo);
  eo.bundled_plugin_directory = lib.c_str();
  eo.soc_directory = socs.c_str();
  eo.log_level = TSR_LOG_ERROR;
  tsr_app_environment env = nullptr;
  ASSERT_EQ(tsr_app_environment_create(&eo, &env), TSR_OK) << tsr_app_last_error();
  tsr_app_model model = nullptr;
  ASSERT_EQ(tsr_app_model_load(mixed_->c_str(), nullptr, &model), TSR_OK) << tsr_app_last_error();
  for (const char* accelerators : {"cpu", "dsp,cpu"}) {
    tsr_app_compile_options co{};
    co.struct_size = sizeof(co);
    co.mode = 1;
    co.accelerators = accelerators;
    co.soc = "ref-phone";
    co.policy = "greedy";
    tsr_app_compiled_model compiled = nullptr;
    ASSERT_EQ(tsr_app_compile(env, model, &co, &compiled), TSR_OK) << tsr_app_last_error();
    tsr_app_run_context context = nullptr;
    ASSERT_EQ(tsr_app_run_context_create(compiled, &context), TSR_OK) << tsr_app_last_error();
    std::vector<float> x(kCount), side(kCount), out(kCount);
    for (int i = 0; i < kCount; ++i) x[i] = X(i);
    const void* inputs[] = {x.data()};
    void* outputs[] = {side.data(), out.data()};
    const size_t input_sizes[] = {sizeof(float) * kCount},
                 output_sizes[] = {sizeof(float) * kCount, sizeof(float) * kCount};
    EXPECT_EQ(tsr_app_run_wait(context, 0), TSR_FAILED_PRECONDITION);
    ASSERT_EQ(tsr_app_run_async_sized(context, inputs, input_sizes, 1, outputs, output_sizes, 2), TSR_OK)
        << tsr_app_last_error();
    ASSERT_EQ(tsr_app_run_wait(context, UINT64_MAX), TSR_OK) << tsr_app_last_error();
    const std::vector<double> want_side = ExpectedSide(), want_out = ExpectedOut();
    for (int i = 0; i < kCount; ++i) {
      EXPECT_NEAR(side[i], want_side[i], 1e-5 + 1e-5 * std::abs(want_side[i])) << accelerators << " " << i;
      EXPECT_NEAR(out[i], want_out[i], 1e-5 + 1e-5 * std::abs(want_out[i])) << accelerators << " " << i;
    }
    EXPECT_EQ(tsr_app_run_async_sized(context, inputs, input_sizes, 2, outputs, output_sizes, 2), TSR_INVALID_ARGUMENT);
    EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_async_sized: the model takes 1 inputs"));
    EXPECT_EQ(tsr_app_run_wait(nullptr, 0), TSR_INVALID_ARGUMENT);
    tsr_app_run_context_destroy(context);
    tsr_app_compiled_model_destroy(compiled);
  }
  tsr_app_model_destroy(model);
  tsr_app_environment_destroy(env);
}

}  // namespace
}  // namespace tessera::app
