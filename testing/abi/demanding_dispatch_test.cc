// Runtime paths no bundled plugin exercises, reached through the demanding
// variants of the frozen dispatch library (testdata/frozen_plugin.c, built
// four ways by testing/plugins/CMakeLists.txt): a 4096-byte alignment, a vendor
// buffer type listed before or after HOST, and a vendor type only, so that
// every edge into or out of the library needs a conversion.
//
// The model puts one tensor on each kind of edge:
//   a = x + y, b = a + y   frozen partition 1 (a leaves to the cpu, b to partition 2)
//   r = relu(a)            cpu
//   m = b * r              frozen partition 2 (MUL cannot join partition 1:
//                          the path through the cpu would re-enter it)
// Expected values by hand from x and y below.
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

constexpr int32_t kVendorType = TSR_BUFFER_TYPE_VENDOR_BASE + 7;  // the variants' own type

Graph Model() {
  ModelBuilder b("demanding");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {2, 3});
  const int32_t a = b.Op(TSR_OP_ADD, {x, y}, {}, {.name = "a"});
  const int32_t s = b.Op(TSR_OP_ADD, {a, y}, {}, {.name = "b"});
  const int32_t r = b.Op(TSR_OP_RELU, {a}, {}, {.name = "r"});
  b.Output(b.Op(TSR_OP_MUL, {s, r}, {}, {.name = "m"}));
  return *std::move(b).Build();
}

HostTensor Tensor(const char* name, std::vector<float> v) {
  HostTensor t{name, TSR_DTYPE_F32, {2, 3}, std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

const std::vector<float> kX = {1, -2, 3, 0.5f, 4, -1};
const std::vector<float> kY = {2, 1, -5, 0.25f, -4, 3};
// a = x + y = 3, -1, -2, 0.75, 0, 2;  b = a + y = 5, 0, -7, 1, -4, 5;
// r = relu(a) = 3, 0, 0, 0.75, 0, 2;  m = b * r:
const std::vector<float> kWant = {15, 0, 0, 0.75f, 0, 10};

struct Loaded {
  CompiledGraph compiled;
  std::unique_ptr<ModelExecutor> executor;
  std::map<std::string, StorageSpec> primary;  // tensor name -> its first storage
};

// Compiles for {frozen, cpu} with the given variant, runs once, checks m.
void LoadAndRun(const std::string& variant, Loaded* out) {
  PluginRegistry registry = BundledPluginsForTest({TestBuildDir() + "/test_plugins/demanding_" + variant});
  ASSERT_NE(registry.FindDispatch("frozen"), nullptr) << variant << " not built under " << TestBuildDir();
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;  // the plugin's paths, not the cost model
  options.accelerators = {"frozen", "cpu"};
  options.mode = CompileMode::kAot;
  auto compiled = CompileGraph(Model(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->plan.partitions.size(), 3u);
  EXPECT_EQ(compiled->plan.partitions[0].vendor, "frozen");
  EXPECT_EQ(compiled->plan.partitions[0].ops.size(), 2u);
  auto executor = ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  for (int run = 0; run < 2; ++run) {  // a second run reuses every buffer and conversion
    auto outputs = (*executor)->Run({Tensor("x", kX), Tensor("y", kY)}, nullptr);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), 1u);
    std::vector<float> got(6);
    std::memcpy(got.data(), (*outputs)[0].data.data(), 24);
    EXPECT_EQ(got, kWant) << variant << " run " << run;
  }
  out->compiled = *std::move(compiled);
  out->executor = *std::move(executor);
  const Graph& g = out->executor->model()->graph();
  for (const StorageSpec& s : out->executor->model()->storages()) out->primary.emplace(g.tensors[s.tensor].name, s);
}

std::set<std::tuple<std::string, int32_t, int32_t>> Conversions(const ModelExecutor& e) {
  std::set<std::tuple<std::string, int32_t, int32_t>> out;
  for (const ConversionRecord& c : e.conversions()) out.insert({c.tensor_name, c.from_type, c.to_type});
  return out;
}

TEST(DemandingDispatch, AlignmentAbove64IsHonouredForEveryBufferItTouches) {
  // The library refuses any registered address not 4096-aligned, so the
  // run itself proves it; the plan must also carry the requirement.
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(LoadAndRun("aligned", &l));
  for (const char* name : {"x", "y", "a", "b", "r", "m"}) {
    ASSERT_TRUE(l.primary.count(name)) << name;
    EXPECT_EQ(l.primary[name].alignment, 4096u) << name;  // every tensor touches a frozen step
    EXPECT_EQ(l.primary[name].type, TSR_BUFFER_TYPE_HOST) << name;
  }
  EXPECT_TRUE(l.executor->conversions().empty());
}

TEST(DemandingDispatch, AVendorTypeListedFirstIsUsedWhereOnlyThatLibraryReadsIt) {
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(LoadAndRun("vendor_first", &l));
  // b goes from partition 1 to partition 2 of the same library: its own type.
  EXPECT_EQ(l.primary["b"].type, kVendorType);
  EXPECT_GE(l.primary["b"].allocating_session, 0);  // the library allocates it
  // a and m are read by the cpu or the app: HOST, the one type in common.
  EXPECT_EQ(l.primary["a"].type, TSR_BUFFER_TYPE_HOST);
  EXPECT_EQ(l.primary["m"].type, TSR_BUFFER_TYPE_HOST);
  EXPECT_TRUE(l.executor->conversions().empty());
}

TEST(DemandingDispatch, HostListedFirstWinsOverTheVendorType) {
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(LoadAndRun("host_first", &l));
  EXPECT_EQ(l.primary["b"].type, TSR_BUFFER_TYPE_HOST);
  EXPECT_EQ(l.primary["b"].allocating_session, -1);  // runtime host memory
  EXPECT_TRUE(l.executor->conversions().empty());
}

TEST(DemandingDispatch, AVendorOnlyLibraryGetsAConversionOnEveryForeignEdge) {
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(LoadAndRun("vendor_only", &l));
  // In: x and y from the app, r from the cpu; out: a to the cpu, m to the
  // app. b stays in the library's own memory.
  const std::set<std::tuple<std::string, int32_t, int32_t>> want = {{"x", TSR_BUFFER_TYPE_HOST, kVendorType},
                                                                    {"y", TSR_BUFFER_TYPE_HOST, kVendorType},
                                                                    {"r", TSR_BUFFER_TYPE_HOST, kVendorType},
                                                                    {"a", kVendorType, TSR_BUFFER_TYPE_HOST},
                                                                    {"m", kVendorType, TSR_BUFFER_TYPE_HOST}};
  EXPECT_EQ(Conversions(*l.executor), want);
  EXPECT_EQ(l.executor->conversions().size(), 5u);
  for (const ConversionRecord& c : l.executor->conversions()) EXPECT_EQ(c.bytes, 24u) << c.tensor_name;
  EXPECT_EQ(l.primary["b"].type, kVendorType);
}

// The runtime accepts a declared rtol of exactly 1 and refuses the next
// double (the library's bug, named), never silently using it.
TEST(DemandingDispatch, DeclaredRelativeToleranceAtAndPastItsBound) {
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(LoadAndRun("rtol_one", &l));
  const OutputTolerance t = l.executor->OutputToleranceFor(0, 1e-4, 1e-5);
  EXPECT_EQ(t.relative, 1.0);
  ASSERT_EQ(t.reduced_by.size(), 1u);
  EXPECT_EQ(t.reduced_by[0].precision, TSR_PRECISION_FP16);

  PluginRegistry registry = BundledPluginsForTest({TestBuildDir() + "/test_plugins/demanding_rtol_past_one"});
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;
  options.accelerators = {"frozen", "cpu"};
  auto compiled = CompileGraph(Model(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto executor = ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry, {});
  ASSERT_FALSE(executor.ok());
  EXPECT_THAT(std::string(executor.status().message()), ::testing::HasSubstr("need 0 <= rtol <= 1"));
}

}  // namespace
}  // namespace tessera
