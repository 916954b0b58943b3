// The compile-cache flags of `compile`, `run` and `bench`
// (docs/compile_cache.md): --cache-dir DIR and --cache-max-bytes N, as the
// app API's CompileOptions (cache_dir, cache_max_bytes); and `run`'s
// --warmup background (CompileOptions::background_warmup; `bench --warmup N`
// counts runs instead).
#ifndef TESSERA_FRAMEWORK_CLI_CACHE_FLAGS_H_
#define TESSERA_FRAMEWORK_CLI_CACHE_FLAGS_H_

#include "absl/status/status.h"
#include "framework/cli/cli_args.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

void AddCacheFlags(FlagSpec& spec);
// Sets the cache options of the flags given; a bad value is an error for
// UsageError.
absl::Status ApplyCacheFlags(const Args& args, app::CompileOptions& options);
// With --cache-dir, the cache's lines (the app's vendor "tessera", info
// included) go to stderr as "tessera: compile cache: ...", terminal-safe;
// plugin lines stay as they were: warnings and errors, "tessera[vendor] ...".
void RouteCacheLog(const Args& args, app::EnvironmentOptions& options);

// run --warmup background (needs --mode jit).
void AddWarmupFlag(FlagSpec& spec);
absl::Status ApplyWarmupFlag(const Args& args, app::CompileOptions& options);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_CACHE_FLAGS_H_
