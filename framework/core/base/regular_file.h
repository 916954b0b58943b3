// Opening a file that must be a regular file: a model, a SoC description,
// a compile-cache entry, a plugin library.
//
// Why: open() of a FIFO blocks until a writer appears, and reading a FIFO,
// a terminal or a character device such as /dev/zero never reaches an end,
// so a path naming one would hang the process or read until memory runs
// out. Every such open goes through here: it opens without blocking, looks
// at what the descriptor is (fstat, so the answer is about the file opened,
// not about whatever the path names a moment later), and refuses anything
// that is not a regular file, naming the path and what it is. Reads are
// bounded by the file's size and by a byte budget the caller gives.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_REGULAR_FILE_H_
#define TESSERA_FRAMEWORK_CORE_BASE_REGULAR_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera {

// An open, read-only descriptor of a regular file and its size when it was
// opened (RAII: the descriptor closes with the object).
class RegularFile {
 public:
  // NotFound when the path cannot be opened, InvalidArgument when it names
  // something other than a regular file. Never blocks.
  static absl::StatusOr<RegularFile> Open(const std::string& path);

  RegularFile(RegularFile&& other) noexcept : fd_(other.fd_), size_(other.size_) { other.fd_ = -1; }
  RegularFile& operator=(RegularFile&& other) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }

  // The first `count` bytes into `dst` (count <= size()). A file that
  // shrank meanwhile is DataLoss, not a short answer.
  absl::Status ReadExactly(void* dst, size_t count, const std::string& path) const;

 private:
  RegularFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  int fd_;
  uint64_t size_;
};

// What a file of this mode is, for messages: "a FIFO", "a directory", ...
std::string FileKindName(mode_t mode);

// The whole of a regular file, refused (ResourceExhausted) when it is
// larger than `max_bytes`, before anything is read.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes);

// Whether `path` names a regular file (following symlinks), without
// opening it: for callers that cannot take a descriptor, like dlopen. The
// answer can be stale by the time the caller opens the path.
absl::Status CheckIsRegularFile(const std::string& path);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_REGULAR_FILE_H_
