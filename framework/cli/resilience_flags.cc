#include "cli/resilience_flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compile/cpu_fallback_plans.h"

namespace tessera::cli {

void AddResilienceFlags(FlagSpec& spec) {
  spec.values.insert({"deadline-ms", "max-retries"});
  spec.switches.insert("no-fallback");
}

absl::StatusOr<ResiliencePolicy> ResiliencePolicyFrom(const Args& args) {
  ResiliencePolicy policy;
  if (auto text = args.Value("deadline-ms"))
    if (!absl::SimpleAtoi(*text, &policy.deadline_ms) || policy.deadline_ms > 3600 * 1000)
      return absl::InvalidArgumentError(absl::StrCat("--deadline-ms takes milliseconds in [0, 3600000] (0: none), got '",
                                                     *text, "'"));
  if (auto text = args.Value("max-retries"))
    if (!absl::SimpleAtoi(*text, &policy.max_retries) || policy.max_retries < 0 || policy.max_retries > 100)
      return absl::InvalidArgumentError(absl::StrCat("--max-retries takes an integer in [0, 100], got '", *text, "'"));
  policy.fallback = !args.Has("no-fallback");
  return policy;
}

absl::StatusOr<RuntimeOptions> RuntimeOptionsFrom(const Args& args, const CompiledModel& compiled, bool precompiled,
                                                  const PluginRegistry& registry, const CompileOptions& options,
                                                  std::vector<std::string>* notes) {
  ASSIGN_OR_RETURN(ResiliencePolicy policy, ResiliencePolicyFrom(args));
  RuntimeOptions runtime{options.soc, options.plugin_options, policy, {}};
  if (!policy.fallback || precompiled) return runtime;
  ASSIGN_OR_RETURN(CpuPlanSet plans, BuildCpuFallbackPlans(compiled, registry, options));
  runtime.cpu_plans = std::move(plans.plans);
  *notes = std::move(plans.notes);
  return runtime;
}

}  // namespace tessera::cli
