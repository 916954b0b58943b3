#include "framework/core/model/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {
constexpr size_t kPage = 4096;
}  // namespace

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path, size_t copy_below) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a regular file"));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is empty"));
  }
  if (size < copy_below) {
    // Page-aligned, as a mapping would be: bytecode executed in place may
    // rely on the alignment of its blob's offset within the file.
    const size_t rounded = (size + kPage - 1) / kPage * kPage;
    auto* copy = static_cast<uint8_t*>(std::aligned_alloc(kPage, rounded));
    if (copy == nullptr) {
      ::close(fd);
      return absl::ResourceExhaustedError(absl::StrCat("cannot load '", path, "': out of memory for ", size, " bytes"));
    }
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd, copy + done, size - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = n == 0 ? "the file shrank while it was read" : std::strerror(errno);
        ::close(fd);
        std::free(copy);
        return absl::DataLossError(absl::StrCat("cannot read '", path, "': ", why));
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(new MappedFile(copy, size, /*copied=*/true));
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) return absl::InternalError(absl::StrCat("cannot map '", path, "': ", std::strerror(errno)));
  return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const uint8_t*>(data), size, /*copied=*/false));
}

MappedFile::~MappedFile() {
  if (copied_)
    std::free(const_cast<uint8_t*>(data_));
  else
    ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace tessera
