// Loads a plugin library in a child process first. A library that takes
// the process down as it loads (an ELF constructor that aborts, a crash in
// its entry symbol) cannot be survived in-process: dlopen runs its code
// before the host can check anything. The probe finds it without risk:
// the child dlopens, negotiates and checks the tables as the host would,
// and reports; only libraries whose probe passed are then loaded for real.
// `tessera plugins --probe` (PluginSearchOptions::probe_in_child).
#ifndef TESSERA_FRAMEWORK_LOADER_PLUGIN_PROBE_H_
#define TESSERA_FRAMEWORK_LOADER_PLUGIN_PROBE_H_

#include <string>

#include "framework/loader/plugin_library.h"

namespace tessera {

struct ProbeResult {
  enum class Kind { kOk, kFailed, kCrashed, kTimedOut };
  Kind kind = Kind::kOk;
  std::string detail;  // why, when not kOk
};

// Forks; the child loads `path` as `role` for `vendor` (the full in-process
// checks) and reports through a pipe. A child that exceeds `timeout_ms` is
// killed. Call it before the process starts threads (fork copies only the
// calling thread).
ProbeResult ProbeInChildProcess(const std::string& path, PluginRole role, const std::string& vendor,
                                int timeout_ms = 10000);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_PLUGIN_PROBE_H_
