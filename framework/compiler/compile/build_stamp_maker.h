// The build stamp a compile writes into the model (graph/build_stamp.h):
// gathered from the same sources as the compile-cache key
// (compile_cache_key.h) — each compiling plugin's identity and
// compatibility string, the SoC and its description's digest, the options.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_BUILD_STAMP_MAKER_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_BUILD_STAMP_MAKER_H_

#include "absl/status/statusor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/graph/build_stamp.h"

namespace tessera {

// The stamp of `model` (compiled with `options`): one vendor entry per
// bytecode blob's vendor. A vendor whose blob came already compiled with
// the source graph keeps that graph's entry (`source_stamp`, may be NULL).
// Fails when a plugin's compatibility_info fails (the compile-cache key
// fails the same way).
absl::StatusOr<BuildStamp> MakeBuildStamp(const CompiledGraph& model, const CompileOptions& options,
                                          const BuildStamp* source_stamp);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_BUILD_STAMP_MAKER_H_
