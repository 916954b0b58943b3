// Compiling through the cache with the bundled plugins: a miss compiles and
// stores, a hit runs the entry and gives the direct compile's outputs, a
// damaged entry is rebuilt, JIT leaves the directory untouched, a JIT-only
// accelerator's partitions bypass the cache beside cached AOT ones, and the
// key moves with every input it covers.
#include "framework/compiler/compile/cached_compile.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_cache_key.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/allow_fp16_for_test.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

// z = sin(x * c + x)
Graph Model(float c = 0.5f) {
  ModelBuilder b("cached");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t scaled = b.Op(TSR_OP_MUL, {x, b.Constant<float>("c", {4}, std::vector<float>(4, c))});
  b.Output(b.Op(TSR_OP_SIN, {b.Op(TSR_OP_ADD, {scaled, x})}, {}, {.name = "z"}));
  return *std::move(b).Build();
}

const float kX[4] = {1.0f, -2.0f, 0.25f, 3.0f};

std::vector<float> RunModel(const CompiledGraph& compiled, const PluginRegistry& registry,
                            std::vector<int64_t> shape = {4}, const SocSelection& soc = {}) {
  RuntimeOptions runtime;
  runtime.soc = soc;
  auto executor = ModelExecutor::Create(compiled.graph, compiled.jit_slots, registry, runtime);
  EXPECT_TRUE(executor.ok()) << executor.status();
  if (!executor.ok()) return {};
  HostTensor x{"x", TSR_DTYPE_F32, std::move(shape), std::vector<uint8_t>(16)};
  std::memcpy(x.data.data(), kX, 16);
  auto outputs = (*executor)->Run({x}, nullptr);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  std::vector<float> z(4);
  std::memcpy(z.data(), (*outputs)[0].data.data(), 16);
  return z;
}

class CachedCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("cached_compile_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    options_.accelerators = {"cpu"};
  }
  void TearDown() override { fs::remove_all(dir_); }
  absl::StatusOr<CompiledGraph> Compile(const Graph& g, CompileCacheReport* report) {
    return CompileWithCache(
        g, registry_, options_, {dir_.string()},
        [this](CompileCacheLogLevel, const std::string& l) { lines_.push_back(l); }, report);
  }
  // The key CompileWithCache computes for `g` under options_.
  CompileCacheKey KeyOf(const Graph& g, CompileOptions o) {
    o.jit_only = JitOnlyInAot::kLeaveAsOps;
    absl::StatusOr<CompileCacheKey> k = ComputeCompileCacheKey(g, registry_, o);
    EXPECT_TRUE(k.ok()) << k.status();
    return k.ok() ? *k : CompileCacheKey{};
  }
  // Writes `g` at `hex`'s name recording `text`: an entry made elsewhere
  // (another build, another SoC) that ended up under this key's name.
  void PlantEntry(const std::string& hex, const std::string& text, const Graph& g) {
    absl::StatusOr<CompileCache> cache = CompileCache::Open({dir_.string()}, nullptr);
    ASSERT_TRUE(cache.ok()) << cache.status();
    cache->Store(hex, text, g);
  }
  // A compile through the cache of Model(c) that must not hit: the entry
  // under its name is refused, the model compiled again and stored, and
  // its outputs are its own.
  void ExpectRefusedAndRecompiled(float c, const std::string& why) {
    CompileCacheReport report;
    lines_.clear();
    absl::StatusOr<CompiledGraph> compiled = Compile(Model(c), &report);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_FALSE(report.hit);
    EXPECT_EQ(report.counters.invalidations, 1u);
    EXPECT_EQ(report.counters.misses, 1u);
    EXPECT_EQ(report.counters.stores, 1u);
    EXPECT_FALSE(compiled->plan.partitions.empty());  // compiled, not loaded
    bool logged = false;
    for (const std::string& l : lines_)
      logged |= l.find("invalidated " + report.key + ": the entry was stored under another key") != std::string::npos &&
                l.find(why) != std::string::npos;
    EXPECT_TRUE(logged) << "no invalidation line naming '" << why << "'";
    const std::vector<float> z = RunModel(*compiled, registry_);
    ASSERT_EQ(z.size(), 4u);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(z[i], std::sin(kX[i] * c + kX[i]), 1e-6f) << i;
    // Evicted once: the entry stored in its place hits from now on.
    CompileCacheReport again;
    ASSERT_TRUE(Compile(Model(c), &again).ok());
    EXPECT_TRUE(again.hit);
    EXPECT_EQ(again.counters.invalidations, 0u);
  }
  std::vector<std::string> BypassLines() const {
    std::vector<std::string> out;
    for (const std::string& l : lines_)
      if (l.find("bypass the cache") != std::string::npos) out.push_back(l);
    return out;
  }
  fs::path dir_;
  CompileOptions options_;
  std::vector<std::string> lines_;
  PluginRegistry registry_ = BundledPluginsForTest();
};

TEST_F(CachedCompileTest, AMissStoresAndAHitRunsTheEntryWithTheSameOutputs) {
  CompileCacheReport first, second;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &first);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(first.enabled);
  EXPECT_FALSE(first.hit);
  EXPECT_EQ(first.counters.misses, 1u);
  EXPECT_EQ(first.counters.stores, 1u);
  EXPECT_EQ(first.key.size(), 64u);
  EXPECT_TRUE(fs::exists(dir_ / (first.key + ".tsr")));
  absl::StatusOr<CompiledGraph> cached = Compile(Model(), &second);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_TRUE(second.hit);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.counters.hits, 1u);
  EXPECT_EQ(second.counters.misses, 0u);
  EXPECT_TRUE(cached->plan.partitions.empty());  // nothing was compiled
  const std::vector<float> direct = RunModel(*compiled, registry_), from_cache = RunModel(*cached, registry_);
  ASSERT_EQ(from_cache.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(from_cache[i], direct[i]);
    EXPECT_NEAR(from_cache[i], std::sin(kX[i] * 0.5f + kX[i]), 1e-6f);
  }
}

TEST_F(CachedCompileTest, ACorruptedEntryIsRebuiltAndThenHits) {
  CompileCacheReport report;
  ASSERT_TRUE(Compile(Model(), &report).ok());
  const fs::path entry = dir_ / (report.key + ".tsr");
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(entry) / 2));
    f.put('\x5a');
  }
  absl::StatusOr<CompiledGraph> rebuilt = Compile(Model(), &report);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_FALSE(report.hit);
  EXPECT_EQ(report.counters.invalidations, 1u);
  EXPECT_EQ(report.counters.stores, 1u);
  EXPECT_FALSE(rebuilt->plan.partitions.empty());  // compiled again, not loaded
  EXPECT_NEAR(RunModel(*rebuilt, registry_)[1], std::sin(kX[1] * 0.5f + kX[1]), 1e-6f);
  ASSERT_TRUE(Compile(Model(), &report).ok());
  EXPECT_TRUE(report.hit);
}

TEST_F(CachedCompileTest, JitDisablesTheCacheWithOneLineAndLeavesTheDirectoryUntouched) {
  options_.mode = CompileMode::kJit;
  CompileCacheReport report;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &report);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(report.enabled);
  EXPECT_THAT(report.disabled_reason, HasSubstr("JIT"));
  EXPECT_TRUE(report.key.empty());
  EXPECT_FALSE(fs::exists(dir_));  // not even created
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], HasSubstr("compile cache: disabled for this model"));
  EXPECT_THAT(lines_[0], HasSubstr("process memory"));
  EXPECT_NEAR(RunModel(*compiled, registry_)[0], std::sin(kX[0] * 0.5f + kX[0]), 1e-6f);
}

TEST_F(CachedCompileTest, AnExistingEmptyDirectoryStaysEmptyUnderJit) {
  fs::create_directories(dir_);
  options_.mode = CompileMode::kJit;
  ASSERT_TRUE(Compile(Model(), nullptr).ok());
  EXPECT_TRUE(fs::is_empty(dir_));
}

// z = sin(relu(x·Wᵀ)): greedy, the FULLY_CONNECTED goes to the NPU (AOT),
// the SIN to mock_dsp (JIT only).
Graph MixedModel() {
  ModelBuilder b("mixed");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 4});
  std::vector<float> w(16);
  for (int i = 0; i < 16; ++i) w[i] = 0.125f * static_cast<float>(i % 5) - 0.25f;
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {4, 4}, w)},
                          {{TSR_ATTR_ACTIVATION, Ints({TSR_ACTIVATION_RELU})}});
  b.Output(b.Op(TSR_OP_SIN, {fc}, {}, {.name = "z"}));
  return *std::move(b).Build();
}

float MixedExpected(int n) {
  float acc = 0;
  for (int k = 0; k < 4; ++k) acc += kX[k] * (0.125f * static_cast<float>((n * 4 + k) % 5) - 0.25f);
  return std::sin(std::max(acc, 0.0f));
}

// Vendors that hold bytecode / JIT handles in a compiled graph.
std::pair<std::set<std::string>, std::set<std::string>> AotAndJitVendors(const Graph& g) {
  std::set<std::string> aot, jit;
  for (const Op& op : g.ops)
    if (op.type == TSR_OP_DISPATCH) (op.dispatch->jit_slot >= 0 ? jit : aot).insert(op.dispatch->vendor);
  return {aot, jit};
}

TEST_F(CachedCompileTest, AJitOnlyAcceleratorsPartitionsBypassTheCacheAndRecompileAtEveryLoad) {
  if (registry_.FindCompilerByName("npu") == nullptr) GTEST_SKIP() << "systolic_npu not built";
  options_.accelerators = {"npu", "dsp", "cpu"};
  options_.partitioning.policy = PartitionPolicy::kGreedy;
  // The DSP claims only on a SoC that describes it.
  absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", TestBuildDir() + "/share/tessera/socs");
  ASSERT_TRUE(soc.ok()) << soc.status();
  options_.soc = *soc;
  options_.precision = AllowFp16ForTest(MixedModel());  // the NPU's FULLY_CONNECTED is FP16
  CompileCacheReport first, second;
  absl::StatusOr<CompiledGraph> compiled = Compile(MixedModel(), &first);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(first.hit);
  EXPECT_EQ(first.counters.stores, 1u);
  EXPECT_THAT(first.jit_bypass, HasSubstr("partitions of mock_dsp (mock_dsp ops "));
  std::vector<std::string> bypass = BypassLines();
  ASSERT_EQ(bypass.size(), 1u);
  EXPECT_THAT(bypass[0], HasSubstr("compile cache: partitions of mock_dsp"));
  EXPECT_THAT(bypass[0], HasSubstr("process memory"));
  EXPECT_THAT(bypass[0], HasSubstr("the AOT partitions are cached"));
  const auto [aot, jit] = AotAndJitVendors(compiled->graph);
  EXPECT_TRUE(aot.count("systolic_npu"));
  EXPECT_EQ(jit, std::set<std::string>{"mock_dsp"});
  // The whole model's plan is reported, each partition in its own mode.
  bool dsp_planned = false;
  for (const PlannedPartition& p : compiled->plan.partitions)
    if (p.vendor == "mock_dsp") dsp_planned = compiled->accelerator_modes[p.accelerator] == CompileMode::kJit;
  EXPECT_TRUE(dsp_planned);
  // The entry holds the AOT parts and the DSP's ops as ops, no JIT handle.
  absl::StatusOr<Graph> entry = LoadModelFile((dir_ / (first.key + ".tsr")).string());
  ASSERT_TRUE(entry.ok()) << entry.status();
  std::set<std::string> entry_vendors;
  size_t plain = 0;
  for (const Op& op : entry->ops) {
    if (op.type != TSR_OP_DISPATCH)
      ++plain;
    else
      EXPECT_LT(op.dispatch->jit_slot, 0);
  }
  for (const BytecodeBlob& b : entry->bytecodes) entry_vendors.insert(b.vendor);
  EXPECT_GT(plain, 0u);
  EXPECT_TRUE(entry_vendors.count("systolic_npu"));
  EXPECT_FALSE(entry_vendors.count("mock_dsp"));
  ASSERT_TRUE(entry->build_stamp.has_value());
  ASSERT_EQ(entry->build_stamp->left_for_jit.size(), 1u);
  EXPECT_EQ(entry->build_stamp->left_for_jit[0].vendor, "mock_dsp");

  lines_.clear();
  absl::StatusOr<CompiledGraph> cached = Compile(MixedModel(), &second);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_TRUE(second.hit);
  EXPECT_EQ(second.counters.hits, 1u);
  EXPECT_EQ(second.jit_bypass, first.jit_bypass);
  EXPECT_EQ(BypassLines().size(), 1u);  // the JIT parts are compiled again, and say so
  EXPECT_EQ(AotAndJitVendors(cached->graph), AotAndJitVendors(compiled->graph));
  EXPECT_FALSE(cached->jit_slots.empty());
  const std::vector<float> direct = RunModel(*compiled, registry_, {1, 4}, options_.soc),
                           from_cache = RunModel(*cached, registry_, {1, 4}, options_.soc);
  ASSERT_EQ(from_cache.size(), 4u);
  for (int n = 0; n < 4; ++n) {
    EXPECT_FLOAT_EQ(from_cache[n], direct[n]);
    EXPECT_NEAR(from_cache[n], MixedExpected(n), 2e-2f) << n;  // the NPU computes in reduced precision
  }
}

TEST_F(CachedCompileTest, TheKeyCoversModelOptionsPolicyModeAndSoc) {
  auto key = [&](const Graph& g, const CompileOptions& o) {
    absl::StatusOr<CompileCacheKey> k = ComputeCompileCacheKey(g, registry_, o);
    EXPECT_TRUE(k.ok()) << k.status();
    return k.ok() ? k->hex : std::string();
  };
  const std::string base = key(Model(), options_);
  EXPECT_EQ(key(Model(), options_), base);  // deterministic
  EXPECT_NE(key(Model(0.75f), options_), base);
  CompileOptions o = options_;
  o.partitioning.policy = PartitionPolicy::kGreedy;
  EXPECT_NE(key(Model(), o), base);
  o = options_;
  o.partitioning.min_ops = 2;
  EXPECT_NE(key(Model(), o), base);
  o = options_;
  o.plugin_options.emplace_back("cpu.kernels", "reference");
  EXPECT_NE(key(Model(), o), base);
  o = options_;
  o.soc = {"other", "[soc]\nname = \"other\"\n"};
  EXPECT_NE(key(Model(), o), base);
  o = options_;
  o.soc.description = "# edited\n";
  EXPECT_NE(key(Model(), o), base);
  o = options_;
  o.accelerators = {"dsp", "cpu"};
  EXPECT_NE(key(Model(), o), base);
  absl::StatusOr<CompileCacheKey> k = ComputeCompileCacheKey(Model(), registry_, options_);
  ASSERT_TRUE(k.ok());
  const CompilerPluginLibrary* cpu = registry_.FindCompilerByName("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_THAT(k->description, HasSubstr(std::string("build ") + cpu->info->build_id));
  EXPECT_THAT(k->description, HasSubstr("model sha256 " + GraphContentDigest(Model())));
}

TEST_F(CachedCompileTest, SwappedEntriesAreMissesAndEachModelIsRecompiledWithItsOwnOutputs) {
  CompileCacheReport a, b;
  ASSERT_TRUE(Compile(Model(0.5f), &a).ok());
  ASSERT_TRUE(Compile(Model(0.75f), &b).ok());
  ASSERT_NE(a.key, b.key);
  const fs::path pa = dir_ / (a.key + ".tsr"), pb = dir_ / (b.key + ".tsr"), swap = dir_ / "swap";
  fs::rename(pa, swap);
  fs::rename(pb, pa);
  fs::rename(swap, pb);
  const std::string model_b = "model sha256 " + GraphContentDigest(Model(0.75f));
  const std::string model_a = "model sha256 " + GraphContentDigest(Model(0.5f));
  ExpectRefusedAndRecompiled(0.5f, "the entry has '" + model_b + "' where this compile has '" + model_a + "'");
  ExpectRefusedAndRecompiled(0.75f, "the entry has '" + model_a + "' where this compile has '" + model_b + "'");
}

// z = x + x: another graph altogether, not the same one with other weights.
Graph OtherModel() {
  ModelBuilder b("other");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  b.Output(b.Op(TSR_OP_ADD, {x, x}, {}, {.name = "z"}));
  return *std::move(b).Build();
}

TEST_F(CachedCompileTest, AnEntryOfAnotherModelIsAMiss) {
  CompileCacheReport mine, other;
  ASSERT_TRUE(Compile(Model(), &mine).ok());
  ASSERT_TRUE(Compile(OtherModel(), &other).ok());
  fs::copy_file(dir_ / (other.key + ".tsr"), dir_ / (mine.key + ".tsr"), fs::copy_options::overwrite_existing);
  ExpectRefusedAndRecompiled(0.5f, "the entry has 'model sha256 " + GraphContentDigest(OtherModel()) + "'");
}

TEST_F(CachedCompileTest, AnEntryOfAnotherPluginBuildIsAMiss) {
  const CompilerPluginLibrary* cpu = registry_.FindCompilerByName("cpu");
  ASSERT_NE(cpu, nullptr);
  const std::string build = std::string("build ") + cpu->info->build_id;
  CompileCacheReport report;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &report);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  // The same key text but for the plugin's build id.
  std::string text = KeyOf(Model(), options_).description;
  const size_t at = text.find(build);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, build.size(), build + "-other");
  PlantEntry(report.key, text, compiled->graph);
  ExpectRefusedAndRecompiled(0.5f, build + "-other");
}

TEST_F(CachedCompileTest, AnEntryForAnotherSocIsAMiss) {
  CompileCacheReport report;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &report);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  CompileOptions other = options_;
  other.soc = {"other-soc", "[soc]\nname = \"other-soc\"\n"};
  PlantEntry(report.key, KeyOf(Model(), other).description, compiled->graph);
  ExpectRefusedAndRecompiled(0.5f, "the entry has 'soc other-soc description-sha256 ");
}

TEST_F(CachedCompileTest, AWorldWritableDirectoryIsNotUsedAndTheModelStillCompiles) {
  fs::create_directories(dir_);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  CompileCacheReport report;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &report);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(report.enabled);
  EXPECT_THAT(report.disabled_reason, HasSubstr("'" + dir_.string() + "' is refused"));
  EXPECT_THAT(report.disabled_reason, HasSubstr("mode 0777"));
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], HasSubstr("compile cache: not used: "));
  EXPECT_THAT(lines_[0], HasSubstr("compiling without it"));
  EXPECT_TRUE(fs::is_empty(dir_));
  EXPECT_NEAR(RunModel(*compiled, registry_)[2], std::sin(kX[2] * 0.5f + kX[2]), 1e-6f);
}

TEST_F(CachedCompileTest, AnUnknownAcceleratorFailsBeforeTheCacheIsUsedForAnEntry) {
  options_.accelerators = {"no_such_vendor"};
  CompileCacheReport report;
  absl::StatusOr<CompiledGraph> compiled = Compile(Model(), &report);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("no_such_vendor"));
  EXPECT_TRUE(!fs::exists(dir_) || fs::is_empty(dir_));
}

}  // namespace
}  // namespace tessera
