#include "plugins/kit/plugin_status.h"

#include <utility>

namespace tessera::kit {
namespace {
thread_local std::string last_error;
}  // namespace

const char* LastErrorMessage() { return last_error.c_str(); }

tsr_status ToTsrStatus(absl::StatusCode code) {
  return static_cast<tsr_status>(code);
}

tsr_status ReportStatus(const absl::Status& status) {
  if (status.ok()) {
    last_error.clear();
    return TSR_OK;
  }
  last_error = std::string(status.message());
  return ToTsrStatus(status.code());
}

tsr_status ReportError(tsr_status code, std::string message) {
  last_error = std::move(message);
  return code;
}

tsr_status NegotiateVersion(tsr_version host, tsr_version own, tsr_version floor, tsr_version* out) {
  if (out == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "out_version is NULL");
  // The Vulkan loader's rule: answer the highest version spoken that is not
  // above the host's, whatever the majors; the host judges the answer.
  if (tsr_version_compare(host, floor) < 0) {
    return ReportError(TSR_VERSION_UNSUPPORTED,
                       "no common ABI version: host offers " + std::to_string(host.major) + "." +
                           std::to_string(host.minor) + ", plugin speaks " + std::to_string(floor.major) + "." +
                           std::to_string(floor.minor) + " to " + std::to_string(own.major) + "." +
                           std::to_string(own.minor));
  }
  *out = tsr_version_compare(host, own) < 0 ? host : own;
  return TSR_OK;
}

}  // namespace tessera::kit
