#include "framework/core/base/dtype.h"

#include <array>

#include "support/math/checked_math.h"

#include "support/ops/op_names.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// since ABI 1.4

constexpr std::array<const char*, TSR_ATTR_KEY_COUNT_V1_4> kAttrNames = {"unknown",
                                                                         "axis",
                                                                         "axes",
                                                                         "keep_dims",
                                                                         "perm",
                                                                         "shape",
                                                                         "starts",
                                                                         "ends",
                                                                         "steps",
                                                                         "pads",
                                                                         "pad_mode",
                                                                         "pad_value",
                                                                         "strides",
                                                                         "dilations",
                                                                         "kernel_shape",
                                                                         "groups",
                                                                         "clip_min",
                                                                         "clip_max",
                                                                         "activation",
                                                                         "epsilon",
                                                                         "ceil_mode",
                                                                         "count_include_pad",
                                                                         "noop_with_empty_axes",  // since ABI 1.2
                                                                         "resize_mode",
                                                                         "coord_transform",
                                                                         "nearest_mode",
                                                                         "cubic_coeff_a",
                                                                         "exclude_outside",
                                                                         "extrapolation_value",
                                                                         "scales",
                                                                         "roi",
                                                                         "output_padding",  // since ABI 1.3
                                                                         "select_last_index",
                                                                         "k",
                                                                         "largest",
                                                                         "sorted",
                                                                         "exclusive",
                                                                         "reverse"};  // since ABI 1.4

constexpr std::array<const char*, 8> kDTypeNames = {"unknown", "f32", "f16", "i8", "u8", "i32", "i64", "bool"};

}  // namespace

size_t DTypeSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
    case TSR_DTYPE_I32:
      return 4;
    case TSR_DTYPE_F16:
      return 2;
    case TSR_DTYPE_I8:
    case TSR_DTYPE_U8:
    case TSR_DTYPE_BOOL:
      return 1;
    case TSR_DTYPE_I64:
      return 8;
    default:
      return 0;
  }
}

bool IsValidDType(int32_t dtype) { return DTypeSize(dtype) != 0; }

const char* DTypeName(int32_t dtype) { return IsValidDType(dtype) ? kDTypeNames[dtype] : kDTypeNames[0]; }

std::optional<int32_t> DTypeFromName(std::string_view name) {
  for (size_t i = 1; i < kDTypeNames.size(); ++i)
    if (kDTypeNames[i] == name) return static_cast<int32_t>(i);
  return std::nullopt;
}

std::optional<int64_t> ShapeElementCount(std::span<const int64_t> shape) { return checked::ElementCount(shape); }

const char* OpTypeName(int32_t op_type) {
  const char* name = op_type > 0 ? OpTypeNameOrNull(op_type) : nullptr;
  return name != nullptr ? name : kOpTypeNames[TSR_OP_UNKNOWN];
}

std::optional<int32_t> OpTypeFromName(std::string_view name) {
  const int32_t type = OpTypeNamed(name);
  if (type < 0) return std::nullopt;
  return type;
}

const char* AttrKeyName(int32_t key) {
  if (key <= 0 || key >= TSR_ATTR_KEY_COUNT_V1_4) return kAttrNames[0];
  return kAttrNames[key];
}

}  // namespace tessera
