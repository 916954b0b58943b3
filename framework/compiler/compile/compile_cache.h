// The compile cache's store (docs/compile_cache.md): one AOT-compiled .tsr
// per key in a directory, `<64 hex digits>.tsr`.
//  * Entries are written with WriteFileAtomically: a reader sees a whole
//    entry or none, also with several processes sharing the directory.
//  * Every entry ends with the model checksum footer and records, in its
//    metadata, the full text of the key it was stored under. An entry
//    without the footer (truncated), whose CRC does not match (edited, bit
//    rot), that does not parse, is not a compiled model, or whose recorded
//    key is not the one asked for (an entry copied or renamed onto another
//    key's name) is an invalidation: it is deleted and the caller compiles
//    again. It is never loaded. The CRC proves a blob is intact; only the
//    recorded key proves it is the entry of this model and these options.
//  * The directory is checked like an ssh key file: owned by the calling
//    user and not writable by group or others, since whoever can write an
//    entry chooses the code this process runs. One the cache creates is 0700.
//  * A store that fails (full disk, file size limit) is logged, never an
//    error and never a signal: the compile it would have saved succeeded.
//  * A size cap: after a store, least-recently-used entries (by mtime, which
//    a hit refreshes) are evicted until the directory's entries fit. The
//    entry just stored is never the one evicted.
//  * Every hit, miss, invalidation, eviction and skipped store is one log
//    line and a counter.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera {

// 1 GiB: a few compiled models of a phone app; `--cache-max-bytes` sets it.
inline constexpr uint64_t kDefaultCompileCacheMaxBytes = uint64_t{1} << 30;

// The metadata key under which an entry records its key's text; the
// loader compares it and removes it, so a hit returns the graph as it was
// compiled.
inline constexpr char kCompileCacheKeyMetadata[] = "tessera.compile_cache.key";

struct CompileCacheOptions {
  std::string directory;  // "" = no cache
  uint64_t max_bytes = kDefaultCompileCacheMaxBytes;
};

struct CompileCacheCounters {
  uint64_t hits = 0;
  uint64_t misses = 0;  // an invalidated entry is a miss too
  uint64_t invalidations = 0;
  uint64_t evictions = 0;
  uint64_t stores = 0;
};

// Receives one line per cache event, without a trailing newline. Hits,
// misses, stores and evictions are kInfo; what the user should look at (a
// damaged entry, a store that failed, a cache that was not used) kWarning.
enum class CompileCacheLogLevel { kInfo, kWarning };
using CompileCacheLog = std::function<void(CompileCacheLogLevel level, const std::string& line)>;

class CompileCache {
 public:
  // Creates the directory when missing (0700; its parents as usual). An
  // existing path that is not a directory is FailedPrecondition; a
  // directory refused by CheckCompileCacheDirectory is PermissionDenied
  // (the caller compiles without the cache).
  static absl::StatusOr<CompileCache> Open(const CompileCacheOptions& options, CompileCacheLog log);

  // The entry for `key` (its hex name), mapped and verified, and stored
  // under the same `key_text` (the key's canonical text); nullopt on a miss
  // (or after an invalidation, which deletes the entry).
  std::optional<Graph> Lookup(const std::string& key, const std::string& key_text);

  // Writes `compiled` (an AOT-compiled graph) as the entry for `key`,
  // recording `key_text` in it, then evicts. A cache that cannot be written
  // (permissions, ENOSPC, EFBIG, RLIMIT_FSIZE) is logged, not an error: the
  // compile it would have saved has succeeded. No temporary is left behind.
  void Store(const std::string& key, const std::string& key_text, const Graph& compiled);

  // Deletes the entry for `key` (a hit that failed where the cache cannot
  // look: a dispatch library refused it at load), logged and counted as an
  // invalidation, so the next compile of the key compiles and stores anew.
  void Discard(const std::string& key, const std::string& why) { Invalidate(key, why); }

  std::string EntryPath(const std::string& key) const;
  const CompileCacheCounters& counters() const { return counters_; }
  const CompileCacheOptions& options() const { return options_; }

 private:
  CompileCache(CompileCacheOptions options, CompileCacheLog log) : options_(std::move(options)), log_(std::move(log)) {}
  void Invalidate(const std::string& key, const std::string& why);
  void Evict(const std::string& keep_key);
  void Log(CompileCacheLogLevel level, const std::string& line) const;

  CompileCacheOptions options_;
  CompileCacheLog log_;
  CompileCacheCounters counters_;
};

// OK when `directory` (followed if a symlink) is owned by geteuid() and not
// writable by group or others; else PermissionDenied naming the directory,
// the owner and mode found, and what is required.
absl::Status CheckCompileCacheDirectory(const std::string& directory);

// True for a name the cache wrote: 64 lowercase hex digits + ".tsr".
bool IsCompileCacheEntryName(const std::string& file_name);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_H_
