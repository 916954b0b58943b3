// A whole file's bytes, read-only (RAII). A file smaller than the copy
// threshold is read into memory; a larger one is memory-mapped, so its
// weights and bytecode are used in place, never copied.
//
// Why copy the small ones: a mapped file that shrinks while mapped (another
// process truncates it, a network file system drops it) raises SIGBUS on
// the next access to a lost page, which no error path can catch. A copy
// cannot be truncated under us. Most models are well below the threshold;
// for larger ones the mapping is unguarded, and the file must not be
// truncated while the model is loaded (docs/reliability.md, section 9).
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_MAPPED_FILE_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_MAPPED_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace tessera {

class MappedFile {
 public:
  // 64 MiB: the copy costs one read, about what faulting the pages in costs.
  static constexpr size_t kCopyBelowBytes = size_t{64} << 20;

  // Files smaller than `copy_below` bytes are copied, larger ones mapped.
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Open(const std::string& path,
                                                                size_t copy_below = kCopyBelowBytes);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  bool is_copy() const { return copied_; }

 private:
  MappedFile(const uint8_t* data, size_t size, bool copied) : data_(data), size_(size), copied_(copied) {}
  const uint8_t* data_;
  size_t size_;
  bool copied_;  // heap (free) or mapping (munmap)
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_MAPPED_FILE_H_
