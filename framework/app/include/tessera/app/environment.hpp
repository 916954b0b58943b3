// Environment: where plugins and SoC files are found, and what was found there.
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_ENVIRONMENT_HPP_
#define TESSERA_APP_ENVIRONMENT_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/app/status.hpp"
#include "tessera/common.h"

namespace tessera::app {

// ---- Environment ----------------------------------------------------------

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

struct EnvironmentOptions {
  // Searched in order, before the bundled directory. Absolute paths.
  std::vector<std::string> plugin_directories;
  // The SDK's own plugins; "" = <directory of the running executable>/../lib.
  std::string bundled_plugin_directory;
  // Where SoC description files (NAME.soc) are found; "" = TESSERA_SOC_PATH
  // (an absolute path), else <exe>/../share/tessera/socs.
  std::string soc_directory;
  // TESSERA_PLUGIN_PATH, TESSERA_PLUGIN_FILTER and TESSERA_SOC_PATH are
  // honoured unless false, and never in a process with elevated privileges
  // (setuid/setgid, file capabilities).
  bool read_environment = true;
  // Create fails (NOT_FOUND, naming every folder searched) when the search
  // finds no plugin library; false defers that to the first Compile (tools
  // that list what was found, such as `tessera plugins`).
  bool require_plugins = true;
  // Plugin log lines at or above `log_level` go to `log_sink` (vendor,
  // level, text), or to stderr when it is empty. Process-wide: the newest
  // Environment's sink receives every plugin's lines.
  LogLevel log_level = LogLevel::kWarning;
  std::function<void(const std::string& vendor, LogLevel level, const std::string& text)> log_sink;
  // Load each library in a child process first (`tessera plugins --probe`),
  // so one that crashes as it loads is skipped with a reason instead of
  // taking the process down. Costs a fork per library.
  bool probe_in_child = false;
};

struct PluginInfo {
  std::string vendor;
  std::string role;  // "compiler" or "dispatch"
  std::string path;
  std::string short_name;                  // e.g. "npu"; "" when the plugin declares none
  int priority = 0;                        // tsr_compiler_plugin_info.default_priority (compilers)
  std::string abi_version;                 // negotiated, e.g. "1.2"
  std::string version;                     // the plugin's own (plugin_version / library_version)
  std::vector<std::string> compile_modes;  // compilers: "aot", "jit"
  std::vector<std::string> capabilities;   // dispatch: "bytecode", "jit_handle"
  std::vector<std::string> soc_models;     // declared; empty = any
};

struct SkippedPlugin {
  std::string path;
  std::string role;  // "compiler", "dispatch" or "" when not known
  std::string reason;
};

// A directory the plugin search looked in, and why (origin: "--plugin-dir",
// "TESSERA_PLUGIN_PATH", "bundled", ...; note: what was found or ignored).
struct PluginDirectory {
  std::string path, origin, note;
};

class Environment {
 public:
  static Result<Environment> Create(const EnvironmentOptions& options);

  std::vector<PluginInfo> plugins() const;
  std::vector<SkippedPlugin> skipped_plugins() const;
  std::vector<PluginDirectory> plugin_directories() const;
  // The SoC names found in the SoC directory.
  std::vector<std::string> soc_names() const;

  // The implementation behind the handle (an incomplete type to apps).
  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }
  explicit Environment(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_ENVIRONMENT_HPP_
