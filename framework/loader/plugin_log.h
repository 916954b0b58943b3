// The log sink the host hands every plugin: lines go to stderr tagged with
// the vendor, filtered by TESSERA_LOG_LEVEL (debug|info|warning|error;
// default warning).
#ifndef TESSERA_FRAMEWORK_LOADER_PLUGIN_LOG_H_
#define TESSERA_FRAMEWORK_LOADER_PLUGIN_LOG_H_

#include <cstdint>
#include <functional>

namespace tessera {

// tsr_log_fn; `user_data` is the vendor name (a NUL-terminated string that
// outlives the plugin instance). Thread-safe.
void PluginLogSink(void* user_data, int32_t severity, const char* message);

// Where PluginLogSink sends lines instead of stderr (an app's logger), and
// the lowest severity it passes (tsr_log_severity; -1 = warning). A set
// TESSERA_LOG_LEVEL overrides `min_severity`. Process-wide; an empty handler restores stderr. The handler is
// called under a lock, one line at a time, and must not log back into it.
using PluginLogHandler = std::function<void(const char* vendor, int32_t severity, const char* message)>;
void SetPluginLogHandler(PluginLogHandler handler, int32_t min_severity);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_PLUGIN_LOG_H_
