// Error plumbing for plugins: C++ errors (absl::Status) must never cross the
// .so boundary, so each table keeps the text of the last failure per thread
// and returns only the numeric tsr_status.
#ifndef TESSERA_PLUGINS_KIT_PLUGIN_STATUS_H_
#define TESSERA_PLUGINS_KIT_PLUGIN_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "tessera/common.h"

namespace tessera::kit {

// Text of the last failure on this thread in this library; never NULL.
const char* LastErrorMessage();

// Records `status` as the thread's last error (or clears it when OK) and
// returns the matching tsr_status code. (The ABI leaves the text after a
// success unspecified; the kit clears it, which is one allowed outcome.)
tsr_status ReportStatus(const absl::Status& status);

// Records a failure with an explicit Tessera code (e.g. TSR_BYTECODE_*).
tsr_status ReportError(tsr_status code, std::string message);

// absl::StatusCode and tsr_status share values 0..16.
tsr_status ToTsrStatus(absl::StatusCode code);

// Version negotiation shared by every entry symbol (the Vulkan loader's
// rule): answers with min(host, own), whatever the majors, when the host is
// not below `floor`, the oldest version this plugin speaks; otherwise
// TSR_VERSION_UNSUPPORTED and *out is untouched. A plugin built from this
// kit speaks every version from its floor up to its own, so min(host, own)
// is the highest it speaks at or below the host's.
tsr_status NegotiateVersion(tsr_version host, tsr_version own,
                            tsr_version floor, tsr_version* out);

// Runs `body` (returning absl::Status) and converts any exception into an
// internal error, so nothing is thrown across the C boundary.
template <typename Body>
tsr_status Guarded(Body&& body) {
  try {
    return ReportStatus(body());
  } catch (const std::exception& e) {
    return ReportError(TSR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return ReportError(TSR_INTERNAL, "internal error: unknown exception");
  }
}

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_PLUGIN_STATUS_H_
