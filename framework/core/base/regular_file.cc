#include "framework/core/base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/core/base/caller_access.h"

namespace tessera {

std::string FileKindName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

namespace {
absl::Status NotRegular(const std::string& path, mode_t mode) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", path, "' is ", FileKindName(mode), ", not a regular file; only regular files are read"));
}
}  // namespace

absl::StatusOr<RegularFile> RegularFile::Open(const std::string& path) {
  // Under setuid: only what the caller could read themselves.
  if (absl::Status caller = CheckCallerMayAccess(path, CallerAccess::kRead); !caller.ok()) return caller;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, before fstat could say what it is. O_NOCTTY: a terminal named
  // here must not become the controlling terminal.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot stat '", path, "': ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotRegular(path, st.st_mode);
  }
  // A regular file never blocks, but the flag would be inherited by a
  // mapping's users and by anything the descriptor is handed to: clear it.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return RegularFile(fd, static_cast<uint64_t>(st.st_size));
}

RegularFile& RegularFile::operator=(RegularFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status RegularFile::ReadExactly(void* dst, size_t count, const std::string& path) const {
  auto* out = static_cast<char*>(dst);
  size_t done = 0;
  while (done < count) {
    const ssize_t n = ::pread(fd_, out + done, count - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return absl::DataLossError(absl::StrCat(
          "cannot read '", path, "': ", n == 0 ? "the file shrank while it was read" : std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes) {
  absl::StatusOr<RegularFile> file = RegularFile::Open(path);
  if (!file.ok()) return file.status();
  if (file->size() > max_bytes)
    return absl::ResourceExhaustedError(
        absl::StrCat("'", path, "' is ", file->size(), " bytes; at most ", max_bytes, " are read from such a file"));
  std::string text(static_cast<size_t>(file->size()), '\0');
  // Bounded by the size fstat gave: a file that grows meanwhile is read
  // as it was.
  if (absl::Status read = file->ReadExactly(text.data(), text.size(), path); !read.ok()) return read;
  return text;
}

absl::Status CheckIsRegularFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return absl::NotFoundError(absl::StrCat("cannot stat '", path, "': ", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  return absl::OkStatus();
}

}  // namespace tessera
