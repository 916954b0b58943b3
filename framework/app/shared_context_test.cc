// One run context shared by several threads, as apps share an ONNX Runtime
// session: its runs are serialized (RunContext::Impl::run_lock), so every
// output is its own caller's. Each thread runs its own input many times
// through one context, in C++ (Run, RunInto) and in C (tsr_app_run_sized),
// and every output must equal, byte for byte, the single-threaded run of
// that input, itself checked against the model's arithmetic by hand.
// Before the lock, 4 threads got wrong outputs silently (or heap
// corruption). In the TSan set (scripts/tsan.sh).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"

namespace tessera::app {
namespace {

namespace fs = std::filesystem;

// Rows enough that a run lasts long enough for the threads' runs to meet.
constexpr int kThreads = 4, kRuns = 200, kRows = 64, kCols = 64, kCount = kRows * kCols;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

float W(int i) { return static_cast<float>(i % 5 - 2) * 0.125f; }
float XOf(int seed, int i) { return static_cast<float>((i * 3 + seed) % 9 - 4) * 0.25f; }

// out = relu(x·Wᵀ) + sin(x·Wᵀ), x [64, 64]: FULLY_CONNECTED and RELU on the
// NPU, SIN on the cpu (two partitions and the copies between them).
std::string WriteModel() {
  tessera::ModelBuilder b("shared_context");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {kRows, kCols});
  std::vector<float> w(kCols * kCols);
  for (int i = 0; i < kCols * kCols; ++i) w[i] = W(i);
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {kCols, kCols}, w)});
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_RELU, {fc}), b.Op(TSR_OP_SIN, {fc})}, {}, {.name = "out"}));
  const std::string path =
      (fs::temp_directory_path() / ("shared_context_" + std::to_string(getpid()) + ".tsr")).string();
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}

// The model's arithmetic by hand, in double.
std::vector<double> Want(int seed) {
  std::vector<double> y(kCount);
  for (int r = 0; r < kRows; ++r)
    for (int o = 0; o < kCols; ++o) {
      double fc = 0;
      for (int i = 0; i < kCols; ++i) fc += static_cast<double>(XOf(seed, r * kCols + i)) * W(o * kCols + i);
      y[r * kCols + o] = std::max(fc, 0.0) + std::sin(fc);
    }
  return y;
}

std::vector<float> InputValues(int seed) {
  std::vector<float> x(kCount);
  for (int i = 0; i < kCount; ++i) x[i] = XOf(seed, i);
  return x;
}

class SharedContext : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = WriteModel();
    EnvironmentOptions o;
    o.read_environment = false;
    o.bundled_plugin_directory = BuildDir() + "/lib";
    o.soc_directory = BuildDir() + "/share/tessera/socs";
    Result<Environment> env = Environment::Create(o);
    ASSERT_TRUE(env.ok()) << env.status().message();
    Result<Model> model = Model::Load(path_);
    ASSERT_TRUE(model.ok()) << model.status().message();
    Result<CompiledModel> compiled = CompiledModel::Compile(*env, *model, {.accelerators = {"npu", "cpu"}});
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    compiled_.emplace(*std::move(compiled));
    // The single-threaded answers, checked by hand (the NPU computes in FP16).
    Result<RunContext> c = RunContext::Create(*compiled_);
    ASSERT_TRUE(c.ok());
    for (int t = 0; t < kThreads; ++t) {
      Result<std::vector<Tensor>> y = c->Run({Input(t)});
      ASSERT_TRUE(y.ok()) << y.status().message();
      const std::vector<double> want = Want(t);
      for (int i = 0; i < kCount; ++i)
        ASSERT_NEAR((*y)[0].as<float>()[i], want[i], 2e-2 + 1e-2 * std::abs(want[i])) << "seed " << t << " at " << i;
      const auto* p = static_cast<const uint8_t*>((*y)[0].data());
      want_.emplace_back(p, p + (*y)[0].size());
    }
  }
  void TearDown() override { std::remove(path_.c_str()); }

  Tensor Input(int seed) const {
    Tensor t = Tensor::Allocate(compiled_->inputs()[0]);
    const std::vector<float> x = InputValues(seed);
    std::memcpy(t.data(), x.data(), sizeof(float) * kCount);
    return t;
  }

  // Runs `body(thread, wrong)` on kThreads threads, started together;
  // every count of wrong outputs must be 0.
  template <typename Body>
  void OnThreads(Body body) {
    std::vector<int> wrong(kThreads, 0);
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        body(t, wrong[t]);
      });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong, std::vector<int>(kThreads, 0)) << "wrong outputs of " << kRuns << " runs per thread";
  }

  std::string path_;
  std::optional<CompiledModel> compiled_;
  std::vector<std::vector<uint8_t>> want_;
};

TEST_F(SharedContext, FourThreadsOnOneContextEachGetTheirOwnOutputs) {
  Result<RunContext> shared = RunContext::Create(*compiled_);
  ASSERT_TRUE(shared.ok());
  OnThreads([&](int t, int& wrong) {
    const Tensor x = Input(t);
    std::vector<Tensor> into = {Tensor::Allocate(compiled_->outputs()[0])};
    for (int r = 0; r < kRuns; ++r) {
      // Run and RunInto alternate: both take the context's turn.
      if (r % 2 == 0) {
        Result<std::vector<Tensor>> y = shared->Run({x});
        if (!y.ok() || std::memcmp((*y)[0].data(), want_[t].data(), want_[t].size()) != 0) ++wrong;
      } else {
        const Status s = shared->RunInto({x}, into);
        if (!s.ok() || std::memcmp(into[0].data(), want_[t].data(), want_[t].size()) != 0) ++wrong;
      }
    }
  });
}

TEST_F(SharedContext, FourThreadsOnOneCContextEachGetTheirOwnOutputs) {
  const std::string lib = BuildDir() + "/lib", socs = BuildDir() + "/share/tessera/socs";
  tsr_app_environment_options eo{};
  eo.struct_size = sizeof(eo);
  eo.bundled_plugin_directory = lib.c_str();
  eo.soc_directory = socs.c_str();
  eo.log_level = TSR_LOG_ERROR;
  tsr_app_environment env = nullptr;
  ASSERT_EQ(tsr_app_environment_create(&eo, &env), TSR_OK) << tsr_app_last_error();
  tsr_app_model model = nullptr;
  ASSERT_EQ(tsr_app_model_load(path_.c_str(), nullptr, &model), TSR_OK) << tsr_app_last_error();
  tsr_app_compile_options co{};
  co.struct_size = sizeof(co);
  co.accelerators = "npu,cpu";
  tsr_app_compiled_model compiled = nullptr;
  ASSERT_EQ(tsr_app_compile(env, model, &co, &compiled), TSR_OK) << tsr_app_last_error();
  tsr_app_run_context shared = nullptr;
  ASSERT_EQ(tsr_app_run_context_create(compiled, &shared), TSR_OK) << tsr_app_last_error();
  OnThreads([&](int t, int& wrong) {
    const std::vector<float> x = InputValues(t);
    std::vector<float> y(kCount);
    const void* in[] = {x.data()};
    void* out[] = {y.data()};
    const size_t in_size[] = {sizeof(float) * kCount}, out_size[] = {sizeof(float) * kCount};
    for (int r = 0; r < kRuns; ++r) {
      std::fill(y.begin(), y.end(), -1.0f);
      if (tsr_app_run_sized(shared, in, in_size, 1, out, out_size, 1) != TSR_OK ||
          std::memcmp(y.data(), want_[t].data(), want_[t].size()) != 0)
        ++wrong;
    }
  });
  EXPECT_EQ(tsr_app_run_context_destroy(shared), TSR_OK);
  EXPECT_EQ(tsr_app_compiled_model_destroy(compiled), TSR_OK);
  EXPECT_EQ(tsr_app_model_destroy(model), TSR_OK);
  EXPECT_EQ(tsr_app_environment_destroy(env), TSR_OK);
}

}  // namespace
}  // namespace tessera::app
