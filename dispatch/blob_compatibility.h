// The dispatch library's verdict on a compiled blob (check_compatibility,
// ABI 1.2), asked once per blob when a model loads: OPTIMAL runs;
// PREFER_RECOMPILE runs and the app is told (one warning line, and
// `compatibility` in `tessera run --json`); UNSUPPORTED refuses the model
// with a message naming the vendor, the SoC and the reason. A library
// without the member (1.0/1.1, or 1.2+ leaving it NULL) gives no verdict:
// "unknown", and the model runs as before the check existed. The
// compatibility string handed over is the vendor's entry in the model's
// build stamp, or NULL when the model has none (compiled by an older
// tessera) or the plugin declared none.
#ifndef TESSERA_DISPATCH_BLOB_COMPATIBILITY_H_
#define TESSERA_DISPATCH_BLOB_COMPATIBILITY_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "dispatch/device_session.h"
#include "framework/core/graph/build_stamp.h"

namespace tessera {

enum class CompatibilityVerdict { kUnknown, kOptimal, kPreferRecompile, kUnsupported };

// "unknown", "optimal", "prefer_recompile", "unsupported".
const char* CompatibilityVerdictName(CompatibilityVerdict verdict);

struct BlobCompatibility {
  std::string vendor;
  std::string soc;           // the blob envelope's SoC model
  CompatibilityVerdict verdict = CompatibilityVerdict::kUnknown;
  bool stamped = false;      // a compatibility string from the build stamp was handed over
  std::string message;       // prefer_recompile: the warning line; unknown: why there is no verdict
};

// Asks `session`'s library about `blob` (whose envelope the host has
// verified). UNSUPPORTED and a failing call are errors (FAILED_PRECONDITION,
// or the library's status); every other verdict is returned. `run_soc` is
// the SoC this run targets ("" = none named), for the messages.
absl::StatusOr<BlobCompatibility> CheckBlobCompatibility(const DeviceSession& session,
                                                         std::span<const uint8_t> blob,
                                                         const BuildStamp* stamp, const std::string& run_soc);

// The host's own check, after the library's: a blob stamped for SoC
// `run_soc` against a description whose SHA-256 differs from
// `run_soc_sha256` (this run's SoC file) was compiled for other hardware
// under the same name, so an optimal or unknown verdict becomes
// prefer_recompile, with a message naming both digests. Vendor-neutral:
// the host owns the stamp; a library that can tell that its SoC tables
// changed still refuses what it cannot run. Nothing happens when the stamp
// or the run has no description.
void CheckStampedSocDescription(BlobCompatibility& verdict, const BuildStamp* stamp, const std::string& run_soc,
                                const std::string& run_soc_sha256);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_BLOB_COMPATIBILITY_H_
