#include "framework/cli/cli_environment.h"
#include "framework/cli/shorthand_flags.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/terminal_text.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "tessera/common.h"

namespace tessera::cli {
namespace fs = std::filesystem;

void AddPluginFlags(FlagSpec& spec) {
  spec.repeated.insert("plugin-dir");
}

void AddCompileFlags(FlagSpec& spec) {
  AddPluginFlags(spec);
  spec.values.insert(
      {"accelerators", "mode", "soc", "kernels", "policy", "min-ops", "max-partitions", "precision", "calibration"});
  spec.repeated.insert("option");
}

void AddStrictFlag(FlagSpec& spec) { spec.switches.insert("strict"); }

std::vector<std::string> BundledSocNames() { return SocNamesIn(BundledSocDirectory()); }

absl::StatusOr<SocSelection> ResolveSoc(const Args& args) {
  const std::string requested = args.ValueOr("soc", "ref-phone");
  absl::StatusOr<SocSelection> soc = FindSoc(requested, BundledSocDirectory());
  // The default SoC not installed: the plugins use their own default.
  if (!soc.ok() && !args.Has("soc")) return SocSelection{requested, ""};
  return soc;
}

void AddImportFlags(FlagSpec& spec) {
  spec.switches.insert("no-optimize");
  spec.repeated.insert("budget");
  spec.values.insert("max-folded-bytes");
  spec.repeated.insert("input-shape");
  spec.repeated.insert("freeze-input");
}

void AddVerifyFlag(FlagSpec& spec) { spec.values.insert("verify"); }

absl::StatusOr<app::VerifyLevel> VerifyLevelFrom(const Args& args) {
  const std::string level = args.ValueOr("verify", "structure");
  if (level == "structure") return app::VerifyLevel::kStructure;
  if (level == "full") return app::VerifyLevel::kFull;
  return absl::InvalidArgumentError(absl::StrCat("--verify must be structure or full, not '", level, "'"));
}

absl::StatusOr<Budgets> BudgetsFrom(const Args& args) {
  Budgets budgets;
  for (const std::string& flag : args.All("budget")) RETURN_IF_ERROR(SetBudget(budgets, flag));
  return budgets;
}

absl::StatusOr<onnx_import::ImportOptions> ImportOptionsFrom(const Args& args) {
  onnx_import::ImportOptions options;
  ASSIGN_OR_RETURN(options.budgets, BudgetsFrom(args));
  for (const std::string& flag : args.All("input-shape"))
    RETURN_IF_ERROR(onnx_import::ParseInputShapeFlag(flag, options));
  for (const std::string& flag : args.All("freeze-input"))
    RETURN_IF_ERROR(onnx_import::ParseFreezeInputFlag(flag, options));
  options.optimize = !args.Has("no-optimize");
  if (auto text = args.Value("max-folded-bytes")) {
    if (!absl::SimpleAtoi(*text, &options.max_folded_constant_bytes) || options.max_folded_constant_bytes < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("--max-folded-bytes must be a non-negative integer (bytes), not '", *text, "'"));
  }
  return options;
}

absl::StatusOr<uint32_t> SeedFrom(const Args& args) {
  uint32_t seed = 1;
  if (auto text = args.Value("seed"); text && !absl::SimpleAtoi(*text, &seed))
    return absl::InvalidArgumentError(absl::StrCat("--seed must be an integer in [0, 4294967295], not '", *text, "'"));
  return seed;
}

int Fail(const absl::Status& status) {
  // Error texts quote names from models and plugins.
  std::cerr << "tessera: error: " << TerminalSafe(status.message(), TerminalLayout::kText) << "\n";
  return 1;
}

int UsageError(const std::string& message, const std::string& usage) {
  std::cerr << "tessera: " << TerminalSafe(message, TerminalLayout::kText) << "\nusage: " << usage << "\n";
  return 2;
}

}  // namespace tessera::cli
