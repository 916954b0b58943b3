// Element-type facts used across the framework.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_DTYPE_H_
#define TESSERA_FRAMEWORK_CORE_BASE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tessera {

size_t DTypeSize(int32_t dtype);       // 0 for unknown
const char* DTypeName(int32_t dtype);  // "f32", ..., "unknown"
std::optional<int32_t> DTypeFromName(std::string_view name);
bool IsValidDType(int32_t dtype);
// Product of dims; nullopt on a negative dim or overflow.
std::optional<int64_t> ShapeElementCount(std::span<const int64_t> shape);

const char* OpTypeName(int32_t op_type);  // "ADD", ..., "UNKNOWN"
std::optional<int32_t> OpTypeFromName(std::string_view name);
const char* AttrKeyName(int32_t key);  // "axis", ...

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_DTYPE_H_
