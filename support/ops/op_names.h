// The name of every op type of api/tessera/ops.h, spelled as the SDK prints
// it: refusals, reports, logs and option values name an op the same way in
// the framework and in every bundled plugin. Header-only, standard library
// and api/ only, so a plugin may use it without linking anything.
#ifndef TESSERA_SUPPORT_OPS_OP_NAMES_H_
#define TESSERA_SUPPORT_OPS_OP_NAMES_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "tessera/ops.h"

namespace tessera {

// Indexed by tsr_op_type. A new op appends its name here when ops.h
// appends its value; the static_assert below catches a forgotten one.
inline constexpr std::array<const char*, TSR_OP_COUNT_V1_4> kOpTypeNames = {
    "UNKNOWN",     "ADD",
    "SUB",         "MUL",
    "DIV",         "POW",
    "NEG",         "ABS",
    "SQRT",        "RSQRT",
    "EXP",         "LOG",
    "SIN",         "COS",
    "TANH",        "SIGMOID",
    "RELU",        "CLIP",
    "ERF",         "MAXIMUM",
    "MINIMUM",     "EQUAL",
    "LESS",        "GREATER",
    "SELECT",      "REDUCE_MEAN",
    "REDUCE_SUM",  "REDUCE_MAX",
    "MATMUL",      "FULLY_CONNECTED",
    "CONV_2D",     "MAX_POOL_2D",
    "AVG_POOL_2D", "GLOBAL_AVG_POOL",
    "SOFTMAX",     "LAYER_NORM",
    "RESHAPE",     "TRANSPOSE",
    "SLICE",       "CONCAT",
    "GATHER",      "SQUEEZE",
    "UNSQUEEZE",   "PAD",
    "CAST",        "QUANTIZE",
    "DEQUANTIZE",  "DISPATCH",
    "RESIZE",      "CONV_TRANSPOSE_2D",  // since ABI 1.3
    "ARG_MAX",     "ARG_MIN",
    "TOP_K",       "CUM_SUM",  // since ABI 1.4
};
static_assert(kOpTypeNames.back() != nullptr, "an op type of ops.h has no name");

// The name of op type `type`, or nullptr when `type` is outside the table
// (each caller says what an unknown op is called in its own messages).
constexpr const char* OpTypeNameOrNull(int32_t type) {
  return type >= 0 && type < static_cast<int32_t>(kOpTypeNames.size()) ? kOpTypeNames[type] : nullptr;
}

// The op type named `name` (never TSR_OP_UNKNOWN), or -1.
constexpr int32_t OpTypeNamed(std::string_view name) {
  for (size_t i = 1; i < kOpTypeNames.size(); ++i)
    if (name == kOpTypeNames[i]) return static_cast<int32_t>(i);
  return -1;
}

}  // namespace tessera

#endif  // TESSERA_SUPPORT_OPS_OP_NAMES_H_
