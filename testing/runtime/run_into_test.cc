// ExecutionContext::RunInto: the caller's buffers in and out. A steady-state run
// of a model whose every step is on the NPU (the systolic plugin) makes no
// allocation at all, in the runtime or the plugin; wrong buffer
// counts and sizes are refused with messages that name the tensor; and Run,
// now a wrapper over it, gives the same bytes.
#include <cstring>
#include <vector>

#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compile_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/allocation_counter.h"
#include "testing/bundled_plugins_for_test.h"
#include "testing/fc_add_on_npu_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

class RunInto : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindCompilerByName("npu") == nullptr) GTEST_SKIP() << "npu not built";
    const absl::Status loaded = LoadFcAddOnNpuForTest("run_into", registry_, &compiled_, &context_);
    ASSERT_TRUE(loaded.ok()) << loaded;
  }

  std::vector<std::span<const uint8_t>> Inputs() const {
    return {{reinterpret_cast<const uint8_t*>(input_.data()), input_.size() * sizeof(float)}};
  }
  std::vector<std::span<uint8_t>> Outputs() {
    return {{reinterpret_cast<uint8_t*>(output_.data()), output_.size() * sizeof(float)}};
  }

  PluginRegistry registry_ = BundledPluginsForTest();
  CompiledGraph compiled_;
  std::unique_ptr<ExecutionContext> context_;
  std::vector<float> input_ = FcAddInputForTest();
  std::vector<float> output_ = std::vector<float>(4 * 16);
};

TEST_F(RunInto, ASteadyStateRunOnTheNpuAllocatesNothing) {
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizers replace operator new";
  for (const Op& op : compiled_.graph.ops) {
    ASSERT_TRUE(op.dispatch.has_value());
    ASSERT_EQ(op.dispatch->vendor, "systolic_npu") << "every step must be on the NPU for this test to mean anything";
  }
  const std::vector<std::span<const uint8_t>> in = Inputs();
  const std::vector<std::span<uint8_t>> out = Outputs();
  // Warm-up: first-run allocations (lazily made plugin state) are allowed.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(context_->RunInto(in, out).ok());
  EXPECT_EQ(AllocationsInRuns(20, [&] { return context_->RunInto(in, out).ok(); }), 0)
      << "operator new calls in 20 steady-state RunInto calls";
  // The counter does count: Run returns allocated outputs.
  AllocationCounter counter;
  ASSERT_TRUE(context_->Run({{"x", TSR_DTYPE_F32, {4, 16}, std::vector<uint8_t>(4 * 16 * 4)}}).ok());
  EXPECT_GT(counter.count(), 0);
}

TEST_F(RunInto, GivesWhatRunGives) {
  const std::vector<std::span<const uint8_t>> in = Inputs();
  ASSERT_TRUE(context_->RunInto(in, Outputs()).ok());
  HostTensor x{"x", TSR_DTYPE_F32, {4, 16}, std::vector<uint8_t>(in[0].begin(), in[0].end())};
  absl::StatusOr<std::vector<HostTensor>> run = context_->Run({x});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->size(), 1u);
  EXPECT_EQ((*run)[0].name, "out");
  ASSERT_EQ((*run)[0].data.size(), output_.size() * sizeof(float));
  EXPECT_EQ(std::memcmp((*run)[0].data.data(), output_.data(), (*run)[0].data.size()), 0);
}

TEST_F(RunInto, AWrongBufferCountIsRefused) {
  const std::vector<std::span<const uint8_t>> none;
  absl::Status s = context_->RunInto(none, Outputs());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("model takes 1 inputs and gives 1 outputs; got buffers for 0 inputs and 1 outputs"));
  std::vector<std::span<uint8_t>> two = Outputs();
  two.push_back(two[0]);
  s = context_->RunInto(Inputs(), two);
  EXPECT_THAT(s.message(), HasSubstr("got buffers for 1 inputs and 2 outputs"));
}

TEST_F(RunInto, AWrongBufferSizeIsRefusedByTensorName) {
  std::vector<std::span<const uint8_t>> short_input = Inputs();
  short_input[0] = short_input[0].first(255);
  absl::Status s = context_->RunInto(short_input, Outputs());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("input 0 ('x') is 256 bytes (f32 [4,16]); its buffer has 255"));
  std::vector<uint8_t> big(300);
  const std::vector<std::span<uint8_t>> long_output = {{big.data(), big.size()}};
  s = context_->RunInto(Inputs(), long_output);
  EXPECT_THAT(s.message(), HasSubstr("output 0 ('out') is 256 bytes (f32 [4,16]); its buffer has 300"));
}

}  // namespace
}  // namespace tessera
