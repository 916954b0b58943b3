// `tessera plugins [--json] [--probe]`: what was loaded, from where, and
// what was skipped and why. --probe loads each library in a child process
// first, so one that crashes as it loads is reported instead of fatal.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cli_environment.h"
#include "tessera/app/tessera_app.hpp"
#include "framework/cli/commands.h"

namespace tessera::cli {
namespace {

void WriteStrings(JsonWriter& j, const std::vector<std::string>& v) {
  j.BeginArray();
  for (const std::string& s : v) j.String(s);
  j.EndArray();
}

}  // namespace

int PluginsCommand(const Argv& argv) {
  FlagSpec spec;
  AddPluginFlags(spec);
  spec.switches.insert({"json", "probe"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || !args->positionals().empty())
    return UsageError(args.ok() ? "plugins takes no positional arguments" : std::string(args.status().message()),
                      "tessera plugins [--json] [--probe] [--plugin-dir DIR]");
  absl::StatusOr<app::Environment> env = EnvironmentFrom(*args);
  if (!env.ok()) return Fail(env.status());
  std::vector<app::PluginInfo> compilers, dispatchers;
  for (app::PluginInfo& p : env->plugins()) (p.role == "compiler" ? compilers : dispatchers).push_back(std::move(p));
  const std::string abi = absl::StrCat(TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR);
  if (args->Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("abi_version", abi);
    j.Key("compilers").BeginArray();
    for (const app::PluginInfo& c : compilers) {
      j.BeginObject().Field("vendor", c.vendor).Field("path", c.path).Field("abi_version", c.abi_version)
          .Field("plugin_version", c.version).Field("modes", absl::StrJoin(c.compile_modes, "+")).Key("soc_models");
      WriteStrings(j, c.soc_models);
      j.EndObject();
    }
    j.EndArray().Key("dispatchers").BeginArray();
    for (const app::PluginInfo& d : dispatchers) {
      j.BeginObject().Field("vendor", d.vendor).Field("path", d.path).Field("abi_version", d.abi_version)
          .Field("library_version", d.version).Key("capabilities");
      WriteStrings(j, d.capabilities);
      j.Key("soc_models");
      WriteStrings(j, d.soc_models);
      j.EndObject();
    }
    j.EndArray().Key("skipped").BeginArray();
    for (const app::SkippedPlugin& s : env->skipped_plugins())
      j.BeginObject().Field("path", s.path).Field("role", s.role).Field("reason", s.reason).EndObject();
    j.EndArray().Key("directories").BeginArray();
    for (const app::PluginDirectory& d : env->plugin_directories())
      j.BeginObject().Field("path", d.path).Field("origin", d.origin).Field("note", d.note).EndObject();
    j.EndArray().EndObject();
    std::cout << j.str() << "\n";
    return 0;
  }
  auto or_unknown = [](const std::string& v) { return v.empty() ? std::string("?") : TerminalSafe(v); };
  std::cout << "Tessera ABI " << abi << "\n";
  std::cout << "plugin directories:\n";
  for (const app::PluginDirectory& d : env->plugin_directories())
    std::cout << "  " << TerminalSafe(d.path) << "  (" << d.origin << (d.note.empty() ? "" : "; " + TerminalSafe(d.note)) << ")\n";
  std::cout << "compiler plugins:\n";
  for (const app::PluginInfo& c : compilers)
    std::cout << "  " << TerminalSafe(c.vendor) << "  v" << or_unknown(c.version) << "  ABI " << c.abi_version
              << "  modes " << absl::StrJoin(c.compile_modes, "+") << "  SoCs " << absl::StrJoin(c.soc_models, ",")
              << "\n    " << c.path << "\n";
  std::cout << "dispatch libraries:\n";
  for (const app::PluginInfo& d : dispatchers)
    std::cout << "  " << TerminalSafe(d.vendor) << "  v" << or_unknown(d.version) << "  ABI " << d.abi_version << "\n    "
              << d.path << "\n";
  const std::vector<app::SkippedPlugin> skipped = env->skipped_plugins();
  if (!skipped.empty()) {
    std::cout << "skipped:\n";
    for (const app::SkippedPlugin& s : skipped)
      std::cout << "  " << TerminalSafe(s.path) << " (" << s.role << "): " << TerminalSafe(s.reason, TerminalLayout::kText) << "\n";
  }
  return 0;
}

}  // namespace tessera::cli
