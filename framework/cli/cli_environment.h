// What every `tessera` subcommand shares: the common flags, their parsing
// (the objects of the app API are made from them in cli/app_flags.h), the
// bundled SoC names, and how errors are printed.
#ifndef TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_
#define TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/base/install_layout.h"
#include "framework/cli/cli_args.h"
#include "framework/core/base/budgets.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "framework/core/base/soc_selection.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

// Flags understood by every command that loads plugins.
void AddPluginFlags(FlagSpec& spec);
// ... and by commands that compile: --accelerators, --mode, --soc,
// --kernels, --option, and the partitioning policy (--policy, --min-ops,
// --max-partitions).
void AddCompileFlags(FlagSpec& spec);
// --strict (partition, compile, run, bench): any fallback is exit 1.
void AddStrictFlag(FlagSpec& spec);


// --soc NAME (default ref-phone) resolved to the bundled file, or a path to
// a .soc file. An unknown name is an error listing the bundled ones.
absl::StatusOr<SocSelection> ResolveSoc(const Args& args);
std::vector<std::string> BundledSocNames();

// Flags of every command that takes a model: --budget NAME=VALUE
// (repeatable, any model), and for an .onnx --input-shape NAME=D0,D1,...
// (repeatable), --no-optimize, --max-folded-bytes N.
void AddImportFlags(FlagSpec& spec);
// --verify structure|full (inspect, partition, compile, run, bench): how
// much of a .tsr file the load checks (docs/model_format.md section 4).
void AddVerifyFlag(FlagSpec& spec);
// Its value (default structure); any other value is a usage error.
absl::StatusOr<app::VerifyLevel> VerifyLevelFrom(const Args& args);
// The --budget flags over the defaults (base/budgets.h); an unknown name
// or a bad value is a usage error.
absl::StatusOr<Budgets> BudgetsFrom(const Args& args);
// The import options of those flags (`import` and LoadModel use these
// alone); an error is a bad flag value, a usage error.
absl::StatusOr<onnx_import::ImportOptions> ImportOptionsFrom(const Args& args);

// --seed N of the random inputs (default 1); InvalidArgument when N is not
// an integer in [0, 2^32).
absl::StatusOr<uint32_t> SeedFrom(const Args& args);

// Prints the error and returns exit code 1.
int Fail(const absl::Status& status);
int UsageError(const std::string& message, const std::string& usage);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_
