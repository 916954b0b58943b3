// The value of one element of a tensor buffer, as a double: the one reader
// the framework's reports and comparisons share (run summaries, onnx-test's
// judge, the demo's agreement check), so F16 is decoded in one place.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_ELEMENT_VALUE_H_
#define TESSERA_FRAMEWORK_CORE_BASE_ELEMENT_VALUE_H_

#include <cstdint>

namespace tessera {

// IEEE binary16 bits to double, exactly (every half is a double):
// subnormals, ±inf and NaN included.
double HalfBitsToDouble(uint16_t bits);

// Element `i` of a buffer of `dtype` (the caller has checked that it holds
// more than i elements); bool is 0 or 1, i64 is rounded to the nearest
// double; 0 for an unknown dtype. Reads through memcpy, so `data` needs no
// alignment.
double ElementAsDouble(int32_t dtype, const void* data, int64_t i);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_ELEMENT_VALUE_H_
