// Environment: where plugins and SoC files are, and the plugin registries
// made from them on first use.
#include <filesystem>

#include "framework/app/api_terms.h"
#include "framework/app/app_internal.h"
#include "framework/core/base/environment.h"
#include "framework/core/base/install_layout.h"
#include "framework/loader/plugin_log.h"

namespace tessera::app {
namespace fs = std::filesystem;

Status FromAbsl(const absl::Status& status) {
  if (status.ok()) return Status();
  // absl::StatusCode and tsr_status share their values (common.h).
  return Status(static_cast<tsr_status>(status.code()), ErrorTextForApp(std::string(status.message())));
}

namespace {

// EnvironmentOptions::soc_directory, else TESSERA_SOC_PATH (read as the
// plugin path is: never by a process with elevated privileges), else the
// bundled folder.
Result<std::string> SocDirectoryOf(const EnvironmentOptions& options) {
  if (!options.soc_directory.empty()) return options.soc_directory;
  const char* from_environment = options.read_environment ? EnvironmentOverride("TESSERA_SOC_PATH") : nullptr;
  if (from_environment == nullptr || *from_environment == '\0') return BundledSocDirectory();
  if (!fs::path(from_environment).is_absolute())
    return Status(TSR_INVALID_ARGUMENT,
                  std::string("TESSERA_SOC_PATH '") + from_environment + "' is relative; name an absolute path");
  return std::string(from_environment);
}

// NOT_FOUND naming every folder searched (and why one was not) when the
// search found no plugin library at all.
Status CheckPluginsFound(const PluginRegistry& registry) {
  if (!registry.dispatchers().empty() || !registry.compilers().empty()) return Status();
  std::string searched;
  for (const SearchedDirectory& d : registry.directories()) {
    searched += "\n  " + d.path + " (" + d.origin + (d.note.empty() ? "" : ": " + d.note) + ")";
  }
  for (const SkippedLibrary& s : registry.skipped()) searched += "\n  skipped " + s.path + ": " + s.reason;
  return Status(TSR_NOT_FOUND,
                "Environment::Create: no plugin library (libtessera_dispatch_*.so, libtessera_compiler_*.so) "
                "was found; searched:" +
                    searched +
                    "\nname the folder in EnvironmentOptions::plugin_directories or TESSERA_PLUGIN_PATH, or set "
                    "EnvironmentOptions::require_plugins = false");
}

}  // namespace

Result<Environment> Environment::Create(const EnvironmentOptions& options) {
  for (const std::string& d : options.plugin_directories)
    if (!fs::path(d).is_absolute())
      return Status(TSR_INVALID_ARGUMENT, "plugin directory '" + d + "' is relative; name an absolute path");
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  if (impl->options.bundled_plugin_directory.empty()) impl->options.bundled_plugin_directory = BundledPluginDirectory();
  Result<std::string> soc_directory = SocDirectoryOf(options);
  if (!soc_directory.ok()) return soc_directory.status();
  impl->soc_directory = *std::move(soc_directory);
  if (options.log_sink) {
    auto sink = options.log_sink;
    SetPluginLogHandler(
        [sink](const char* vendor, int32_t severity, const char* text) {
          sink(vendor, static_cast<LogLevel>(severity < 0 ? 0 : severity > 3 ? 3 : severity), text);
        },
        static_cast<int32_t>(options.log_level));
  } else {
    SetPluginLogHandler(nullptr, static_cast<int32_t>(options.log_level));
  }
  // The dispatch libraries only (a runtime-only app opens no compiler);
  // the registry is kept for the first run.
  if (options.require_plugins)
    if (Status found = CheckPluginsFound(impl->Registry(/*with_compilers=*/false)); !found.ok()) return found;
  return Environment(std::move(impl));
}

const PluginRegistry& Environment::Impl::Registry(bool with_compilers) const {
  std::lock_guard<std::mutex> guard(lock);
  std::unique_ptr<PluginRegistry>& slot = with_compilers ? full_registry : runtime_registry;
  if (slot == nullptr) {
    PluginSearchOptions search;
    search.directories = options.plugin_directories;
    search.bundled_directory = options.bundled_plugin_directory;
    search.read_environment = options.read_environment;
    search.load_compilers = with_compilers;
    search.probe_in_child = options.probe_in_child;
    slot = std::make_unique<PluginRegistry>(PluginRegistry::Discover(search));
  }
  return *slot;
}

std::vector<PluginInfo> Environment::plugins() const {
  const PluginRegistry& r = impl_->Registry(/*with_compilers=*/true);
  auto version = [](tsr_version v) { return std::to_string(v.major) + "." + std::to_string(v.minor); };
  std::vector<PluginInfo> out;
  auto strings = [](const char* const* list, size_t n) {
    std::vector<std::string> v;
    for (size_t i = 0; list != nullptr && i < n; ++i) v.push_back(list[i] != nullptr ? list[i] : "");
    return v;
  };
  for (const CompilerPluginLibrary& c : r.compilers()) {
    PluginInfo p{c.vendor, "compiler", c.path, "", 0, version(c.version)};
    if (const char* s = CompilerShortName(c)) p.short_name = s;
    p.priority = CompilerPriority(c);
    p.version = c.info->plugin_version != nullptr ? c.info->plugin_version : "";
    if (c.info->compile_modes & TSR_COMPILE_MODE_AOT) p.compile_modes.push_back("aot");
    if (c.info->compile_modes & TSR_COMPILE_MODE_JIT) p.compile_modes.push_back("jit");
    p.soc_models = strings(c.info->soc_models, c.info->soc_model_count);
    out.push_back(std::move(p));
  }
  for (const DispatchLibrary& d : r.dispatchers()) {
    PluginInfo p{d.vendor, "dispatch", d.path, "", 0, version(d.version)};
    p.version = d.info->library_version != nullptr ? d.info->library_version : "";
    if (d.info->capabilities & TSR_DISPATCH_CAP_BYTECODE) p.capabilities.push_back("bytecode");
    if (d.info->capabilities & TSR_DISPATCH_CAP_JIT_HANDLE) p.capabilities.push_back("jit_handle");
    p.soc_models = strings(d.info->soc_models, d.info->soc_model_count);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<SkippedPlugin> Environment::skipped_plugins() const {
  std::vector<SkippedPlugin> out;
  for (const SkippedLibrary& s : impl_->Registry(/*with_compilers=*/true).skipped())
    out.push_back({s.path, PluginRoleName(s.role), s.reason});
  return out;
}

std::vector<PluginDirectory> Environment::plugin_directories() const {
  std::vector<PluginDirectory> out;
  for (const SearchedDirectory& d : impl_->Registry(/*with_compilers=*/true).directories())
    out.push_back({d.path, d.origin, d.note});
  return out;
}

std::vector<std::string> Environment::soc_names() const { return SocNamesIn(impl_->soc_directory); }

}  // namespace tessera::app
