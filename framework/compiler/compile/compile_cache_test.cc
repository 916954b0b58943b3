// The cache's store on its own: entries written, found, refused when
// damaged (deleted, never loaded), and evicted least-recently-used first.
// The entries are real compiled models (the bundled cpu plugin, AOT).
#include "framework/compiler/compile/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A compiled model whose size grows with `elements` (one constant).
Graph CompiledModelOf(int64_t elements) {
  ModelBuilder b("cache_entry");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {elements});
  b.Output(b.Op(TSR_OP_ADD, {x, b.Constant<float>("c", {elements}, std::vector<float>(elements, 1.0f))}));
  Graph g = *std::move(b).Build();
  static const PluginRegistry registry = BundledPluginsForTest();
  CompileOptions options;
  options.accelerators = {"cpu"};
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(g, registry, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled->graph;
}

std::string Key(char c) { return std::string(64, c); }

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("compile_cache_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  CompileCache Open(uint64_t max_bytes = kDefaultCompileCacheMaxBytes) {
    absl::StatusOr<CompileCache> cache = CompileCache::Open(
        {dir_.string(), max_bytes}, [this](CompileCacheLogLevel, const std::string& l) { lines_.push_back(l); });
    EXPECT_TRUE(cache.ok()) << cache.status();
    return *std::move(cache);
  }
  std::vector<uint8_t> FileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
  }
  void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // Sets the entry's last use `seconds_ago` (the LRU order, without sleeping).
  void SetLastUse(const std::string& path, int seconds_ago) {
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    timespec times[2] = {st.st_atim, st.st_mtim};
    times[1].tv_sec -= seconds_ago;
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }
  fs::path dir_;
  std::vector<std::string> lines_;
};

TEST_F(CompileCacheTest, MissThenStoreThenHit) {
  CompileCache cache = Open();
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_FALSE(cache.Lookup(Key('a')).has_value());
  const Graph compiled = CompiledModelOf(4);
  cache.Store(Key('a'), compiled);
  std::optional<Graph> hit = cache.Lookup(Key('a'));
  ASSERT_TRUE(hit.has_value());
  ASSERT_EQ(hit->ops.size(), compiled.ops.size());
  EXPECT_EQ(hit->ops[0].type, TSR_OP_DISPATCH);
  EXPECT_EQ(hit->bytecodes.size(), compiled.bytecodes.size());
  EXPECT_EQ(cache.counters().misses, 1u);
  EXPECT_EQ(cache.counters().hits, 1u);
  EXPECT_EQ(cache.counters().stores, 1u);
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_THAT(lines_[0], HasSubstr("compile cache: miss " + Key('a')));
  EXPECT_THAT(lines_[1], HasSubstr("stored"));
  EXPECT_THAT(lines_[2], HasSubstr("compile cache: hit " + Key('a')));
}

TEST_F(CompileCacheTest, AFlippedByteIsDetectedDeletedAndNeverLoaded) {
  CompileCache cache = Open();
  cache.Store(Key('b'), CompiledModelOf(64));
  const std::string path = cache.EntryPath(Key('b'));
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes[bytes.size() / 2] ^= 0x40;  // in the data segment: only the checksum can tell
  WriteBytes(path, bytes);
  EXPECT_FALSE(cache.Lookup(Key('b')).has_value());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_EQ(cache.counters().misses, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("invalidated " + Key('b')));
  EXPECT_THAT(lines_.back(), HasSubstr("checksum"));
}

TEST_F(CompileCacheTest, ATruncatedEntryIsDetectedAndDeleted) {
  CompileCache cache = Open();
  cache.Store(Key('c'), CompiledModelOf(64));
  const std::string path = cache.EntryPath(Key('c'));
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes.resize(bytes.size() - 100);
  WriteBytes(path, bytes);
  EXPECT_FALSE(cache.Lookup(Key('c')).has_value());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("truncated"));
}

TEST_F(CompileCacheTest, AnEntryThatIsNotACompiledModelIsRefused) {
  CompileCache cache = Open();
  ModelBuilder b("uncompiled");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2});
  b.Output(b.Op(TSR_OP_SIN, {x}));
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(*std::move(b).Build());
  ASSERT_TRUE(bytes.ok());
  WriteBytes(cache.EntryPath(Key('d')), *bytes);
  EXPECT_FALSE(cache.Lookup(Key('d')).has_value());
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("not a compiled model"));
}

TEST_F(CompileCacheTest, TheCapEvictsTheLeastRecentlyUsedEntries) {
  const Graph compiled = CompiledModelOf(256);                    // ~1 KiB of weights
  const uint64_t entry_bytes = SerializeModel(compiled)->size();  // footer included
  CompileCache cache = Open(entry_bytes * 2 + entry_bytes / 2);   // room for two
  cache.Store(Key('1'), compiled);
  cache.Store(Key('2'), compiled);
  SetLastUse(cache.EntryPath(Key('1')), 30);
  SetLastUse(cache.EntryPath(Key('2')), 20);
  ASSERT_TRUE(cache.Lookup(Key('1')).has_value());  // now the most recent: '2' is the LRU one
  cache.Store(Key('3'), compiled);
  EXPECT_TRUE(fs::exists(cache.EntryPath(Key('1'))));
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('2'))));
  EXPECT_TRUE(fs::exists(cache.EntryPath(Key('3'))));
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("evicted " + Key('2')));
}

TEST_F(CompileCacheTest, AnEntryLargerThanTheCapIsNotStored) {
  CompileCache cache = Open(/*max_bytes=*/64);
  cache.Store(Key('e'), CompiledModelOf(64));
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('e'))));
  EXPECT_EQ(cache.counters().stores, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("exceed the cap of 64"));
}

TEST_F(CompileCacheTest, FilesTheCacheDidNotWriteAreLeftAlone) {
  fs::create_directories(dir_);
  WriteBytes((dir_ / "notes.txt").string(), std::vector<uint8_t>(4096, 'x'));
  CompileCache cache = Open(/*max_bytes=*/16 << 10);
  cache.Store(Key('f'), CompiledModelOf(16));
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
  EXPECT_EQ(cache.counters().evictions, 0u);
}

TEST_F(CompileCacheTest, APathThatIsAFileIsAClearError) {
  WriteBytes(dir_.string(), {1, 2, 3});
  absl::StatusOr<CompileCache> cache = CompileCache::Open({dir_.string()}, nullptr);
  ASSERT_FALSE(cache.ok());
  EXPECT_THAT(cache.status().message(), HasSubstr("is not a directory"));
  fs::remove(dir_);
}

TEST(CompileCacheEntryName, OnlyTheCachesOwnNames) {
  EXPECT_TRUE(IsCompileCacheEntryName(std::string(64, 'f') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(64, 'F') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(63, 'f') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(64, 'f') + ".tsr.tmpXXXX"));
}

}  // namespace
}  // namespace tessera
