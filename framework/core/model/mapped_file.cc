#include "framework/core/model/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/core/base/regular_file.h"

namespace tessera {
namespace {
constexpr size_t kPage = 4096;
}  // namespace

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path, size_t copy_below) {
  // Through RegularFile: a FIFO or a device named as a model would block
  // the open or never reach an end; it is refused, not read.
  absl::StatusOr<RegularFile> file = RegularFile::Open(path);
  if (!file.ok()) return file.status();
  const int fd = file->fd();
  const size_t size = static_cast<size_t>(file->size());
  if (size == 0) return absl::InvalidArgumentError(absl::StrCat("'", path, "' is empty"));
  if (size < copy_below) {
    // Page-aligned, as a mapping would be: bytecode executed in place may
    // rely on the alignment of its blob's offset within the file.
    const size_t rounded = (size + kPage - 1) / kPage * kPage;
    auto* copy = static_cast<uint8_t*>(std::aligned_alloc(kPage, rounded));
    if (copy == nullptr)
      return absl::ResourceExhaustedError(absl::StrCat("cannot load '", path, "': out of memory for ", size, " bytes"));
    if (absl::Status read = file->ReadExactly(copy, size, path); !read.ok()) {
      std::free(copy);
      return read;
    }
    return std::shared_ptr<const MappedFile>(new MappedFile(copy, size, /*copied=*/true));
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
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
