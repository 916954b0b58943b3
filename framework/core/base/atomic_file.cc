#include "framework/core/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "framework/core/base/caller_access.h"

namespace tessera {
namespace {

std::string Errno() { return std::strerror(errno); }

// The directory holding `path` ("." for a bare name).
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status WriteAll(int fd, std::span<const uint8_t> bytes, const std::string& temp) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::DataLossError(absl::StrCat("short write to '", temp, "': ", Errno()));
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// A node that is a stream, not storage: writing replaces nothing, and a
// rename over it would swap the node itself (/dev/null as a plain file).
bool IsStream(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

// The temporary + rename path: `path` is a regular file or missing.
absl::Status ReplaceFile(const std::string& path, std::span<const std::span<const uint8_t>> pieces, mode_t mode) {
  // Beside the target, so the rename never crosses file systems; mkstemp
  // opens with O_CREAT | O_EXCL (no existing file, no symlink is followed).
  // mkostemp is mkstemp plus O_CLOEXEC.
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    return absl::PermissionDeniedError(absl::StrCat("cannot create a temporary file beside '", path, "': ", Errno()));
  absl::Status s = absl::OkStatus();
  for (size_t i = 0; i < pieces.size() && s.ok(); ++i) s = WriteAll(fd, pieces[i], temp);
  if (s.ok() && ::fchmod(fd, mode) != 0)
    s = absl::PermissionDeniedError(absl::StrCat("cannot set the permissions of '", temp, "': ", Errno()));
  if (s.ok() && ::fsync(fd) != 0) s = absl::DataLossError(absl::StrCat("cannot sync '", temp, "': ", Errno()));
  if (::close(fd) != 0 && s.ok()) s = absl::DataLossError(absl::StrCat("cannot close '", temp, "': ", Errno()));
  if (s.ok() && std::rename(temp.c_str(), path.c_str()) != 0)
    s = absl::PermissionDeniedError(absl::StrCat("cannot rename '", temp, "' to '", path, "': ", Errno()));
  if (!s.ok()) {
    ::unlink(temp.c_str());
    return s;
  }
  // Make the rename itself durable. Best effort: some file systems refuse
  // to sync a directory, and the data is already safe.
  const int dir = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

// Writes `pieces` into the device, FIFO or socket at `path`, which must
// not be replaced: opened as it is, no temporary, no rename.
absl::Status WritePiecesInPlace(const std::string& path, std::span<const std::span<const uint8_t>> pieces) {
  // No O_CREAT (the node exists and must stay what it is), no O_TRUNC
  // (meaningless for a stream), O_NOCTTY (a terminal never becomes ours).
  // A FIFO blocks here until a reader opens it, as a shell redirect would.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return absl::PermissionDeniedError(absl::StrCat("cannot open '", path, "' for writing: ", Errno()));
  // The node could have been swapped between the stat and the open: write
  // only if what was opened is still a stream, never into a regular file
  // without truncating it.
  struct stat st {};
  absl::Status s = absl::OkStatus();
  if (::fstat(fd, &st) != 0 || !IsStream(st.st_mode))
    s = absl::FailedPreconditionError(absl::StrCat("'", path, "' changed while it was opened; nothing was written"));
  for (size_t i = 0; i < pieces.size() && s.ok(); ++i) s = WriteAll(fd, pieces[i], path);
  if (::close(fd) != 0 && s.ok()) s = absl::DataLossError(absl::StrCat("cannot close '", path, "': ", Errno()));
  return s;
}

// Where the atomic write goes for `path`: the path itself, or the file a
// trusted symlink names. Sets `in_place` when `path` names a stream.
absl::StatusOr<std::string> ChooseTarget(const std::string& path, bool& in_place) {
  in_place = false;
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return path;  // missing: created by the rename
  if (!S_ISLNK(link.st_mode)) {
    if (IsStream(link.st_mode)) in_place = true;
    if (S_ISBLK(link.st_mode))
      return absl::FailedPreconditionError(absl::StrCat("'", path, "' is a block device; refusing to write to it"));
    return path;  // a regular file (or a directory, which the rename refuses)
  }
  struct stat target {};
  // A dangling link: the link itself is replaced, never a file created
  // where it points (a planted link would choose that place).
  if (::stat(path.c_str(), &target) != 0) return path;
  if (IsStream(target.st_mode)) {
    in_place = true;  // /dev/stdout -> /proc/self/fd/1 -> a pipe or a terminal
    return path;
  }
  if (!S_ISREG(target.st_mode))
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' is a symlink to something that is neither a file nor a stream; refusing"));
  // A link made by someone else (neither us nor root) could have been
  // planted to aim the write at one of our files: replace the link itself
  // as a plain path would be (a sticky directory such as /tmp refuses it).
  if (link.st_uid != ::geteuid() && link.st_uid != 0) return path;
  // Our own or root's link (/dev/stdout redirected to a file, a "latest"
  // link): the file it names is replaced atomically and the link stays.
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return absl::NotFoundError(absl::StrCat("cannot resolve '", path, "': ", Errno()));
  std::string out = resolved;
  std::free(resolved);
  return out;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes, mode_t mode) {
  const std::span<const uint8_t> one[] = {bytes};
  return WritePiecesAtomically(path, one, mode);
}

absl::Status WritePiecesAtomically(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                                   mode_t mode) {
  if (path.empty() || path.back() == '/')
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a file name"));
  // Under setuid: only where the caller could write themselves.
  if (absl::Status caller = CheckCallerMayAccess(path, CallerAccess::kWrite); !caller.ok()) return caller;
  bool in_place = false;
  absl::StatusOr<std::string> target = ChooseTarget(path, in_place);
  if (!target.ok()) return target.status();
  if (in_place) return WritePiecesInPlace(path, pieces);
  return ReplaceFile(*target, pieces, mode);
}

}  // namespace tessera
