// The resilience flags of `run` and `bench` (docs/resilience.md):
// --deadline-ms N, --max-retries N, --no-fallback; and the runtime options
// they make, with the cpu plans of a model compiled here.
#ifndef TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_
#define TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/cli_args.h"
#include "compile/compile_driver.h"
#include "loaded_model.h"
#include "run_context.h"

namespace tessera::cli {

void AddResilienceFlags(FlagSpec& spec);
// A bad value is a usage error.
absl::StatusOr<ResiliencePolicy> ResiliencePolicyFrom(const Args& args);
// The policy of the flags; the cpu plans unless --no-fallback or the model
// was precompiled. `notes` receives partitions left without a plan.
absl::StatusOr<RuntimeOptions> RuntimeOptionsFrom(const Args& args, const CompiledModel& compiled, bool precompiled,
                                                  const PluginRegistry& registry, const CompileOptions& options,
                                                  std::vector<std::string>* notes);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_RESILIENCE_FLAGS_H_
