#include "framework/core/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

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

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes, mode_t mode) {
  const std::span<const uint8_t> one[] = {bytes};
  return WritePiecesAtomically(path, one, mode);
}

absl::Status WritePiecesAtomically(const std::string& path, std::span<const std::span<const uint8_t>> pieces,
                                   mode_t mode) {
  if (path.empty() || path.back() == '/')
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a file name"));
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

}  // namespace tessera
