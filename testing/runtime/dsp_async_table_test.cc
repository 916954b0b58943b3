// The mock DSP's tsr_dispatch_async_api through the C table itself, on a
// real DSP executable (out = sin(x), compiled JIT and loaded by the
// runtime; the test makes its own invocations and buffers): queue order
// behind a wait point, a host signal releasing a queued invocation, a
// timeout while it is held, and an injected failure's own text on the
// timeline (sticky, and passed on to what waits on it). Expected values are
// std::sin of the inputs, never the DSP's own output.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/device_session.h"
#include "dispatch/loaded_model.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// [4,32] f32: each row is 128 bytes, one whole TCM line, so the DSP's
// padded-row layout (docs/mock_dsp.md, "TCM layout") is the dense one and
// the buffers here are filled and read densely.
constexpr int kCount = 128;
constexpr uint64_t kForever = UINT64_MAX;

float X(int i) { return static_cast<float>(i % 13 - 6) * 0.25f; }

Graph SinModel() {
  ModelBuilder b("dsp_async_table");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 32});
  b.Output(b.Op(TSR_OP_SIN, {x}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

class DspAsyncTable : public ::testing::Test {
 protected:
  void SetUp() override { Load({}); }
  void TearDown() override { Release(); }

  void Load(std::vector<std::pair<std::string, std::string>> options) {
    Release();
    if (registry_.FindCompilerByName("dsp") == nullptr) GTEST_SKIP() << "mock_dsp not built";
    absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
    ASSERT_TRUE(soc.ok()) << soc.status();
    CompileOptions c;
    c.soc = *soc;
    c.accelerators = {"dsp", "cpu"};
    c.mode = CompileMode::kJit;
    c.partitioning.policy = PartitionPolicy::kGreedy;
    absl::StatusOr<CompiledGraph> compiled = CompileGraph(SinModel(), registry_, c);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    compiled_ = *std::move(compiled);
    RuntimeOptions r;
    r.soc = *soc;
    r.plugin_options = std::move(options);
    absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
        LoadedModel::Create(compiled_.graph, compiled_.jit_slots, registry_, r);
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
    ASSERT_EQ(model_->steps().size(), 1u);
    ASSERT_EQ(model_->sessions()[model_->steps()[0].session]->library().vendor, "mock_dsp");
    session_ = model_->sessions()[model_->steps()[0].session].get();
    api_ = session_->api();
    async_ = api_->async;
    ASSERT_NE(async_, nullptr) << "the mock DSP has the async table";
  }

  void Release() {
    for (tsr_timeline t : timelines_) async_->destroy_timeline(t);
    for (tsr_invocation i : invocations_) api_->destroy_invocation(i);
    for (tsr_buffer b : buffers_) api_->release_buffer(b);
    timelines_.clear();
    invocations_.clear();
    buffers_.clear();
    model_.reset();
  }

  tsr_timeline Timeline(uint64_t initial = 0) {
    tsr_timeline t = nullptr;
    EXPECT_EQ(async_->create_timeline(session_->context(), initial, &t), TSR_OK) << api_->get_last_error();
    timelines_.push_back(t);
    return t;
  }

  tsr_buffer Buffer(const std::vector<float>& values) {
    tsr_buffer_requirements req{};
    req.header = HostFilledHeader(sizeof(req), session_->library().version);
    EXPECT_EQ(api_->buffer_requirements(model_->steps()[0].executable, TSR_IO_INPUT, 0, &req), TSR_OK);
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), session_->library().version);
    desc.buffer_type = req.buffer_types[req.buffer_type_count - 1];  // the TCM: listed last
    desc.size_bytes = req.size_bytes;
    desc.fd = -1;
    tsr_buffer b = nullptr;
    EXPECT_EQ(api_->allocate_buffer(session_->context(), &desc, &b), TSR_OK) << api_->get_last_error();
    buffers_.push_back(b);
    void* p = nullptr;
    EXPECT_EQ(api_->map_buffer(b, &p), TSR_OK);
    std::memcpy(p, values.data(), values.size() * sizeof(float));
    EXPECT_EQ(api_->unmap_buffer(b), TSR_OK);
    return b;
  }

  std::vector<float> Read(tsr_buffer b) {
    std::vector<float> out(kCount);
    void* p = nullptr;
    EXPECT_EQ(api_->map_buffer(b, &p), TSR_OK);
    std::memcpy(out.data(), p, out.size() * sizeof(float));
    EXPECT_EQ(api_->unmap_buffer(b), TSR_OK);
    return out;
  }

  tsr_invocation Invocation(tsr_buffer in, tsr_buffer out) {
    tsr_invocation inv = nullptr;
    EXPECT_EQ(api_->create_invocation(model_->steps()[0].executable, &inv), TSR_OK);
    invocations_.push_back(inv);
    EXPECT_EQ(api_->attach_input(inv, 0, in), TSR_OK);
    EXPECT_EQ(api_->attach_output(inv, 0, out), TSR_OK);
    return inv;
  }

  std::string FailureText(tsr_timeline t, tsr_status* failure) {
    char text[512] = {};
    size_t length = 0;
    EXPECT_EQ(async_->query(t, nullptr, failure, text, sizeof(text), &length), TSR_OK);
    return text;
  }

  static std::vector<float> Inputs() {
    std::vector<float> v(kCount);
    for (int i = 0; i < kCount; ++i) v[i] = X(i);
    return v;
  }

  PluginRegistry registry_ = BundledPluginsForTest();
  CompiledGraph compiled_;
  std::shared_ptr<const LoadedModel> model_;
  const DeviceSession* session_ = nullptr;
  const tsr_dispatch_api* api_ = nullptr;
  const tsr_dispatch_async_api* async_ = nullptr;
  std::vector<tsr_timeline> timelines_;
  std::vector<tsr_invocation> invocations_;
  std::vector<tsr_buffer> buffers_;
};

TEST_F(DspAsyncTable, TheSecondInvocationWaitsForTheFirstsPoint) {
  tsr_buffer a = Buffer(Inputs()), b = Buffer(std::vector<float>(kCount)), c = Buffer(std::vector<float>(kCount));
  tsr_invocation first = Invocation(a, b), second = Invocation(b, c);  // c = sin(sin(x))
  tsr_timeline t1 = Timeline(), t2 = Timeline();
  ASSERT_EQ(async_->invoke_async(first, nullptr, 0, {t1, 1}), TSR_OK) << api_->get_last_error();
  const tsr_timeline_point after_first{t1, 1};
  ASSERT_EQ(async_->invoke_async(second, &after_first, 1, {t2, 1}), TSR_OK) << api_->get_last_error();
  ASSERT_EQ(async_->wait({t2, 1}, kForever), TSR_OK) << api_->get_last_error();
  uint64_t v1 = 0;
  tsr_status failure = TSR_INTERNAL;
  ASSERT_EQ(async_->query(t1, &v1, &failure, nullptr, 0, nullptr), TSR_OK);
  EXPECT_EQ(v1, 1u);
  EXPECT_EQ(failure, TSR_OK);
  const std::vector<float> got = Read(c);
  for (int i = 0; i < kCount; ++i) EXPECT_NEAR(got[i], std::sin(std::sin(X(i))), 1e-5) << i;
  // The second ran after the first ended: the library's own timestamps.
  tsr_invocation_timing t_first{}, t_second{};
  t_first.header = t_second.header = HostFilledHeader(sizeof(t_first), session_->library().version);
  ASSERT_EQ(api_->invocation_timing(first, &t_first), TSR_OK);
  ASSERT_EQ(api_->invocation_timing(second, &t_second), TSR_OK);
  EXPECT_LE(t_first.end_ns, t_second.start_ns);
  // The next run signals value + 1 on the same timelines.
  ASSERT_EQ(async_->invoke_async(first, nullptr, 0, {t1, 2}), TSR_OK);
  ASSERT_EQ(async_->wait({t1, 2}, kForever), TSR_OK);
}

TEST_F(DspAsyncTable, AHostSignalReleasesAQueuedInvocationAndAShortWaitTimesOut) {
  tsr_buffer a = Buffer(Inputs()), b = Buffer(std::vector<float>(kCount));
  tsr_invocation inv = Invocation(a, b);
  tsr_timeline host = Timeline(), done = Timeline();
  const tsr_timeline_point gate{host, 1};
  ASSERT_EQ(async_->invoke_async(inv, &gate, 1, {done, 1}), TSR_OK);
  // Held on an unsignalled host point: a wait of 1 ms runs out.
  EXPECT_EQ(async_->wait({done, 1}, 1'000'000), TSR_DEADLINE_EXCEEDED);
  EXPECT_THAT(api_->get_last_error(), HasSubstr("not reached within 1000000 ns"));
  uint64_t value = 7;
  ASSERT_EQ(async_->query(done, &value, nullptr, nullptr, 0, nullptr), TSR_OK);
  EXPECT_EQ(value, 0u);
  ASSERT_EQ(async_->signal(gate), TSR_OK);
  ASSERT_EQ(async_->wait({done, 1}, kForever), TSR_OK) << api_->get_last_error();
  const std::vector<float> got = Read(b);
  for (int i = 0; i < kCount; ++i) EXPECT_NEAR(got[i], std::sin(X(i)), 1e-5) << i;
  // A timeline only grows.
  EXPECT_EQ(async_->signal(gate), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(api_->get_last_error(), HasSubstr("a timeline only grows"));
}

TEST_F(DspAsyncTable, AFailureStaysOnItsTimelineWithItsTextAndPassesOnToItsWaiters) {
  Load({{"mock_dsp.fail_invoke", "1"}});
  tsr_buffer a = Buffer(Inputs()), b = Buffer(std::vector<float>(kCount)), c = Buffer(std::vector<float>(kCount));
  tsr_invocation first = Invocation(a, b), second = Invocation(b, c);
  tsr_timeline t1 = Timeline(), t2 = Timeline();
  ASSERT_EQ(async_->invoke_async(first, nullptr, 0, {t1, 1}), TSR_OK);
  const tsr_timeline_point after_first{t1, 1};
  ASSERT_EQ(async_->invoke_async(second, &after_first, 1, {t2, 1}), TSR_OK);
  EXPECT_EQ(async_->wait({t1, 1}, kForever), TSR_UNAVAILABLE);
  EXPECT_THAT(api_->get_last_error(), HasSubstr("invoke 1 failed (fault injection: mock_dsp.fail_invoke=1)"));
  tsr_status failure = TSR_OK;
  EXPECT_THAT(FailureText(t1, &failure), HasSubstr("invoke 1 failed (fault injection: mock_dsp.fail_invoke=1)"));
  EXPECT_EQ(failure, TSR_UNAVAILABLE);
  // The waiter did not run (its input was never made) and says why.
  EXPECT_EQ(async_->wait({t2, 1}, kForever), TSR_UNAVAILABLE);
  EXPECT_THAT(FailureText(t2, &failure), HasSubstr("a timeline it waits on failed: mock_dsp: invoke 1 failed"));
  // Sticky: later work on the failed timeline fails without running.
  ASSERT_EQ(async_->invoke_async(first, nullptr, 0, {t1, 2}), TSR_OK);
  EXPECT_EQ(async_->wait({t1, 2}, kForever), TSR_UNAVAILABLE);
  EXPECT_EQ(async_->signal({t1, 3}), TSR_UNAVAILABLE);
  // A fresh timeline runs the invocation (the fault was only the first invoke).
  tsr_timeline fresh = Timeline();
  ASSERT_EQ(async_->invoke_async(first, nullptr, 0, {fresh, 1}), TSR_OK);
  ASSERT_EQ(async_->wait({fresh, 1}, kForever), TSR_OK) << api_->get_last_error();
  const std::vector<float> got = Read(b);
  for (int i = 0; i < kCount; ++i) EXPECT_NEAR(got[i], std::sin(X(i)), 1e-5) << i;
}

TEST_F(DspAsyncTable, BadArgumentsAreErrorsNotCrashes) {
  tsr_buffer a = Buffer(Inputs()), b = Buffer(std::vector<float>(kCount));
  tsr_invocation inv = Invocation(a, b);
  tsr_timeline t = Timeline();
  EXPECT_EQ(async_->create_timeline(nullptr, 0, &t), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->invoke_async(nullptr, nullptr, 0, {t, 1}), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->invoke_async(inv, nullptr, 0, {nullptr, 1}), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->invoke_async(inv, nullptr, 1, {t, 1}), TSR_INVALID_ARGUMENT);
  const tsr_timeline_point nowhere{nullptr, 1};
  EXPECT_EQ(async_->invoke_async(inv, &nowhere, 1, {t, 1}), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->wait({nullptr, 1}, 0), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->query(nullptr, nullptr, nullptr, nullptr, 0, nullptr), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(async_->signal({nullptr, 1}), TSR_INVALID_ARGUMENT);
  async_->destroy_timeline(nullptr);  // accepted
  // Another context's timeline is refused: timelines are per context here.
  std::unique_ptr<DeviceSession> other;
  {
    absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
    ASSERT_TRUE(soc.ok());
    absl::StatusOr<std::unique_ptr<DeviceSession>> s = DeviceSession::Create(session_->library(), *soc, {});
    ASSERT_TRUE(s.ok()) << s.status();
    other = *std::move(s);
  }
  tsr_timeline foreign = nullptr;
  ASSERT_EQ(async_->create_timeline(other->context(), 0, &foreign), TSR_OK);
  const tsr_timeline_point there{foreign, 1};
  EXPECT_EQ(async_->invoke_async(inv, &there, 1, {t, 1}), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(api_->get_last_error(), HasSubstr("another device context"));
  EXPECT_EQ(async_->invoke_async(inv, nullptr, 0, {foreign, 1}), TSR_INVALID_ARGUMENT);
  async_->destroy_timeline(foreign);
  // A short wait on an unreached point of an idle timeline times out.
  EXPECT_EQ(async_->wait({t, 1}, 0), TSR_DEADLINE_EXCEEDED);
}

}  // namespace
}  // namespace tessera
