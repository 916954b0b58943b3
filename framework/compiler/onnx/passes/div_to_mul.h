// div_to_mul: x / c with a constant float c becomes x * (1/c). Accelerators
// multiply natively but often cannot divide (the systolic NPU has no DIV),
// so each DIV left in the graph splits a partition. The reciprocal is
// computed in f64 and rounded once to c's dtype, so x * (1/c) differs from
// x / c by at most about one ulp of the result. Skipped when some 1/c is
// not a finite non-zero normal value (c = 0, inf, NaN, or so small that its
// reciprocal overflows), where the two could differ by more.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DIV_TO_MUL_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DIV_TO_MUL_H_

#include <cstdint>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Returns the number of DIV ops rewritten.
int64_t DivToMul(Graph& graph);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DIV_TO_MUL_H_
