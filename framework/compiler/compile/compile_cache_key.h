// The key of a compile-cache entry (docs/compile_cache.md): SHA-256 over a
// canonical, versioned text of everything that changes the compiled model:
//  * the model's content (every tensor, constant byte, op and attribute);
//  * the SDK: its version, the host ABI and the bytecode/model formats;
//  * each selected compiler plugin: vendor, plugin version, negotiated ABI
//    version, build id, compile modes, and its compatibility string for
//    these options and this SoC (ABI 1.2, "equal strings promise equal code");
//  * the SoC: its name and the SHA-256 of its description file;
//  * the options: mode, requested accelerators, vendor options in order,
//    and the partition policy with its limits.
// Keys are stable across builds and machines: nothing in them is a pointer,
// a path, a time or std::hash.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_KEY_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_KEY_H_

#include <string>

#include "absl/status/statusor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/graph/graph.h"
#include "framework/loader/plugin_registry.h"

namespace tessera {

struct CompileCacheKey {
  std::string hex;          // 64 lowercase hex digits: the entry's file name
  std::string description;  // the hashed text (the model as its content digest)
};

// The SHA-256 of the graph's content, in a canonical order (hex).
std::string GraphContentDigest(const Graph& graph);

// Fails when an accelerator does not resolve or a plugin refuses the
// options (the compile would fail the same way).
absl::StatusOr<CompileCacheKey> ComputeCompileCacheKey(const Graph& graph, const PluginRegistry& registry,
                                                       const CompileOptions& options);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILE_CACHE_KEY_H_
