// From a Graph to a CompiledGraph: ask each selected compiler plugin (in
// priority order) what it supports, partition, have each plugin compile its
// own partitions, and assemble the DISPATCH graph. When a plugin's compile
// fails its partitions fall back to the next claimant, with the reason
// recorded; nothing fails silently.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_DRIVER_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_DRIVER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/compile/compiled_graph.h"
#include "framework/compiler/partition/policy_planner.h"
#include "framework/compiler/partition/precision_policy.h"
#include "framework/core/base/budgets.h"
#include "framework/loader/plugin_registry.h"

namespace tessera {

// What an AOT compile does with an accelerator whose plugin compiles only
// JIT (the bundled mock_dsp): AOT and JIT mixed in one model.
enum class JitOnlyInAot {
  // Its partitions are JIT-compiled beside the others' bytecode: the model
  // runs in this process only (`run --mode aot`, the app API).
  kCompileJit,
  // Its partitions stay in the graph as plain ops, recorded in the build
  // stamp, for a later load to JIT-compile (`tessera compile`, the cache).
  kLeaveAsOps,
};

struct CompileOptions {
  // Vendor names or plugins' declared short names, in priority order, or
  // {"auto"}: every loaded compiler by declared priority, fallbacks last.
  std::vector<std::string> accelerators = {"auto"};
  CompileMode mode = CompileMode::kAot;
  JitOnlyInAot jit_only = JitOnlyInAot::kCompileJit;  // read only when mode is kAot
  SocSelection soc;
  std::vector<std::pair<std::string, std::string>> plugin_options;
  PolicyOptions partitioning;  // --policy, --min-ops, --max-partitions
  // --precision and the ranges that prove FP16 safe (precision_policy.h).
  PrecisionOptions precision;
  // Only max_partition_count is read here, after planning; the rest are
  // checked where the graph was loaded or imported.
  Budgets budgets;
};

// Resolves names to loaded compiler plugins, cpu always last.
absl::StatusOr<std::vector<const CompilerPluginLibrary*>> ResolveAccelerators(const PluginRegistry& registry,
                                                                              const std::vector<std::string>& names);

// True when one of `libs` compiles JIT but not AOT.
bool HasJitOnlyAccelerator(const std::vector<const CompilerPluginLibrary*>& libs);

absl::StatusOr<CompiledGraph> CompileGraph(const Graph& graph, const PluginRegistry& registry,
                                           const CompileOptions& options);

// The JIT half of a mixed compile: `partial` is an AOT result whose build
// stamp names the ops a JIT-only accelerator left as plain ops
// (JitOnlyInAot::kLeaveAsOps). Compiles them, keeping every DISPATCH op,
// with those of `options.accelerators` that left them plus its fallbacks,
// so the AOT accelerators do not take them over (all of them when that
// leaves none).
absl::StatusOr<CompiledGraph> CompileOpsLeftForJit(const Graph& partial, const PluginRegistry& registry,
                                                   const CompileOptions& options);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_DRIVER_H_
