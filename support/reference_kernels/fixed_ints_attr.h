// Per-dimension integer attributes of the window ops (CONV_2D,
// CONV_TRANSPOSE_2D): strides, dilations, pads, output padding.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_FIXED_INTS_ATTR_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_FIXED_INTS_ATTR_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu {

// `len` values, each in [min_value, max_value], or `len` copies of `dflt`
// when the attribute is absent; InvalidArgument naming `name` otherwise.
absl::StatusOr<std::vector<int64_t>> FixedIntsAttr(int32_t op, const Attributes& attrs, int32_t key, const char* name,
                                                   size_t len, int64_t dflt, int64_t min_value,
                                                   int64_t max_value = std::numeric_limits<int64_t>::max());

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_FIXED_INTS_ATTR_H_
