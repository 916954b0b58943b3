// Frozen plugins against today's host: a vendor pair built from the
// read-only ABI 1.0, 1.1 and 1.3 header snapshots (testdata/frozen_plugin.c)
// loads, claims, compiles AOT and JIT, and runs beside the bundled cpu
// plugin (today's version), with outputs checked against hand arithmetic.
// The host refuses, on an old plugin's behalf, an op type or an attribute
// newer than the version it negotiated (1.3: the 1.4 ops and keys). And a
// plugin whose tsr_op_claim is larger (a later header) or smaller than
// today's gets every claim read right.
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "dispatch/model_executor.h"
#include "framework/compiler/claims/compiler_instance.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

PluginRegistry Registry(const std::string& frozen) {
  return BundledPluginsForTest({TestBuildDir() + "/test_plugins/frozen_" + frozen});
}

// The minor version a snapshot directory ("1_3") was released as.
int SnapshotMinor(const std::string& snapshot) { return snapshot.at(2) - '0'; }

// An attribute key released after the snapshot: 1.2's for 1.0/1.1, one
// of 1.4's for 1.3 (docs/abi-changelog.md, 1.2 → 1.3 and 1.3 → 1.4).
int32_t KeyNewerThan(const std::string& snapshot) {
  return SnapshotMinor(snapshot) < 2 ? TSR_ATTR_NOOP_WITH_EMPTY_AXES : TSR_ATTR_REVERSE;
}

// out = relu((x + y) * z): ADD and MUL for the frozen plugin, RELU for cpu.
// `add_key` (when not UNKNOWN) is an attribute the ADD carries.
Graph Model(int32_t add_key = TSR_ATTR_UNKNOWN) {
  ModelBuilder b("frozen");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {2, 3});
  const int32_t z = b.Input("z", TSR_DTYPE_F32, {2, 3});
  std::map<int32_t, Attribute> attrs;
  if (add_key != TSR_ATTR_UNKNOWN) attrs[add_key] = Ints({1});
  const int32_t sum = b.Op(TSR_OP_ADD, {x, y}, attrs);
  const int32_t product = b.Op(TSR_OP_MUL, {sum, z});
  b.Output(b.Op(TSR_OP_RELU, {product}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

HostTensor Tensor(const char* name, std::vector<float> v) {
  HostTensor t{name, TSR_DTYPE_F32, {2, 3}, std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

const std::vector<float> kX = {1, -2, 3, 0.5f, 4, -1};
const std::vector<float> kY = {2, 1, -5, 0.25f, -4, 3};
const std::vector<float> kZ = {3, 2, 1, -4, 7, 0.5f};
// (x + y) * z by hand: 9, -2, -2, -3, 0, 1; then relu.
const std::vector<float> kWant = {9, 0, 0, 0, 0, 1};

class FrozenPlugin : public ::testing::TestWithParam<const char*> {};

TEST_P(FrozenPlugin, LoadsAtItsOwnVersionAndClaimsItsOps) {
  const std::string v = GetParam();
  PluginRegistry registry = Registry(v);
  const CompilerPluginLibrary* lib = registry.FindCompiler("frozen");
  ASSERT_NE(lib, nullptr) << "frozen " << v << " compiler not loaded from " << TestBuildDir();
  EXPECT_EQ(lib->version.major, 1);
  EXPECT_EQ(lib->version.minor, SnapshotMinor(v));
  ASSERT_NE(registry.FindDispatch("frozen"), nullptr);
  EXPECT_EQ(registry.FindDispatch("frozen")->version.minor, SnapshotMinor(v));
  auto instance = CompilerInstance::Create(*lib, {});
  ASSERT_TRUE(instance.ok()) << instance.status();
  Graph g = Model();
  GraphView whole = GraphView::Whole(g);
  auto claims = (*instance)->Partition(whole, {});
  ASSERT_TRUE(claims.ok()) << claims.status();
  ASSERT_EQ(claims->size(), 3u);
  EXPECT_TRUE((*claims)[0].supported);  // ADD
  EXPECT_EQ((*claims)[0].estimated_cycles, 7u);
  EXPECT_TRUE((*claims)[1].supported);   // MUL
  EXPECT_FALSE((*claims)[2].supported);  // RELU
  EXPECT_THAT((*claims)[2].detail, HasSubstr("ADD/MUL"));
}

TEST_P(FrozenPlugin, RunsAotAndJitBesideTheCpuPlugin) {
  PluginRegistry registry = Registry(GetParam());
  for (CompileMode mode : {CompileMode::kAot, CompileMode::kJit}) {
    CompileOptions options;
    options.partitioning.policy = PartitionPolicy::kGreedy;  // these tests are about the plugin, not the cost model
    options.accelerators = {"frozen", "cpu"};
    options.mode = mode;
    auto compiled = CompileGraph(Model(), registry, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    ASSERT_EQ(compiled->plan.partitions.size(), 2u);
    EXPECT_EQ(compiled->plan.partitions[0].vendor, "frozen");
    EXPECT_EQ(compiled->plan.partitions[0].ops.size(), 2u);
    auto executor = ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry, {});
    ASSERT_TRUE(executor.ok()) << executor.status();
    auto outputs = (*executor)->Run({Tensor("x", kX), Tensor("y", kY), Tensor("z", kZ)}, nullptr);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    std::vector<float> got(6);
    std::memcpy(got.data(), (*outputs)[0].data.data(), 24);
    EXPECT_EQ(got, kWant) << CompileModeName(mode);
  }
}

// A model whose frozen DISPATCH op says its bytecode references a constant
// (ABI 1.4): a library from before 1.4 cannot be handed the bindings, so
// the runtime refuses to load it rather than run it without them. (The
// frozen compiler never gets TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK, so the
// reference is added by hand.)
TEST_P(FrozenPlugin, ARuntimeRefusesExternalConstantsForALibraryBeforeOnePointFour) {
  PluginRegistry registry = Registry(GetParam());
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;
  options.accelerators = {"frozen", "cpu"};
  auto compiled = CompileGraph(Model(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  Graph g = compiled->graph;
  EXPECT_TRUE(g.ops[0].dispatch->constants.empty());  // no flag, no references
  static const float kWeights[6] = {1, 2, 3, 4, 5, 6};
  ::tessera::Tensor w{"w", TSR_DTYPE_F32, {2, 3}};
  w.is_constant = true;
  w.data = {reinterpret_cast<const uint8_t*>(kWeights), sizeof kWeights};
  g.tensors.push_back(w);
  g.ops[0].dispatch->constants.push_back({1, static_cast<int32_t>(g.tensors.size() - 1)});
  auto executor = ModelExecutor::Create(g, compiled->jit_slots, registry, {});
  ASSERT_FALSE(executor.ok());
  EXPECT_THAT(
      std::string(executor.status().message()),
      HasSubstr(absl::StrCat("references 1 external constants, but the 'frozen' dispatch library negotiated ABI 1.",
                             SnapshotMinor(GetParam()), ", which cannot receive them (1.4 needed)")));
}

TEST_P(FrozenPlugin, TheHostRefusesOnItsBehalfAnOpWithANewerAttribute) {
  const std::string v = GetParam();
  PluginRegistry registry = Registry(v);
  auto instance = CompilerInstance::Create(*registry.FindCompiler("frozen"), {});
  ASSERT_TRUE(instance.ok());
  Graph g = Model(KeyNewerThan(v));
  GraphView whole = GraphView::Whole(g);
  auto claims = (*instance)->Partition(whole, {});
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_FALSE((*claims)[0].supported);
  EXPECT_EQ((*claims)[0].reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE);
  EXPECT_THAT((*claims)[0].detail, HasSubstr("newer than the ABI 1." + std::to_string(SnapshotMinor(v))));
  EXPECT_TRUE((*claims)[1].supported);  // the MUL has no new attribute
  // The cpu plugin speaks today's version, sees a 1.2 attribute itself,
  // and refuses it because its kernels do not implement it.
  Graph with_1_2_key = Model(TSR_ATTR_NOOP_WITH_EMPTY_AXES);
  GraphView cpu_view = GraphView::Whole(with_1_2_key);
  auto cpu = CompilerInstance::Create(*registry.FindCompiler("cpu"), {});
  ASSERT_TRUE(cpu.ok());
  auto cpu_claims = (*cpu)->Partition(cpu_view, {});
  ASSERT_TRUE(cpu_claims.ok()) << cpu_claims.status();
  EXPECT_FALSE((*cpu_claims)[0].supported);
  EXPECT_EQ((*cpu_claims)[0].reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE);
  EXPECT_TRUE((*cpu_claims)[1].supported);
}

// An op type newer than a plugin's version never reaches it as claimable:
// the host refuses it on the plugin's behalf, whatever the plugin would
// have answered. RESIZE is from 1.3, CUM_SUM and ARG_MAX (with 1.0
// attributes only) from 1.4, ADD from 1.0. The 1.3 plugin sees RESIZE and
// refuses it itself; the cpu plugin (today's version) claims them all.
TEST_P(FrozenPlugin, TheHostRefusesOnItsBehalfAnOpTypeNewerThanItsVersion) {
  const std::string v = GetParam();
  PluginRegistry registry = Registry(v);
  ModelBuilder b("frozen_resize");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 1, 2, 2});
  const int32_t up = b.Op(TSR_OP_RESIZE, {x}, {{TSR_ATTR_SHAPE, Ints({1, 1, 4, 4})}});
  const int32_t sum = b.Op(TSR_OP_CUM_SUM, {up}, {{TSR_ATTR_AXIS, Ints({3})}});
  b.Output(b.Op(TSR_OP_ARG_MAX, {sum}, {{TSR_ATTR_AXIS, Ints({3})}}, {.name = "index"}));
  b.Output(b.Op(TSR_OP_ADD, {sum, sum}, {}, {.name = "out"}));
  Graph g = *std::move(b).Build();
  GraphView whole = GraphView::Whole(g);
  const int since[] = {3, 4, 4, 0};  // RESIZE, CUM_SUM, ARG_MAX, ADD
  auto frozen = CompilerInstance::Create(*registry.FindCompiler("frozen"), {});
  ASSERT_TRUE(frozen.ok());
  auto claims = (*frozen)->Partition(whole, {});
  ASSERT_TRUE(claims.ok()) << claims.status();
  ASSERT_EQ(claims->size(), 4u);
  const std::string newer = "newer than the ABI 1." + std::to_string(SnapshotMinor(v));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE((*claims)[i].supported) << i;
    EXPECT_EQ((*claims)[i].reason, TSR_REFUSAL_UNSUPPORTED_OP) << i;
    if (since[i] > SnapshotMinor(v)) {
      EXPECT_THAT((*claims)[i].detail, HasSubstr(newer)) << i;
    } else {
      EXPECT_THAT((*claims)[i].detail, HasSubstr("frozen claims f32 ADD/MUL")) << i;  // its own answer
    }
  }
  EXPECT_TRUE((*claims)[3].supported);  // the ADD is from 1.0
  auto cpu = CompilerInstance::Create(*registry.FindCompiler("cpu"), {});
  ASSERT_TRUE(cpu.ok());
  auto cpu_claims = (*cpu)->Partition(whole, {});
  ASSERT_TRUE(cpu_claims.ok()) << cpu_claims.status();
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE((*cpu_claims)[i].supported) << i << ": " << (*cpu_claims)[i].detail;
}

INSTANTIATE_TEST_SUITE_P(Snapshots, FrozenPlugin, ::testing::Values("1_0", "1_1", "1_3"));

// A 1.3 plugin enumerates attributes itself (1.2's rule): a key of its own
// version reaches it, and it refuses the op for itself; the host refuses
// nothing on its behalf.
TEST(FrozenPlugin13, SeesTheAttributesOfItsVersionAndRefusesThemItself) {
  PluginRegistry registry = Registry("1_3");
  auto instance = CompilerInstance::Create(*registry.FindCompiler("frozen"), {});
  ASSERT_TRUE(instance.ok());
  Graph g = Model(TSR_ATTR_NOOP_WITH_EMPTY_AXES);  // since 1.2
  GraphView whole = GraphView::Whole(g);
  auto claims = (*instance)->Partition(whole, {});
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_FALSE((*claims)[0].supported);
  EXPECT_EQ((*claims)[0].reason, TSR_REFUSAL_UNSUPPORTED_OP);
  EXPECT_THAT((*claims)[0].detail, HasSubstr("frozen claims f32 ADD/MUL"));
  EXPECT_TRUE((*claims)[1].supported);
}

// ---- claim structs of other sizes, through an in-process 1.2 table ----

// A claim as a later header might lay it out: today's members, then more.
struct OpClaimLater {
  tsr_op_claim v12;
  uint64_t appended_later = 0xDEADBEEF;
  uint32_t another = 7;
  uint32_t pad = 0;
};

int g_claim_size = 0;  // 0: today's size; >0: that many bytes

tsr_status ClaimEveryOtherOp(tsr_compiler_plugin, const tsr_graph_view_api* view, tsr_graph graph,
                             const tsr_partition_options*, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  const size_t n = view->op_count(graph);
  for (size_t i = 0; i < n; ++i) {
    OpClaimLater c{};
    c.v12.header = {static_cast<uint32_t>(g_claim_size), 1, 3};
    c.v12.supported = i % 2 == 0 ? 1 : 0;
    c.v12.reason = i % 2 == 0 ? TSR_REFUSAL_NONE : TSR_REFUSAL_UNSUPPORTED_DTYPE;
    c.v12.reason_detail = "odd op";
    c.v12.estimated_time_us = 1.5;
    c.v12.estimated_cycles = 100 + i;
    c.v12.flags = TSR_CLAIM_FLAG_COST_IS_MARGINAL;
    if (sink_api->report_op(sink, i, &c.v12) != TSR_OK) return TSR_INTERNAL;
  }
  return TSR_OK;
}
tsr_status CreateNothing(const tsr_compiler_plugin_options*, tsr_compiler_plugin* out) {
  *out = reinterpret_cast<tsr_compiler_plugin>(new int(0));
  return TSR_OK;
}
void DestroyNothing(tsr_compiler_plugin p) { delete reinterpret_cast<int*>(p); }
const char* NoError() { return ""; }

absl::StatusOr<std::vector<OpClaim>> ClaimsWithStructSize(int size) {
  g_claim_size = size;
  static const tsr_compiler_plugin_api api = {.header = {sizeof(tsr_compiler_plugin_api), 1, 2},
                                              .get_last_error = NoError,
                                              .create = CreateNothing,
                                              .destroy = DestroyNothing,
                                              .claim_ops = ClaimEveryOtherOp};
  static const tsr_compiler_plugin_info info = {.header = {sizeof(info), 1, 2}, .vendor = "sim"};
  CompilerPluginLibrary lib{"sim", "(in process)", {1, 2}, &api, &info, nullptr};
  auto instance = CompilerInstance::Create(lib, {});
  if (!instance.ok()) return instance.status();
  Graph g = Model();
  GraphView whole = GraphView::Whole(g);
  return (*instance)->Partition(whole, {});
}

TEST(ClaimSink, ALargerClaimStructFromANewerPluginIsReadRight) {
  absl::StatusOr<std::vector<OpClaim>> r = ClaimsWithStructSize(sizeof(OpClaimLater));
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<OpClaim>& c = *r;
  ASSERT_EQ(c.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c[i].supported, i % 2 == 0) << i;
    EXPECT_EQ(c[i].estimated_cycles, 100 + i) << i;
    EXPECT_EQ(c[i].flags, TSR_CLAIM_FLAG_COST_IS_MARGINAL) << i;
  }
  EXPECT_EQ(c[1].reason, TSR_REFUSAL_UNSUPPORTED_DTYPE);
  EXPECT_EQ(c[1].detail, "odd op");
}

TEST(ClaimSink, ASmallerClaimStructGetsTheDocumentedDefaults) {
  // Only header, supported and reason: no detail, no estimates, no flags.
  absl::StatusOr<std::vector<OpClaim>> r = ClaimsWithStructSize(offsetof(tsr_op_claim, reason_detail));
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<OpClaim>& c = *r;
  ASSERT_EQ(c.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c[i].supported, i % 2 == 0) << i;
    EXPECT_EQ(c[i].estimated_cycles, 0u) << i;
    EXPECT_EQ(c[i].estimated_time_us, -1.0) << i;
    EXPECT_EQ(c[i].flags, 0u) << i;
  }
  EXPECT_EQ(c[1].reason, TSR_REFUSAL_UNSUPPORTED_DTYPE);
  EXPECT_EQ(c[1].detail, "");
}

TEST(ClaimSink, AClaimTooSmallToSaySupportedIsRefused) {
  // report_op refuses it, so this plugin's claim_ops fails, and the host
  // keeps none of its claims.
  absl::StatusOr<std::vector<OpClaim>> r = ClaimsWithStructSize(sizeof(tsr_abi_header));
  EXPECT_FALSE(r.ok());
}

// ---- host-filled headers carry the negotiated version (M3) ----

// What a plugin that negotiated 1.0 saw in the structs the host filled.
tsr_abi_header g_seen_options{}, g_seen_partition{}, g_seen_entry{}, g_seen_view{};

tsr_status RecordCreate(const tsr_compiler_plugin_options* o, tsr_compiler_plugin* out) {
  g_seen_options = o->header;
  return CreateNothing(o, out);
}
tsr_status RecordPartition(tsr_compiler_plugin, const tsr_graph_view_api* view, tsr_graph graph,
                           const tsr_partition_options* o, tsr_op_support* out) {
  g_seen_view = view->header;
  g_seen_partition = o->header;
  g_seen_entry = out[0].header;
  for (size_t i = 0; i < view->op_count(graph); ++i) out[i].supported = 0;
  return TSR_OK;
}

// A 1.1 host stamped its own compiled version (1.1) into every header it
// filled, even for a 1.0 plugin; a 1.2 host stamps the version it
// negotiated with that plugin, and an old plugin's graph view ends where
// its version's members end.
TEST(HostFilledHeaders, CarryTheNegotiatedVersionNotTheHosts) {
  static const tsr_compiler_plugin_api api = {.header = {offsetof(tsr_compiler_plugin_api, claim_ops), 1, 0},
                                              .get_last_error = NoError,
                                              .create = RecordCreate,
                                              .destroy = DestroyNothing,
                                              .partition = RecordPartition};
  static const tsr_compiler_plugin_info info = {.header = {48, 1, 0}, .vendor = "old"};
  CompilerPluginLibrary lib{"old", "(in process)", {1, 0}, &api, &info, nullptr};
  auto instance = CompilerInstance::Create(lib, {});
  ASSERT_TRUE(instance.ok()) << instance.status();
  Graph g = Model();
  GraphView whole = GraphView::Whole(g);
  ASSERT_TRUE((*instance)->Partition(whole, {}).ok());
  for (const tsr_abi_header& h : {g_seen_options, g_seen_partition, g_seen_entry, g_seen_view}) {
    EXPECT_EQ(h.major, 1);
    EXPECT_EQ(h.minor, 0);
  }
  EXPECT_EQ(g_seen_entry.struct_size, 40u);  // the frozen stride
  EXPECT_EQ(g_seen_view.struct_size, offsetof(tsr_graph_view_api, op_attr_count));
}

}  // namespace
}  // namespace tessera
