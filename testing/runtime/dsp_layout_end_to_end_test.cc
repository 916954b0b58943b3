// Layout negotiation end to end: a model on the mock DSP and the cpu, the
// DSP holding its tensors in padded TCM rows (docs/mock_dsp.md). Every
// edge between them is relaid (counted, timed, reported with its layouts),
// the DSP -> DSP edge shares one buffer, and the outputs equal the
// cpu-only run's.
//
// The model ([3, 10] f32: rows of 40 bytes, which the TCM pads to 128):
//   a = x + y, b = a * y   DSP partition 1 (a leaves to the cpu, b to partition 2)
//   r = fc(a)              cpu (the DSP runs no FULLY_CONNECTED)
//   m = b * r              DSP partition 2 (MUL cannot join partition 1:
//                          the path through the cpu would re-enter it)
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

#include "dispatch/device_session.h"
#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

constexpr int32_t kTcm = TSR_BUFFER_TYPE_VENDOR_BASE + 1;  // the DSP's dsp_tcm
constexpr char kPadded[] = "strided(row 128 B)";           // 40-byte rows in whole 128-byte lines

Graph Model() {
  ModelBuilder b("layouts");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {3, 10});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {3, 10});
  std::vector<float> w(100), bias(10);
  for (int i = 0; i < 100; ++i) w[i] = static_cast<float>((i * 7) % 11 - 5) / 8.0f;
  for (int i = 0; i < 10; ++i) bias[i] = static_cast<float>(i) / 4.0f;
  const int32_t a = b.Op(TSR_OP_ADD, {x, y}, {}, {.name = "a"});
  const int32_t s = b.Op(TSR_OP_MUL, {a, y}, {}, {.name = "b"});
  const int32_t r =
      b.Op(TSR_OP_FULLY_CONNECTED, {a, b.Constant<float>("w", {10, 10}, w), b.Constant<float>("bias", {10}, bias)}, {},
           {.name = "r"});
  b.Output(b.Op(TSR_OP_MUL, {s, r}, {}, {.name = "m"}));
  return *std::move(b).Build();
}

HostTensor Input(const char* name, float scale) {
  std::vector<float> v(30);
  for (int i = 0; i < 30; ++i) v[i] = scale * static_cast<float>(i % 7 - 3);
  HostTensor t{name, TSR_DTYPE_F32, {3, 10}, std::vector<uint8_t>(120)};
  std::memcpy(t.data.data(), v.data(), 120);
  return t;
}

std::vector<float> Floats(const HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class DspLayouts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindDispatch("mock_dsp") == nullptr) GTEST_SKIP() << "mock_dsp not built";
    absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
    ASSERT_TRUE(soc.ok()) << soc.status();
    soc_ = *soc;
  }
  // Compiles for `accelerators` (JIT: the DSP compiles nothing else) and
  // makes an executor of it.
  void Load(std::vector<std::string> accelerators, CompiledGraph* compiled, std::unique_ptr<ModelExecutor>* executor) {
    CompileOptions options;
    options.soc = soc_;
    options.partitioning.policy = PartitionPolicy::kGreedy;
    options.accelerators = std::move(accelerators);
    options.mode = CompileMode::kJit;
    auto c = CompileGraph(Model(), registry_, options);
    ASSERT_TRUE(c.ok()) << c.status();
    *compiled = *std::move(c);
    RuntimeOptions runtime;
    runtime.soc = soc_;
    auto e = ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry_, runtime);
    ASSERT_TRUE(e.ok()) << e.status();
    *executor = *std::move(e);
  }
  std::vector<float> Run(ModelExecutor& e, ExecutionProfile* profile) {
    auto out = e.Run({Input("x", 0.5f), Input("y", -0.25f)}, profile);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? Floats((*out)[0]) : std::vector<float>{};
  }
  PluginRegistry registry_ = BundledPluginsForTest();
  SocSelection soc_;
};

TEST_F(DspLayouts, EveryForeignEdgeIsRelaidAndTheOutputsEqualTheCpuOnlyRun) {
  CompiledGraph cpu_model, mixed_model;
  std::unique_ptr<ModelExecutor> cpu, mixed;
  ASSERT_NO_FATAL_FAILURE(Load({"cpu"}, &cpu_model, &cpu));
  ASSERT_NO_FATAL_FAILURE(Load({"dsp", "cpu"}, &mixed_model, &mixed));
  ASSERT_EQ(mixed_model.plan.partitions.size(), 3u);
  EXPECT_EQ(mixed_model.plan.partitions[0].vendor, "mock_dsp");
  EXPECT_EQ(mixed_model.plan.partitions[1].vendor, "cpu");
  EXPECT_EQ(mixed_model.plan.partitions[2].vendor, "mock_dsp");
  const std::vector<float> want = Run(*cpu, nullptr);
  ASSERT_EQ(want.size(), 30u);
  for (int run = 0; run < 2; ++run) {  // the second run reuses every buffer and conversion
    ExecutionProfile profile;
    const std::vector<float> got = Run(*mixed, &profile);
    ASSERT_EQ(got.size(), 30u);
    for (size_t i = 0; i < 30; ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i << " run " << run;
    for (const ConversionRecord& c : profile.conversions) EXPECT_GT(c.host_time_us, 0) << c.tensor_name;
  }
  // (tensor, kind, from layout, to layout, consumer): x and y in from the
  // app (y once, for both DSP steps), a out to the cpu, r back in, m out
  // to the app. b goes DSP -> DSP in one buffer: no conversion.
  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> got;
  for (const ConversionRecord& c : mixed->conversions()) {
    got.insert({c.tensor_name, c.kind, c.from_layout, c.to_layout, c.to_vendor});
    EXPECT_EQ(c.bytes, 120u) << c.tensor_name;  // the tensor's 3 * 10 floats
    EXPECT_EQ(c.via, "host") << c.tensor_name;  // between libraries: the host relays
  }
  const std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> want_conversions = {
      {"x", "copy+layout", "dense", kPadded, "mock_dsp"},
      {"y", "copy+layout", "dense", kPadded, "mock_dsp"},
      {"a", "copy+layout", kPadded, "dense", "cpu"},
      {"r", "copy+layout", "dense", kPadded, "mock_dsp"},
      {"m", "copy+layout", kPadded, "dense", "app"}};
  EXPECT_EQ(got, want_conversions);
  EXPECT_EQ(mixed->conversions().size(), 5u);
}

TEST_F(DspLayouts, TheDspToDspEdgeSharesOnePaddedTcmBuffer) {
  CompiledGraph compiled;
  std::unique_ptr<ModelExecutor> e;
  ASSERT_NO_FATAL_FAILURE(Load({"dsp", "cpu"}, &compiled, &e));
  const LoadedModel& m = *e->model();
  const Graph& g = m.graph();
  int32_t b = -1;
  for (size_t t = 0; t < g.tensors.size(); ++t)
    if (g.tensors[t].name == "b") b = static_cast<int32_t>(t);
  ASSERT_GE(b, 0);
  const StorageSpec& spec = m.storages()[m.primary_storage(b)];
  EXPECT_EQ(spec.type, kTcm);
  EXPECT_EQ(spec.layout.layout, TSR_LAYOUT_STRIDED);
  EXPECT_EQ(spec.layout.row_stride_bytes, 128u);
  EXPECT_EQ(spec.size, 384u);  // 3 rows of 128 bytes
  // Its only storage: written by partition 1, read in place by partition 2.
  int storages_of_b = 0;
  for (const StorageSpec& s : m.storages()) storages_of_b += s.tensor == b;
  EXPECT_EQ(storages_of_b, 1);
  for (const ConversionRecord& c : m.conversions()) EXPECT_NE(c.tensor_name, "b");
  // The DSP declared each input its way (get_buffer_layout): padded TCM only.
  for (const LoadedStep& step : m.steps()) {
    if (m.sessions()[step.session]->library().vendor != "mock_dsp") continue;
    for (const std::vector<BufferLayout>& alternatives : step.input_layouts) {
      ASSERT_EQ(alternatives.size(), 1u);
      EXPECT_EQ(alternatives[0].type, kTcm);
      EXPECT_EQ(alternatives[0].alignment, 128u);
    }
  }
}

TEST_F(DspLayouts, EveryBufferOfATensorTheDspTouchesHasItsAlignment) {
  CompiledGraph compiled;
  std::unique_ptr<ModelExecutor> e;
  ASSERT_NO_FATAL_FAILURE(Load({"dsp", "cpu"}, &compiled, &e));
  const LoadedModel& m = *e->model();
  // Every non-constant tensor here touches a DSP step (x, y, a, b, r, m):
  // host copies included, since a shared buffer is imported by address.
  for (const StorageSpec& s : m.storages()) EXPECT_EQ(s.alignment, 128u) << m.graph().tensors[s.tensor].name;
}

// The DSP's convert_buffer through its dispatch table: dense -> padded
// rows between two of its TCM buffers, checked by mapping the result
// (element [i, j] of [2, 3] f32 at i * 128 + j * 4), and a buffer of
// another context refused.
TEST_F(DspLayouts, TheDspConvertsBetweenItsOwnBuffersOnly) {
  auto session = DeviceSession::Create(*registry_.FindDispatch("mock_dsp"), soc_, {});
  ASSERT_TRUE(session.ok()) << session.status();
  auto other = DeviceSession::Create(*registry_.FindDispatch("mock_dsp"), soc_, {});
  ASSERT_TRUE(other.ok()) << other.status();
  const DeviceSession& s = **session;
  auto allocate = [&](const DeviceSession& in, uint64_t size) {
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), in.library().version);
    desc.buffer_type = kTcm;
    desc.size_bytes = size;
    desc.fd = -1;
    tsr_buffer b = nullptr;
    EXPECT_EQ(in.api()->allocate_buffer(in.context(), &desc, &b), TSR_OK);
    return b;
  };
  tsr_buffer dense = allocate(s, 24), padded = allocate(s, 256), foreign = allocate(**other, 256);
  ASSERT_NE(dense, nullptr);
  void* address = nullptr;
  ASSERT_EQ(s.api()->map_buffer(dense, &address), TSR_OK);
  const float values[6] = {1, 2, 3, 4, 5, 6};
  std::memcpy(address, values, 24);
  ASSERT_EQ(s.api()->unmap_buffer(dense), TSR_OK);
  const std::vector<int64_t> shape = {2, 3};
  const BufferLayout rows{.type = kTcm, .layout = TSR_LAYOUT_STRIDED, .row_stride_bytes = 128, .size_bytes = 256};
  const tsr_buffer_layout from = ToAbiLayout(BufferLayout{.type = kTcm}, shape, 4, s.library().version);
  const tsr_buffer_layout to = ToAbiLayout(rows, shape, 4, s.library().version);
  ASSERT_EQ(s.api()->convert_buffer(s.context(), dense, &from, padded, &to), TSR_OK) << s.api()->get_last_error();
  ASSERT_EQ(s.api()->map_buffer(padded, &address), TSR_OK);
  const auto* bytes = static_cast<const uint8_t*>(address);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      float f;
      std::memcpy(&f, bytes + i * 128 + j * 4, 4);
      EXPECT_EQ(f, values[i * 3 + j]) << i << "," << j;
    }
  ASSERT_EQ(s.api()->unmap_buffer(padded), TSR_OK);
  EXPECT_EQ(s.api()->convert_buffer(s.context(), dense, &from, foreign, &to), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(s.api()->get_last_error(), testing::HasSubstr("both buffers must be this context's"));
  for (tsr_buffer b : {dense, padded}) s.api()->release_buffer(b);
  (*other)->api()->release_buffer(foreign);
}

}  // namespace
}  // namespace tessera
