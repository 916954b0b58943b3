#include "framework/compiler/compile/compile_cache.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/core/base/atomic_file.h"
#include "framework/core/model/mapped_file.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "tessera/ops.h"

namespace tessera {
namespace fs = std::filesystem;

namespace {

// Under `ulimit -f` a write past the limit raises SIGXFSZ, whose default
// action kills the process; ignored, the write fails with EFBIG like a full
// disk and the store is merely logged. The disposition is process-wide, so
// concurrent stores share one ignore (a count under a lock) and the first
// saved disposition is restored by the last of them.
class ScopedIgnoreFileSizeSignal {
 public:
  ScopedIgnoreFileSizeSignal() {
    std::lock_guard<std::mutex> lock(mu_);
    if (users_++ == 0) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      sigaction(SIGXFSZ, &ignore, &saved_);
    }
  }
  ~ScopedIgnoreFileSizeSignal() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--users_ == 0) sigaction(SIGXFSZ, &saved_, nullptr);
  }
  ScopedIgnoreFileSizeSignal(const ScopedIgnoreFileSizeSignal&) = delete;
  ScopedIgnoreFileSizeSignal& operator=(const ScopedIgnoreFileSizeSignal&) = delete;

 private:
  static inline std::mutex mu_;
  static inline int users_ = 0;
  static inline struct sigaction saved_ {};
};

// The lines where the recorded key text and the expected one differ (the
// first few), so the log says what the entry was compiled for.
std::string KeyDifferences(const std::string& recorded, const std::string& expected) {
  constexpr int kShown = 3;
  const std::vector<std::string> a = absl::StrSplit(recorded, '\n');
  const std::vector<std::string> b = absl::StrSplit(expected, '\n');
  std::vector<std::string> shown;
  int differing = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(nothing)", y = i < b.size() ? b[i] : "(nothing)";
    if (x == y || ++differing > kShown) continue;
    shown.push_back(absl::StrCat("the entry has '", x, "' where this compile has '", y, "'"));
  }
  if (differing > kShown) shown.push_back(absl::StrCat(differing - kShown, " more lines differ"));
  return shown.empty() ? "the texts differ" : absl::StrJoin(shown, "; ");
}

// Creates the cache directory itself 0700 (its parents with the usual
// mode): only this user may plant entries in it.
void CreateCacheDirectory(const std::string& directory, std::error_code& ec) {
  if (fs::exists(directory, ec)) return;
  const fs::path parent = fs::path(directory).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) ec = std::error_code(errno, std::generic_category());
}

}  // namespace

absl::Status CheckCompileCacheDirectory(const std::string& directory) {
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0)
    return absl::PermissionDeniedError(
        absl::StrCat("compile cache directory '", directory, "' cannot be examined: ", std::strerror(errno)));
  const uid_t me = ::geteuid();
  const bool foreign = st.st_uid != me, shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (!foreign && !shared) return absl::OkStatus();
  // Whoever can write an entry chooses the code this process runs.
  return absl::PermissionDeniedError(absl::StrFormat(
      "compile cache directory '%s' is refused: it is owned by uid %d with mode %04o%s%s; it must be owned by "
      "uid %d (the calling user) and not writable by group or others, e.g. mode 0700",
      directory, st.st_uid, st.st_mode & 07777, foreign ? " (another user)" : "",
      shared ? " (writable by group or others)" : "", me));
}

bool IsCompileCacheEntryName(const std::string& name) {
  if (name.size() != 64 + 4 || name.compare(64, 4, ".tsr") != 0) return false;
  return std::all_of(name.begin(), name.begin() + 64,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

absl::StatusOr<CompileCache> CompileCache::Open(const CompileCacheOptions& options, CompileCacheLog log) {
  if (options.directory.empty()) return absl::InvalidArgumentError("the compile cache directory is empty");
  if (options.max_bytes == 0) return absl::InvalidArgumentError("the compile cache size cap must be positive");
  std::error_code ec;
  CreateCacheDirectory(options.directory, ec);
  std::error_code is_dir_ec;
  if (!fs::is_directory(options.directory, is_dir_ec))
    return absl::FailedPreconditionError(absl::StrCat("compile cache '", options.directory,
                                                      "' is not a directory and cannot be made one",
                                                      ec ? absl::StrCat(" (", ec.message(), ")") : ""));
  if (absl::Status safe = CheckCompileCacheDirectory(options.directory); !safe.ok()) return safe;
  return CompileCache(options, std::move(log));
}

std::string CompileCache::EntryPath(const std::string& key) const {
  return (fs::path(options_.directory) / absl::StrCat(key, ".tsr")).string();
}

void CompileCache::Log(CompileCacheLogLevel level, const std::string& line) const {
  if (log_) log_(level, absl::StrCat("compile cache: ", line));
}

void CompileCache::Invalidate(const std::string& key, const std::string& why) {
  std::error_code ec;
  fs::remove(EntryPath(key), ec);
  ++counters_.invalidations;
  ++counters_.misses;
  Log(CompileCacheLogLevel::kWarning,
      absl::StrCat("invalidated ", key, ": ", why, "; ",
                   ec ? absl::StrCat("could not delete it (", ec.message(), ")") : "deleted it", ", compiling again"));
}

std::optional<Graph> CompileCache::Lookup(const std::string& key, const std::string& key_text) {
  const std::string path = EntryPath(key);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    ++counters_.misses;
    Log(CompileCacheLogLevel::kInfo, absl::StrCat("miss ", key));
    return std::nullopt;
  }
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Open(path);
  if (!file.ok()) {
    Invalidate(key, std::string(file.status().message()));
    return std::nullopt;
  }
  // The cache wrote every entry with the footer: one without it was cut
  // short (a full disk, a copy tool), and ParseModel would not check it.
  if (!HasModelFooter((*file)->bytes())) {
    Invalidate(key, absl::StrCat("no checksum footer (", (*file)->bytes().size(), " bytes: truncated)"));
    return std::nullopt;
  }
  // kFull: every byte's CRC, not only the tables' (the cache's contract:
  // a corrupted entry is detected, deleted and rebuilt).
  absl::StatusOr<Graph> graph = ParseModel((*file)->bytes(), *file, {}, VerifyLevel::kFull);
  if (!graph.ok()) {
    Invalidate(key, std::string(graph.status().message()));
    return std::nullopt;
  }
  // Plain ops only where the entry's build stamp left them for JIT (a
  // JIT-only accelerator's partitions, compiled at every load).
  std::set<uint32_t> left_for_jit;
  if (graph->build_stamp)
    for (const BuildStamp::LeftForJit& l : graph->build_stamp->left_for_jit)
      left_for_jit.insert(l.op_ids.begin(), l.op_ids.end());
  for (const Op& op : graph->ops)
    if (op.type != TSR_OP_DISPATCH && !left_for_jit.count(op.id)) {
      Invalidate(key, "not a compiled model");
      return std::nullopt;
    }
  // The CRC proves the bytes are the ones written, not that they were
  // written for this key: an entry copied over another's name would pass
  // it and run the other model. The recorded key must be this one.
  auto recorded = std::find_if(graph->metadata.begin(), graph->metadata.end(),
                               [](const auto& kv) { return kv.first == kCompileCacheKeyMetadata; });
  if (recorded == graph->metadata.end()) {
    Invalidate(key, "the entry records no key, so it cannot be shown to belong to this one");
    return std::nullopt;
  }
  if (recorded->second != key_text) {
    Invalidate(
        key, absl::StrCat("the entry was stored under another key (", KeyDifferences(recorded->second, key_text), ")"));
    return std::nullopt;
  }
  graph->metadata.erase(recorded);
  // A hit makes the entry the most recently used (the eviction order).
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  ++counters_.hits;
  Log(CompileCacheLogLevel::kInfo, absl::StrCat("hit ", key, " (", (*file)->bytes().size(), " bytes, ", path, ")"));
  return *std::move(graph);
}

void CompileCache::Store(const std::string& key, const std::string& key_text, const Graph& compiled) {
  // A copy is cheap: constants are spans over the model's own bytes.
  Graph entry = compiled;
  entry.metadata.emplace_back(kCompileCacheKeyMetadata, key_text);
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(entry);
  if (!bytes.ok()) {
    Log(CompileCacheLogLevel::kWarning, absl::StrCat("not stored ", key, ": ", bytes.status().message()));
    return;
  }
  if (bytes->size() > options_.max_bytes) {
    Log(CompileCacheLogLevel::kWarning, absl::StrCat("not stored ", key, ": the entry's ", bytes->size(),
                                                     " bytes exceed the cap of ", options_.max_bytes));
    return;
  }
  absl::Status written;
  {
    const ScopedIgnoreFileSizeSignal no_sigxfsz;
    written = WriteFileAtomically(EntryPath(key), *bytes);
  }
  if (!written.ok()) {
    Log(CompileCacheLogLevel::kWarning, absl::StrCat("not stored ", key, ": ", written.message()));
    return;
  }
  ++counters_.stores;
  Log(CompileCacheLogLevel::kInfo, absl::StrCat("stored ", key, " (", bytes->size(), " bytes)"));
  Evict(key);
}

void CompileCache::Evict(const std::string& keep_key) {
  struct Entry {
    std::string key;
    uint64_t bytes;
    timespec used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(options_.directory, ec)) {
    const std::string name = e.path().filename().string();
    struct stat st {};
    if (!IsCompileCacheEntryName(name) || lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    entries.push_back({name.substr(0, 64), static_cast<uint64_t>(st.st_size), st.st_mtim});
    total += static_cast<uint64_t>(st.st_size);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
    if (a.used.tv_nsec != b.used.tv_nsec) return a.used.tv_nsec < b.used.tv_nsec;
    return a.key < b.key;
  });
  for (const Entry& e : entries) {
    if (total <= options_.max_bytes) break;
    if (e.key == keep_key) continue;
    const uint64_t before = total;
    if (!fs::remove(EntryPath(e.key), ec)) continue;  // another process got there first
    total -= e.bytes;
    ++counters_.evictions;
    Log(CompileCacheLogLevel::kInfo,
        absl::StrCat("evicted ", e.key, " (", e.bytes, " bytes, least recently used; the cache held ", before,
                     " bytes, over its cap of ", options_.max_bytes, ")"));
  }
}

}  // namespace tessera
