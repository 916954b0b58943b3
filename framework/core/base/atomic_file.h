// The one way the framework writes an output file (models, .pb tensors):
// the whole file or nothing, and never through a name an attacker chose.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_ATOMIC_FILE_H_
#define TESSERA_FRAMEWORK_CORE_BASE_ATOMIC_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"

namespace tessera {

// Writes `bytes` to `path` atomically:
//  * a fresh temporary in path's directory (mkstemp: created with O_EXCL,
//    so it never opens an existing file or follows a symlink planted at
//    its name; the name is unpredictable);
//  * every byte written, fsync, permissions set to `mode` (fchmod);
//  * renamed over `path` (a symlink at `path` is replaced, never followed),
//    then the directory fsynced, so a crash leaves the old file or the new
//    one, whole.
// On failure the temporary is removed and `path` is untouched.
absl::Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes, mode_t mode = 0644);
// The same, the file being `pieces` one after the other (written in turn:
// no buffer of the whole file is made).
absl::Status WritePiecesAtomically(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                                   mode_t mode = 0644);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_ATOMIC_FILE_H_
