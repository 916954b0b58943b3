// A read-only memory map of a whole file (RAII). Models load this way so
// weights and bytecode are used in place, never copied.
#ifndef TESSERA_FRAMEWORK_MODEL_MAPPED_FILE_H_
#define TESSERA_FRAMEWORK_MODEL_MAPPED_FILE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace tessera {

class MappedFile {
 public:
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_MODEL_MAPPED_FILE_H_
