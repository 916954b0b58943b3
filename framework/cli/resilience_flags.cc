#include "framework/cli/resilience_flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tessera::cli {

void AddResilienceFlags(FlagSpec& spec) {
  spec.values.insert({"deadline-ms", "max-retries"});
  spec.switches.insert("no-fallback");
}

absl::Status ApplyResilienceFlags(const Args& args, app::CompileOptions& options) {
  if (auto text = args.Value("deadline-ms"))
    if (!absl::SimpleAtoi(*text, &options.deadline_ms) || options.deadline_ms > 3600 * 1000)
      return absl::InvalidArgumentError(absl::StrCat("--deadline-ms takes milliseconds in [0, 3600000] (0: none), got '",
                                                     *text, "'"));
  if (auto text = args.Value("max-retries"))
    if (!absl::SimpleAtoi(*text, &options.max_retries) || options.max_retries < 0 || options.max_retries > 100)
      return absl::InvalidArgumentError(absl::StrCat("--max-retries takes an integer in [0, 100], got '", *text, "'"));
  if (args.Has("no-fallback")) options.fallback = false;
  return absl::OkStatus();
}

}  // namespace tessera::cli
