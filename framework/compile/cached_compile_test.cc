// Compiling through the cache with the bundled plugins: a miss compiles and
// stores, a hit runs the entry and gives the direct compile's outputs, a
// damaged entry is rebuilt, JIT leaves the directory untouched, and the key
// moves with every input it covers.
#include "compile/cached_compile.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "compile/compile_cache_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/model_builder.h"
#include "model_executor.h"
#include "plugin_host/bundled_plugins_for_test.h"
#include "tessera/ops.h"

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

std::vector<float> RunModel(const CompiledModel& compiled, const PluginRegistry& registry) {
  auto executor = Executor::Create(compiled.graph, compiled.jit_slots, registry, {});
  EXPECT_TRUE(executor.ok()) << executor.status();
  if (!executor.ok()) return {};
  HostTensor x{"x", TSR_DTYPE_F32, {4}, std::vector<uint8_t>(16)};
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
  absl::StatusOr<CompiledModel> Compile(const Graph& g, CompileCacheReport* report) {
    return CompileWithCache(g, registry_, options_, {dir_.string()},
                            [this](CompileCacheLogLevel, const std::string& l) { lines_.push_back(l); }, report);
  }
  fs::path dir_;
  CompileOptions options_;
  std::vector<std::string> lines_;
  PluginRegistry registry_ = BundledPluginsForTest();
};

TEST_F(CachedCompileTest, AMissStoresAndAHitRunsTheEntryWithTheSameOutputs) {
  CompileCacheReport first, second;
  absl::StatusOr<CompiledModel> compiled = Compile(Model(), &first);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(first.enabled);
  EXPECT_FALSE(first.hit);
  EXPECT_EQ(first.counters.misses, 1u);
  EXPECT_EQ(first.counters.stores, 1u);
  EXPECT_EQ(first.key.size(), 64u);
  EXPECT_TRUE(fs::exists(dir_ / (first.key + ".tsr")));
  absl::StatusOr<CompiledModel> cached = Compile(Model(), &second);
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
  absl::StatusOr<CompiledModel> rebuilt = Compile(Model(), &report);
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
  absl::StatusOr<CompiledModel> compiled = Compile(Model(), &report);
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

TEST_F(CachedCompileTest, AJitOnlyAcceleratorInAnAotCompileFallsBackAndTheResultIsCached) {
  // mock_dsp compiles JIT only: in an AOT compile it claims nothing (with
  // the reason), the cpu takes its ops, and the all-AOT result is cached.
  options_.accelerators = {"dsp", "cpu"};
  CompileCacheReport report;
  absl::StatusOr<CompiledModel> compiled = Compile(Model(), &report);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->claims.size(), 2u);
  EXPECT_EQ(compiled->claims[0].vendor, "mock_dsp");
  EXPECT_THAT(compiled->claims[0].claims[0].detail, HasSubstr("does not support aot compilation"));
  for (const PlannedPartition& p : compiled->plan.partitions) EXPECT_EQ(p.vendor, "cpu");
  EXPECT_EQ(report.counters.stores, 1u);
  ASSERT_TRUE(Compile(Model(), &report).ok());
  EXPECT_TRUE(report.hit);
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

TEST_F(CachedCompileTest, AnUnknownAcceleratorFailsBeforeTheCacheIsUsedForAnEntry) {
  options_.accelerators = {"no_such_vendor"};
  CompileCacheReport report;
  absl::StatusOr<CompiledModel> compiled = Compile(Model(), &report);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(), HasSubstr("no_such_vendor"));
  EXPECT_TRUE(!fs::exists(dir_) || fs::is_empty(dir_));
}

}  // namespace
}  // namespace tessera
