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

// Writes `bytes` to `path`, respecting what is at the path:
//  * a regular file or nothing: atomically. A fresh temporary in path's
//    directory (mkstemp: created with O_EXCL, so it never opens an existing
//    file or follows a symlink planted at its name; the name is
//    unpredictable); every byte written, fsync, permissions set to `mode`
//    (fchmod); renamed over `path`, then the directory fsynced, so a crash
//    leaves the old file or the new one, whole.
//  * a character device, FIFO or socket (after following symlinks:
//    /dev/null, /dev/stdout, a named pipe): written in place, opened without
//    O_CREAT or O_TRUNC and never renamed over, so the node stays what it
//    is; `mode` is not applied. A socket cannot be opened: an error, the
//    socket left alone. A block device is refused.
//  * a symlink to a regular file, the link owned by this user or by root:
//    the file it names (realpath) is replaced atomically and the link stays
//    a link. A link owned by anyone else, or a dangling one, is replaced
//    itself, never followed: it may have been planted to aim the write at
//    one of our files.
// On failure the temporary is removed and `path` is untouched.
absl::Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes, mode_t mode = 0644);
// The same, the file being `pieces` one after the other (written in turn:
// no buffer of the whole file is made).
absl::Status WritePiecesAtomically(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                                   mode_t mode = 0644);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_ATOMIC_FILE_H_
