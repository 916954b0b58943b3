#include "base/dtype.h"

#include <array>

#include "checked_math.h"

#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

constexpr std::array<const char*, TSR_OP_COUNT_V1_4> kOpNames = {
    "UNKNOWN", "ADD", "SUB", "MUL", "DIV", "POW", "NEG", "ABS", "SQRT",
    "RSQRT", "EXP", "LOG", "SIN", "COS", "TANH", "SIGMOID", "RELU", "CLIP",
    "ERF", "MAXIMUM", "MINIMUM", "EQUAL", "LESS", "GREATER", "SELECT",
    "REDUCE_MEAN", "REDUCE_SUM", "REDUCE_MAX", "MATMUL", "FULLY_CONNECTED",
    "CONV_2D", "MAX_POOL_2D", "AVG_POOL_2D", "GLOBAL_AVG_POOL", "SOFTMAX",
    "LAYER_NORM", "RESHAPE", "TRANSPOSE", "SLICE", "CONCAT", "GATHER",
    "SQUEEZE", "UNSQUEEZE", "PAD", "CAST", "QUANTIZE", "DEQUANTIZE",
    "DISPATCH",
    "RESIZE", "CONV_TRANSPOSE_2D",               // since ABI 1.3
    "ARG_MAX", "ARG_MIN", "TOP_K", "CUM_SUM"};  // since ABI 1.4

constexpr std::array<const char*, TSR_ATTR_KEY_COUNT_V1_4> kAttrNames = {
    "unknown", "axis", "axes", "keep_dims", "perm", "shape", "starts", "ends",
    "steps", "pads", "pad_mode", "pad_value", "strides", "dilations",
    "kernel_shape", "groups", "clip_min", "clip_max", "activation", "epsilon",
    "ceil_mode", "count_include_pad",
    "noop_with_empty_axes",  // since ABI 1.2
    "resize_mode", "coord_transform", "nearest_mode", "cubic_coeff_a",
    "exclude_outside", "extrapolation_value", "scales", "roi",
    "output_padding",  // since ABI 1.3
    "select_last_index", "k", "largest", "sorted", "exclusive",
    "reverse"};  // since ABI 1.4

constexpr std::array<const char*, 8> kDTypeNames = {
    "unknown", "f32", "f16", "i8", "u8", "i32", "i64", "bool"};

}  // namespace

size_t DTypeSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: case TSR_DTYPE_I32: return 4;
    case TSR_DTYPE_F16: return 2;
    case TSR_DTYPE_I8: case TSR_DTYPE_U8: case TSR_DTYPE_BOOL: return 1;
    case TSR_DTYPE_I64: return 8;
    default: return 0;
  }
}

bool IsValidDType(int32_t dtype) { return DTypeSize(dtype) != 0; }

const char* DTypeName(int32_t dtype) {
  return IsValidDType(dtype) ? kDTypeNames[dtype] : kDTypeNames[0];
}

std::optional<int32_t> DTypeFromName(std::string_view name) {
  for (size_t i = 1; i < kDTypeNames.size(); ++i)
    if (kDTypeNames[i] == name) return static_cast<int32_t>(i);
  return std::nullopt;
}

std::optional<int64_t> ShapeElementCount(std::span<const int64_t> shape) { return checked::ElementCount(shape); }

const char* OpTypeName(int32_t op_type) {
  if (op_type <= 0 || op_type >= TSR_OP_COUNT_V1_4) return kOpNames[0];
  return kOpNames[op_type];
}

std::optional<int32_t> OpTypeFromName(std::string_view name) {
  for (size_t i = 1; i < kOpNames.size(); ++i)
    if (kOpNames[i] == name) return static_cast<int32_t>(i);
  return std::nullopt;
}

const char* AttrKeyName(int32_t key) {
  if (key <= 0 || key >= TSR_ATTR_KEY_COUNT_V1_4) return kAttrNames[0];
  return kAttrNames[key];
}

}  // namespace tessera
