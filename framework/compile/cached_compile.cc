#include "compile/cached_compile.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compile/compile_cache_key.h"

namespace tessera {

void ReportJitCacheBypass(const CompileCacheOptions& cache, const CompileCacheLog& log, CompileCacheReport* report) {
  if (cache.directory.empty()) return;
  const std::string reason =
      "JIT compilation: its handles live in process memory only and cannot be cached, so the cache directory is "
      "not used";
  if (report != nullptr) {
    report->directory = cache.directory;
    report->disabled_reason = reason;
  }
  if (log)
    log(CompileCacheLogLevel::kWarning,
        absl::StrCat("compile cache: disabled for this model (", reason, ": '", cache.directory, "' is left untouched)"));
}

absl::StatusOr<CompiledModel> CompileWithCache(const Graph& graph, const PluginRegistry& registry,
                                               const CompileOptions& options, const CompileCacheOptions& cache,
                                               const CompileCacheLog& log, CompileCacheReport* report) {
  CompileCacheReport local;
  CompileCacheReport& r = report != nullptr ? *report : local;
  r = {};
  r.directory = cache.directory;
  if (cache.directory.empty()) return CompileGraph(graph, registry, options);
  if (options.mode == CompileMode::kJit) {
    ReportJitCacheBypass(cache, log, &r);
    return CompileGraph(graph, registry, options);
  }
  ASSIGN_OR_RETURN(CompileCache store, CompileCache::Open(cache, log));
  ASSIGN_OR_RETURN(CompileCacheKey key, ComputeCompileCacheKey(graph, registry, options));
  r.enabled = true;
  r.key = key.hex;
  if (std::optional<Graph> entry = store.Lookup(key.hex)) {
    r.hit = true;
    r.counters = store.counters();
    CompiledModel compiled;
    compiled.graph = *entry;
    compiled.source = *std::move(entry);
    compiled.soc = options.soc;
    compiled.mode = CompileMode::kAot;
    return compiled;
  }
  absl::StatusOr<CompiledModel> compiled = CompileGraph(graph, registry, options);
  if (compiled.ok()) store.Store(key.hex, compiled->graph);
  r.counters = store.counters();
  return compiled;
}

void WriteCompileCacheReportJson(const CompileCacheReport& r, JsonWriter& j) {
  j.BeginObject().Field("enabled", r.enabled);
  if (!r.disabled_reason.empty()) j.Field("disabled_reason", r.disabled_reason);
  j.Field("directory", r.directory).Field("key", r.key).Field("hit", r.hit);
  j.Field("hits", r.counters.hits).Field("misses", r.counters.misses);
  j.Field("invalidations", r.counters.invalidations).Field("evictions", r.counters.evictions);
  j.Field("stores", r.counters.stores).EndObject();
}

}  // namespace tessera
