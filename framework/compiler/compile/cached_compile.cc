#include "framework/compiler/compile/cached_compile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/compile/compile_cache_key.h"
#include "framework/core/base/status_macros.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

bool HasOpsLeftForJit(const Graph& graph) {
  for (const Op& op : graph.ops)
    if (op.type != TSR_OP_DISPATCH) return true;
  return false;
}

// The JIT half of a mixed compile through the cache: the entry
// holds the AOT partitions' bytecode and, as plain ops, the partitions of
// the JIT-only accelerators (its build stamp names them). Those are
// compiled here, at every load, by the accelerators that left them and
// the fallbacks; one log line says so.
absl::StatusOr<CompiledGraph> CompileBypassingTheCache(const Graph& partial, const PluginRegistry& registry,
                                                       const CompileOptions& options, const CompileCacheOptions& cache,
                                                       const CompileCacheLog& log, CompileCacheReport& report) {
  std::vector<std::string> vendors;
  std::vector<std::string> parts;
  if (partial.build_stamp)
    for (const BuildStamp::LeftForJit& l : partial.build_stamp->left_for_jit) {
      if (std::find(vendors.begin(), vendors.end(), l.vendor) == vendors.end()) vendors.push_back(l.vendor);
      parts.push_back(absl::StrCat(l.vendor, " ops ", absl::StrJoin(l.op_ids, ",")));
    }
  report.jit_bypass = absl::StrCat(
      "partitions of ", vendors.empty() ? "JIT-only accelerators" : absl::StrJoin(vendors, ", "), " (",
      parts.empty() ? "ops not compiled ahead of time" : absl::StrJoin(parts, "; "),
      ") bypass the cache: JIT compilation, its handles live in process memory only and cannot be cached, so they "
      "are compiled at every load; the AOT partitions are cached");
  if (log)
    log(CompileCacheLogLevel::kWarning,
        absl::StrCat("compile cache: ", report.jit_bypass, " ('", cache.directory, "')"));
  return CompileOpsLeftForJit(partial, registry, options);
}

}  // namespace

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
    log(CompileCacheLogLevel::kWarning, absl::StrCat("compile cache: disabled for this model (", reason, ": '",
                                                     cache.directory, "' is left untouched)"));
}

absl::StatusOr<CompiledGraph> CompileWithCache(const Graph& graph, const PluginRegistry& registry,
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
  absl::StatusOr<CompileCache> opened = CompileCache::Open(cache, log);
  // A directory others could write is not trusted, but the cache only saves
  // time: the model is compiled without it, and the reason is reported. A
  // path that is not a directory stays an error (a mistyped flag).
  if (absl::IsPermissionDenied(opened.status())) {
    r.disabled_reason = std::string(opened.status().message());
    if (log)
      log(CompileCacheLogLevel::kWarning,
          absl::StrCat("compile cache: not used: ", r.disabled_reason, "; compiling without it"));
    return CompileGraph(graph, registry, options);
  }
  if (!opened.ok()) return opened.status();
  CompileCache& store = *opened;
  // Only what is serializable is cached: a JIT-only accelerator's
  // partitions are stored as plain ops and compiled below, every time.
  CompileOptions aot = options;
  aot.jit_only = JitOnlyInAot::kLeaveAsOps;
  ASSIGN_OR_RETURN(CompileCacheKey key, ComputeCompileCacheKey(graph, registry, aot));
  r.enabled = true;
  r.key = key.hex;
  if (std::optional<Graph> entry = store.Lookup(key.hex, key.description)) {
    r.hit = true;
    r.counters = store.counters();
    if (HasOpsLeftForJit(*entry) && options.jit_only == JitOnlyInAot::kCompileJit) {
      ASSIGN_OR_RETURN(CompiledGraph mixed, CompileBypassingTheCache(*entry, registry, options, cache, log, r));
      mixed.mode = CompileMode::kAot;
      return mixed;
    }
    CompiledGraph compiled;
    if (entry->build_stamp)
      for (const BuildStamp::LeftForJit& l : entry->build_stamp->left_for_jit)
        compiled.left_for_jit.push_back({l.vendor, l.op_ids});
    compiled.graph = *entry;
    compiled.source = *std::move(entry);
    compiled.soc = options.soc;
    compiled.mode = CompileMode::kAot;
    return compiled;
  }
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, registry, aot);
  if (compiled.ok()) store.Store(key.hex, key.description, compiled->graph);
  r.counters = store.counters();
  if (!compiled.ok() || !HasOpsLeftForJit(compiled->graph) || options.jit_only == JitOnlyInAot::kLeaveAsOps)
    return compiled;
  // The plan, claims and report stay those of the whole model; the graph
  // becomes the one with the JIT partitions compiled.
  ASSIGN_OR_RETURN(CompiledGraph jit, CompileBypassingTheCache(compiled->graph, registry, options, cache, log, r));
  CompiledGraph merged = *std::move(compiled);
  merged.graph = std::move(jit.graph);
  merged.jit_slots = std::move(jit.jit_slots);
  for (auto& instance : jit.instances) merged.instances.push_back(std::move(instance));
  for (auto& artifact : jit.artifacts) merged.artifacts.push_back(std::move(artifact));
  for (FallbackNote& note : jit.fallbacks) merged.fallbacks.push_back(std::move(note));
  merged.timings.compile_ms += jit.timings.compile_ms;
  merged.left_for_jit.clear();
  return merged;
}

void DiscardCompileCacheEntry(const CompileCacheOptions& cache, const std::string& key, const std::string& why,
                              const CompileCacheLog& log) {
  absl::StatusOr<CompileCache> opened = CompileCache::Open(cache, log);
  if (opened.ok()) opened->Discard(key, why);
}

void WriteCompileCacheReportJson(const CompileCacheReport& r, JsonWriter& j) {
  j.BeginObject().Field("enabled", r.enabled);
  if (!r.disabled_reason.empty()) j.Field("disabled_reason", r.disabled_reason);
  if (!r.jit_bypass.empty()) j.Field("jit_bypass", r.jit_bypass);
  j.Field("directory", r.directory).Field("key", r.key).Field("hit", r.hit);
  j.Field("hits", r.counters.hits).Field("misses", r.counters.misses);
  j.Field("invalidations", r.counters.invalidations).Field("evictions", r.counters.evictions);
  j.Field("stores", r.counters.stores).EndObject();
}

}  // namespace tessera
