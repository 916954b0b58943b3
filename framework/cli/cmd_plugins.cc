// `tessera plugins [--json] [--probe]`: what was loaded, from where, and
// what was skipped and why. --probe loads each library in a child process
// first, so one that crashes as it loads is reported instead of fatal.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/json_writer.h"
#include "base/terminal_text.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"

namespace tessera::cli {
namespace {

std::string Modes(uint32_t modes) {
  std::vector<std::string> m;
  if (modes & TSR_COMPILE_MODE_AOT) m.push_back("aot");
  if (modes & TSR_COMPILE_MODE_JIT) m.push_back("jit");
  return absl::StrJoin(m, "+");
}

std::vector<std::string> Socs(const char* const* list, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; list != nullptr && i < n; ++i) out.push_back(list[i] ? list[i] : "");
  return out;
}

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
  const PluginRegistry registry = LoadPlugins(*args);
  if (args->Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("abi_version", absl::StrCat(TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR));
    j.Key("compilers").BeginArray();
    for (const CompilerPluginLibrary& c : registry.compilers()) {
      j.BeginObject().Field("vendor", c.vendor).Field("path", c.path)
          .Field("abi_version", absl::StrCat(c.version.major, ".", c.version.minor))
          .Field("plugin_version", c.info->plugin_version ? c.info->plugin_version : "")
          .Field("modes", Modes(c.info->compile_modes)).Key("soc_models");
      WriteStrings(j, Socs(c.info->soc_models, c.info->soc_model_count));
      j.EndObject();
    }
    j.EndArray().Key("dispatchers").BeginArray();
    for (const DispatchLibrary& d : registry.dispatchers()) {
      std::vector<std::string> caps;
      if (d.info->capabilities & TSR_DISPATCH_CAP_BYTECODE) caps.push_back("bytecode");
      if (d.info->capabilities & TSR_DISPATCH_CAP_JIT_HANDLE) caps.push_back("jit_handle");
      j.BeginObject().Field("vendor", d.vendor).Field("path", d.path)
          .Field("abi_version", absl::StrCat(d.version.major, ".", d.version.minor))
          .Field("library_version", d.info->library_version ? d.info->library_version : "").Key("capabilities");
      WriteStrings(j, caps);
      j.Key("soc_models");
      WriteStrings(j, Socs(d.info->soc_models, d.info->soc_model_count));
      j.EndObject();
    }
    j.EndArray().Key("skipped").BeginArray();
    for (const SkippedLibrary& s : registry.skipped())
      j.BeginObject().Field("path", s.path).Field("role", PluginRoleName(s.role)).Field("reason", s.reason).EndObject();
    j.EndArray().Key("directories").BeginArray();
    for (const SearchedDirectory& d : registry.directories())
      j.BeginObject().Field("path", d.path).Field("origin", d.origin).Field("note", d.note).EndObject();
    j.EndArray().EndObject();
    std::cout << j.str() << "\n";
    return 0;
  }
  std::cout << "Tessera ABI " << TSR_ABI_VERSION_MAJOR << "." << TSR_ABI_VERSION_MINOR << "\n";
  std::cout << "plugin directories:\n";
  for (const SearchedDirectory& d : registry.directories())
    std::cout << "  " << TerminalSafe(d.path) << "  (" << d.origin << (d.note.empty() ? "" : "; " + TerminalSafe(d.note)) << ")\n";
  std::cout << "compiler plugins:\n";
  for (const CompilerPluginLibrary& c : registry.compilers())
    std::cout << "  " << TerminalSafe(c.vendor) << "  v" << TerminalSafe(c.info->plugin_version ? c.info->plugin_version : "?") << "  ABI "
              << c.version.major << "." << c.version.minor << "  modes " << Modes(c.info->compile_modes) << "  SoCs "
              << absl::StrJoin(Socs(c.info->soc_models, c.info->soc_model_count), ",") << "\n    " << c.path << "\n";
  std::cout << "dispatch libraries:\n";
  for (const DispatchLibrary& d : registry.dispatchers())
    std::cout << "  " << TerminalSafe(d.vendor) << "  v" << TerminalSafe(d.info->library_version ? d.info->library_version : "?") << "  ABI "
              << d.version.major << "." << d.version.minor << "\n    " << d.path << "\n";
  if (!registry.skipped().empty()) {
    std::cout << "skipped:\n";
    for (const SkippedLibrary& s : registry.skipped())
      std::cout << "  " << TerminalSafe(s.path) << " (" << PluginRoleName(s.role) << "): " << TerminalSafe(s.reason, TerminalLayout::kText) << "\n";
  }
  return 0;
}

}  // namespace tessera::cli
