#include "framework/loader/plugin_log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "framework/core/base/environment.h"
#include "tessera/common.h"

namespace tessera {
namespace {

// TESSERA_LOG_LEVEL, or -1 when unset (or unreadable: setuid).
int32_t EnvironmentThreshold() {
  static const int32_t level = [] {
    const char* v = EnvironmentOverride("TESSERA_LOG_LEVEL");
    if (v == nullptr) return -1;
    if (std::strcmp(v, "debug") == 0) return static_cast<int32_t>(TSR_LOG_DEBUG);
    if (std::strcmp(v, "info") == 0) return static_cast<int32_t>(TSR_LOG_INFO);
    if (std::strcmp(v, "error") == 0) return static_cast<int32_t>(TSR_LOG_ERROR);
    return static_cast<int32_t>(TSR_LOG_WARNING);
  }();
  return level;
}

const char* SeverityName(int32_t s) {
  switch (s) {
    case TSR_LOG_DEBUG:
      return "debug";
    case TSR_LOG_INFO:
      return "info";
    case TSR_LOG_WARNING:
      return "warning";
    default:
      return "error";
  }
}

std::mutex& HandlerLock() {
  static std::mutex mu;
  return mu;
}
PluginLogHandler& Handler() {
  static PluginLogHandler handler;
  return handler;
}
int32_t& HandlerThreshold() {
  static int32_t threshold = -1;  // -1: warning
  return threshold;
}

}  // namespace

void SetPluginLogHandler(PluginLogHandler handler, int32_t min_severity) {
  std::lock_guard<std::mutex> lock(HandlerLock());
  Handler() = std::move(handler);
  HandlerThreshold() = min_severity;
}

void PluginLogSink(void* user_data, int32_t severity, const char* message) {
  if (message == nullptr) return;
  const char* vendor = user_data ? static_cast<const char*>(user_data) : "?";
  // One lock: whole lines, even from several plugin threads, and a handler
  // that is not replaced while it runs.
  std::lock_guard<std::mutex> lock(HandlerLock());
  // The operator's TESSERA_LOG_LEVEL wins over the app's level: it is how
  // a shipped app's plugin lines are seen without rebuilding it.
  const int32_t threshold = EnvironmentThreshold() >= 0 ? EnvironmentThreshold()
                            : HandlerThreshold() >= 0   ? HandlerThreshold()
                                                        : static_cast<int32_t>(TSR_LOG_WARNING);
  if (severity < threshold) return;
  if (Handler()) {
    Handler()(vendor, severity, message);
    return;
  }
  std::fprintf(stderr, "tessera[%s] %s: %s\n", vendor, SeverityName(severity), message);
}

}  // namespace tessera
