// The .tsr format version, kept apart from the library version.
//
// Changelog:
//   1  First format: tensors, constant buffers in a data segment, ops with
//      typed attributes, DISPATCH ops referencing AOT bytecode blobs.
#ifndef TESSERA_FRAMEWORK_CORE_SCHEMA_MODEL_FORMAT_VERSION_H_
#define TESSERA_FRAMEWORK_CORE_SCHEMA_MODEL_FORMAT_VERSION_H_

#include <cstdint>

namespace tessera {
inline constexpr uint32_t kModelFormatVersion = 1;
inline constexpr uint32_t kOldestReadableModelFormatVersion = 1;
}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_SCHEMA_MODEL_FORMAT_VERSION_H_
