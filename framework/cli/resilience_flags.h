// The resilience flags of `run` and `bench` (docs/resilience.md):
// --deadline-ms N, --max-retries N, --no-fallback, as the app API's
// CompileOptions (max_retries, fallback, deadline_ms).
#ifndef TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_
#define TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_

#include "absl/status/status.h"
#include "framework/cli/cli_args.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

void AddResilienceFlags(FlagSpec& spec);
// Sets the policy of the flags given; a bad value is an error for UsageError.
absl::Status ApplyResilienceFlags(const Args& args, app::CompileOptions& options);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_
