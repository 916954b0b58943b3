// Compiling through the compile cache: the one place that decides whether
// a compile may use the cache, computes its key, and loads or stores the
// entry. The CLI (`--cache-dir`) and the app API (CompileOptions::cache_dir)
// both come here.
//
// Only AOT results are cached. With JIT the cache is disabled for the
// model, one log line says why, and the directory is not touched (not even
// created): JIT handles live in process memory and nothing of them can be
// written. An AOT compile with a JIT-only accelerator caches the AOT
// partitions and leaves that accelerator's partitions as plain ops in the
// entry; they are JIT-compiled at every load, and one log line says so.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_CACHED_COMPILE_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_CACHED_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "framework/compiler/compile/compile_cache.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/json_writer.h"

namespace tessera {

// What the cache did for one compile (`run --json` / `compile --json`
// print it as the "cache" object).
struct CompileCacheReport {
  bool enabled = false;
  std::string disabled_reason;  // set when a directory was given but not used
  std::string directory;
  std::string key;  // "" when disabled
  bool hit = false;
  CompileCacheCounters counters;
  // Set when JIT-only accelerators' partitions were compiled beside the
  // cached AOT ones: which, and why they are not cached.
  std::string jit_bypass;
};

// For a JIT compile given a cache directory: fills `report` (optional)
// with the reason the cache is disabled and logs it, once. Nothing else
// happens: the directory is not touched.
void ReportJitCacheBypass(const CompileCacheOptions& cache, const CompileCacheLog& log, CompileCacheReport* report);

// Compiles `graph`, through the cache when `cache.directory` is set.
// A hit returns the entry as a compiled model (no plugin compiles; the plan
// is empty, as for any precompiled model). A miss compiles, then stores.
absl::StatusOr<CompiledGraph> CompileWithCache(const Graph& graph, const PluginRegistry& registry,
                                               const CompileOptions& options, const CompileCacheOptions& cache,
                                               const CompileCacheLog& log, CompileCacheReport* report);

// Evicts the entry `key` of the cache `cache` (a hit whose model failed to
// load, `why`), logged through `log`; the caller compiles once more. A
// directory that cannot be opened as a cache has nothing to evict.
void DiscardCompileCacheEntry(const CompileCacheOptions& cache, const std::string& key, const std::string& why,
                              const CompileCacheLog& log);

// The "cache" object: {"enabled", "disabled_reason"?, "directory", "key",
// "hit", "hits", "misses", "invalidations", "evictions", "stores"}.
void WriteCompileCacheReportJson(const CompileCacheReport& report, JsonWriter& j);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_CACHED_COMPILE_H_
