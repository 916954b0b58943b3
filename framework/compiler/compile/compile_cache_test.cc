// The cache's store on its own: entries written, found, refused when
// damaged (deleted, never loaded), and evicted least-recently-used first.
// The entries are real compiled models (the bundled cpu plugin, AOT).
#include "framework/compiler/compile/compile_cache.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"
#include "testing/special_files_for_test.h"

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
// The text a key's hex stands for: what an entry records and Lookup compares.
std::string KeyText(char c) { return std::string("tessera compile cache key v1\nmodel ") + c; }

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
  EXPECT_FALSE(cache.Lookup(Key('a'), KeyText('a')).has_value());
  const Graph compiled = CompiledModelOf(4);
  cache.Store(Key('a'), KeyText('a'), compiled);
  std::optional<Graph> hit = cache.Lookup(Key('a'), KeyText('a'));
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
  cache.Store(Key('b'), KeyText('b'), CompiledModelOf(64));
  const std::string path = cache.EntryPath(Key('b'));
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes[bytes.size() / 2] ^= 0x40;  // in the data segment: only the checksum can tell
  WriteBytes(path, bytes);
  EXPECT_FALSE(cache.Lookup(Key('b'), KeyText('b')).has_value());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_EQ(cache.counters().misses, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("invalidated " + Key('b')));
  EXPECT_THAT(lines_.back(), HasSubstr("checksum"));
}

// An entry whose blob's own CRC is stale under a refreshed footer (the
// footer's CRC then passes): every hit checks each blob's own CRC, so it is
// invalidated, never handed to the dispatch library as verified.
TEST_F(CompileCacheTest, ABlobWithAStaleCrcUnderARefreshedFooterIsInvalidated) {
  CompileCache cache = Open();
  cache.Store(Key('s'), KeyText('s'), CompiledModelOf(64));
  const std::string path = cache.EntryPath(Key('s'));
  std::vector<uint8_t> bytes = FileBytes(path);
  size_t blob_end = 0;
  {
    absl::StatusOr<Graph> entry = ParseModel(bytes, nullptr, {}, VerifyLevel::kStructure);
    ASSERT_TRUE(entry.ok()) << entry.status();
    ASSERT_EQ(entry->bytecodes.size(), 1u);
    const std::span<const uint8_t> blob = entry->bytecodes[0].bytes;
    blob_end = static_cast<size_t>(blob.data() - bytes.data()) + blob.size();
  }
  bytes[blob_end - 1] ^= 0x01;  // the blob's last byte: inside its CRC, past its tables
  RefreshModelFooter(bytes);
  WriteBytes(path, bytes);
  EXPECT_FALSE(cache.Lookup(Key('s'), KeyText('s')).has_value());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("checksum mismatch"));
}

TEST_F(CompileCacheTest, AFifoAsAnEntryIsAMissNotAHang) {
  CompileCache cache = Open();
  const std::string path = cache.EntryPath(Key('f'));
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // In a child: a regression would block in open() until killed.
  EXPECT_THAT(FinishesWithin(kNoHangTimeout,
                             [&] {
                               const bool hit = cache.Lookup(Key('f'), KeyText('f')).has_value();
                               return absl::StrCat(hit ? "hit" : "miss", " ", lines_.empty() ? "" : lines_.back());
                             }),
              ::testing::Optional(AllOf(HasSubstr("miss"), HasSubstr("is a FIFO"))));
}

TEST_F(CompileCacheTest, ATruncatedEntryIsDetectedAndDeleted) {
  CompileCache cache = Open();
  cache.Store(Key('c'), KeyText('c'), CompiledModelOf(64));
  const std::string path = cache.EntryPath(Key('c'));
  std::vector<uint8_t> bytes = FileBytes(path);
  bytes.resize(bytes.size() - 100);
  WriteBytes(path, bytes);
  EXPECT_FALSE(cache.Lookup(Key('c'), KeyText('c')).has_value());
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
  EXPECT_FALSE(cache.Lookup(Key('d'), KeyText('d')).has_value());
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("not a compiled model"));
}

TEST_F(CompileCacheTest, TheCapEvictsTheLeastRecentlyUsedEntries) {
  const Graph compiled = CompiledModelOf(256);                    // ~1 KiB of weights
  const uint64_t entry_bytes = SerializeModel(compiled)->size();  // footer included
  CompileCache cache = Open(entry_bytes * 2 + entry_bytes / 2);   // room for two
  cache.Store(Key('1'), KeyText('1'), compiled);
  cache.Store(Key('2'), KeyText('2'), compiled);
  SetLastUse(cache.EntryPath(Key('1')), 30);
  SetLastUse(cache.EntryPath(Key('2')), 20);
  ASSERT_TRUE(cache.Lookup(Key('1'), KeyText('1')).has_value());  // now the most recent: '2' is the LRU one
  cache.Store(Key('3'), KeyText('3'), compiled);
  EXPECT_TRUE(fs::exists(cache.EntryPath(Key('1'))));
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('2'))));
  EXPECT_TRUE(fs::exists(cache.EntryPath(Key('3'))));
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("evicted " + Key('2')));
}

TEST_F(CompileCacheTest, AnEntryLargerThanTheCapIsNotStored) {
  CompileCache cache = Open(/*max_bytes=*/64);
  cache.Store(Key('e'), KeyText('e'), CompiledModelOf(64));
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('e'))));
  EXPECT_EQ(cache.counters().stores, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("exceed the cap of 64"));
}

TEST_F(CompileCacheTest, FilesTheCacheDidNotWriteAreLeftAlone) {
  fs::create_directories(dir_);
  WriteBytes((dir_ / "notes.txt").string(), std::vector<uint8_t>(4096, 'x'));
  CompileCache cache = Open(/*max_bytes=*/16 << 10);
  cache.Store(Key('f'), KeyText('f'), CompiledModelOf(16));
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

TEST_F(CompileCacheTest, AnEntryCopiedOverAnotherKeysNameIsRefused) {
  CompileCache cache = Open();
  cache.Store(Key('a'), KeyText('a'), CompiledModelOf(4));
  cache.Store(Key('b'), KeyText('b'), CompiledModelOf(8));
  // Intact bytes, every checksum right: only the recorded key can tell.
  WriteBytes(cache.EntryPath(Key('a')), FileBytes(cache.EntryPath(Key('b'))));
  EXPECT_FALSE(cache.Lookup(Key('a'), KeyText('a')).has_value());
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('a'))));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_EQ(cache.counters().misses, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
  EXPECT_THAT(lines_.back(), HasSubstr("invalidated " + Key('a') + ": the entry was stored under another key"));
  EXPECT_THAT(lines_.back(), HasSubstr("'model b' where this compile has 'model a'"));
  // The entry under its own name is untouched and still hits, key removed.
  std::optional<Graph> b = cache.Lookup(Key('b'), KeyText('b'));
  ASSERT_TRUE(b.has_value());
  for (const auto& [key, value] : b->metadata) EXPECT_NE(key, kCompileCacheKeyMetadata);
}

TEST_F(CompileCacheTest, AnEntryThatRecordsNoKeyIsRefused) {
  CompileCache cache = Open();
  // A whole compiled model with its footer, but not written by Store.
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(CompiledModelOf(4));
  ASSERT_TRUE(bytes.ok());
  WriteBytes(cache.EntryPath(Key('n')), *bytes);
  EXPECT_FALSE(cache.Lookup(Key('n'), KeyText('n')).has_value());
  EXPECT_FALSE(fs::exists(cache.EntryPath(Key('n'))));
  EXPECT_EQ(cache.counters().invalidations, 1u);
  EXPECT_THAT(lines_.back(), HasSubstr("records no key"));
}

TEST_F(CompileCacheTest, ADirectoryTheCacheCreatesIsPrivate) {
  Open();
  struct stat st {};
  ASSERT_EQ(stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(CompileCacheTest, APrivateDirectoryIsUsed) {
  fs::create_directories(dir_);
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  CompileCache cache = Open();
  cache.Store(Key('p'), KeyText('p'), CompiledModelOf(4));
  EXPECT_TRUE(cache.Lookup(Key('p'), KeyText('p')).has_value());
}

TEST_F(CompileCacheTest, AWorldWritableDirectoryIsRefusedWithTheReason) {
  fs::create_directories(dir_);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  absl::StatusOr<CompileCache> cache = CompileCache::Open({dir_.string()}, nullptr);
  ASSERT_FALSE(cache.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(cache.status())) << cache.status();
  EXPECT_THAT(cache.status().message(), HasSubstr("'" + dir_.string() + "' is refused"));
  EXPECT_THAT(cache.status().message(), HasSubstr("mode 0777"));
  EXPECT_THAT(cache.status().message(), HasSubstr("not writable by group or others"));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CompileCacheTest, ADirectoryOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  constexpr uid_t kOther = 4242;
  fs::create_directories(dir_);
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  ASSERT_EQ(chown(dir_.c_str(), kOther, static_cast<gid_t>(-1)), 0);
  absl::StatusOr<CompileCache> cache = CompileCache::Open({dir_.string()}, nullptr);
  ASSERT_FALSE(cache.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(cache.status())) << cache.status();
  EXPECT_THAT(cache.status().message(), HasSubstr("owned by uid 4242 with mode 0700 (another user)"));
  EXPECT_THAT(cache.status().message(), HasSubstr("must be owned by uid 0 (the calling user)"));
}

// Under `ulimit -f` a write past the limit raises SIGXFSZ, which kills by
// default. In a child, so the limit does not reach this process.
TEST_F(CompileCacheTest, AStoreOverTheFileSizeLimitIsAWarningAndLeavesNothingBehind) {
  const Graph compiled = CompiledModelOf(16 << 10);  // 64 KiB of weights
  CompileCache cache = Open();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{8 << 10, 8 << 10};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
    lines_.clear();
    cache.Store(Key('z'), KeyText('z'), compiled);
    if (cache.counters().stores != 0) _exit(11);
    if (!fs::is_empty(dir_)) _exit(12);  // neither the entry nor a temporary
    if (lines_.size() != 1 || lines_[0].find("not stored " + Key('z')) == std::string::npos ||
        lines_[0].find("File too large") == std::string::npos)
      _exit(13);
    // The store's ignore of SIGXFSZ does not outlive it.
    struct sigaction now {};
    if (sigaction(SIGXFSZ, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) _exit(14);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: setrlimit, 11: counted as stored, 12: a file left, 13: the log line, 14: SIGXFSZ left ignored";
}

TEST(CompileCacheEntryName, OnlyTheCachesOwnNames) {
  EXPECT_TRUE(IsCompileCacheEntryName(std::string(64, 'f') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(64, 'F') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(63, 'f') + ".tsr"));
  EXPECT_FALSE(IsCompileCacheEntryName(std::string(64, 'f') + ".tsr.tmpXXXX"));
}

}  // namespace
}  // namespace tessera
