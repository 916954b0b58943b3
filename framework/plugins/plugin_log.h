// The log sink the host hands every plugin: lines go to stderr tagged with
// the vendor, filtered by TESSERA_LOG_LEVEL (debug|info|warning|error;
// default warning).
#ifndef TESSERA_FRAMEWORK_PLUGINS_PLUGIN_LOG_H_
#define TESSERA_FRAMEWORK_PLUGINS_PLUGIN_LOG_H_

#include <cstdint>

namespace tessera {

// tsr_log_fn; `user_data` is the vendor name (a NUL-terminated string that
// outlives the plugin instance). Thread-safe.
void PluginLogSink(void* user_data, int32_t severity, const char* message);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_PLUGINS_PLUGIN_LOG_H_
