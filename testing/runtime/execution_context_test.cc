// One loaded model, many threads: each thread's ExecutionContext gives exactly
// the outputs a single-threaded run gives for the same inputs, on the cpu
// alone and on npu,cpu (where tensors cross libraries). Also the ModelExecutor
// convenience form, whose Run() serializes callers. Bounded: 4 threads x 25
// runs of a small model. The sanitizer builds run it too (TSan: see
// .ci/run).
#include "dispatch/execution_context.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
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

constexpr int kThreads = 4;
constexpr int kRuns = 25;

PluginRegistry Registry() { return BundledPluginsForTest(); }

// out = sin(relu(x·Wᵀ + b)) + x·Wᵀ: on npu,cpu the FC and ADD go to the
// NPU and SIN to the cpu, so tensors cross libraries both ways.
Graph Model() {
  ModelBuilder b("concurrent");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 16});
  std::vector<float> w(16 * 16), bias(16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.125f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 3) * 0.25f;
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {16, 16}, w)});
  const int32_t biased = b.Op(TSR_OP_ADD, {fc, b.Constant<float>("b", {16}, bias)});
  const int32_t s = b.Op(TSR_OP_SIN, {b.Op(TSR_OP_RELU, {biased})});
  b.Output(b.Op(TSR_OP_ADD, {s, fc}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

// Distinct inputs per thread, so a context that read another's buffers
// would show.
std::vector<HostTensor> Inputs(int seed) {
  HostTensor x{"x", TSR_DTYPE_F32, {4, 16}, std::vector<uint8_t>(4 * 16 * 4)};
  std::vector<float> v(64);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((static_cast<int>(i) * 7 + seed * 13) % 17 - 8) * 0.0625f;
  std::memcpy(x.data.data(), v.data(), x.data.size());
  return {x};
}

class Concurrent : public ::testing::TestWithParam<std::vector<std::string>> {
 protected:
  void SetUp() override {
    for (const std::string& a : GetParam())
      if (a != "cpu" && registry_.FindCompilerByName(a) == nullptr) GTEST_SKIP() << a << " not built";
    CompileOptions options;
    options.accelerators = GetParam();
    options.partitioning.policy = PartitionPolicy::kGreedy;  // the accelerator runs, even where it does not pay
    options.precision = AllowFp16ForTest(Model());           // the NPU's FC is FP16
    absl::StatusOr<CompiledGraph> compiled = CompileGraph(Model(), registry_, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    compiled_ = std::move(*compiled);
    absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
        LoadedModel::Create(compiled_.graph, compiled_.jit_slots, registry_, {});
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
    // The single-threaded answers, one per thread's inputs.
    absl::StatusOr<std::unique_ptr<ExecutionContext>> c = ExecutionContext::Create(model_);
    ASSERT_TRUE(c.ok()) << c.status();
    for (int t = 0; t < kThreads; ++t) {
      absl::StatusOr<std::vector<HostTensor>> out = (*c)->Run(Inputs(t));
      ASSERT_TRUE(out.ok()) << out.status();
      want_.push_back(out->at(0).data);
    }
  }

  PluginRegistry registry_ = Registry();
  CompiledGraph compiled_;
  std::shared_ptr<const LoadedModel> model_;
  std::vector<std::vector<uint8_t>> want_;
};

TEST_P(Concurrent, EachThreadsContextMatchesTheSingleThreadedRun) {
  ASSERT_GT(compiled_.graph.ops.size(), GetParam().size() > 1 ? 1u : 0u) << "expected the npu,cpu model to split";
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<std::unique_ptr<ExecutionContext>> c = ExecutionContext::Create(model_);
      if (!c.ok()) {
        ++failed;
        return;
      }
      const std::vector<HostTensor> inputs = Inputs(t);
      for (int r = 0; r < kRuns; ++r) {
        absl::StatusOr<std::vector<HostTensor>> out = (*c)->Run(inputs);
        if (!out.ok())
          ++failed;
        else if (out->at(0).data != want_[t])
          ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << "of " << kThreads * kRuns << " runs";
}

TEST_P(Concurrent, OneExecutorRunFromManyThreadsIsSerializedAndRight) {
  absl::StatusOr<std::unique_ptr<ModelExecutor>> e =
      ModelExecutor::Create(compiled_.graph, compiled_.jit_slots, registry_, {});
  ASSERT_TRUE(e.ok()) << e.status();
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::vector<HostTensor> inputs = Inputs(t);
      for (int r = 0; r < kRuns; ++r) {
        absl::StatusOr<std::vector<HostTensor>> out = (*e)->Run(inputs);
        if (!out.ok())
          ++failed;
        else if (out->at(0).data != want_[t])
          ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << "of " << kThreads * kRuns << " runs";
}

// A DISPATCH op can name only a vendor whose dispatch library is loaded:
// otherwise loading fails with NotFound naming the library it needs, and
// nothing else is opened in its place.
TEST(LoadedModel, ADispatchOpOfAVendorNotLoadedIsRefusedByName) {
  const PluginRegistry registry = Registry();
  CompileOptions options;
  options.accelerators = {"cpu"};
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(Model(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  PluginSearchOptions none;
  none.read_environment = false;  // no directory at all: nothing loaded
  const PluginRegistry empty = PluginRegistry::Discover(none);
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, empty, {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(loaded.status().message()).find("libtessera_dispatch_cpu.so"), std::string::npos)
      << loaded.status();
}

INSTANTIATE_TEST_SUITE_P(Accelerators, Concurrent,
                         ::testing::Values(std::vector<std::string>{"cpu"}, std::vector<std::string>{"npu", "cpu"}),
                         [](const auto& info) { return info.param.size() == 1 ? "cpu" : "npu_cpu"; });

}  // namespace
}  // namespace tessera
