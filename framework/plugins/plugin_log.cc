#include "plugins/plugin_log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/environment.h"
#include "tessera/common.h"

namespace tessera {
namespace {

int32_t Threshold() {
  static const int32_t level = [] {
    const char* v = EnvironmentOverride("TESSERA_LOG_LEVEL");
    if (v == nullptr) return static_cast<int32_t>(TSR_LOG_WARNING);
    if (std::strcmp(v, "debug") == 0) return static_cast<int32_t>(TSR_LOG_DEBUG);
    if (std::strcmp(v, "info") == 0) return static_cast<int32_t>(TSR_LOG_INFO);
    if (std::strcmp(v, "error") == 0) return static_cast<int32_t>(TSR_LOG_ERROR);
    return static_cast<int32_t>(TSR_LOG_WARNING);
  }();
  return level;
}

const char* SeverityName(int32_t s) {
  switch (s) {
    case TSR_LOG_DEBUG: return "debug";
    case TSR_LOG_INFO: return "info";
    case TSR_LOG_WARNING: return "warning";
    default: return "error";
  }
}

}  // namespace

void PluginLogSink(void* user_data, int32_t severity, const char* message) {
  if (severity < Threshold() || message == nullptr) return;
  static std::mutex mu;  // whole lines, even from several plugin threads
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "tessera[%s] %s: %s\n", user_data ? static_cast<const char*>(user_data) : "?",
               SeverityName(severity), message);
}

}  // namespace tessera
