// The graph rewrite of post-training quantization: given an FP32 graph and
// the calibrated range of its tensors, emit the INT8 graph.
//
// * FULLY_CONNECTED, CONV_2D, MATMUL (constant weights) become quantized
//   compute: i8 activations (asymmetric per tensor), i8 weights (symmetric
//   per output channel), i32 bias at scale x_scale·w_scale[c], i8 output.
// * ADD and MUL become quantized elementwise ops (constant operands are
//   quantized per tensor from their own data).
// * Ops that act on stored integers (RELU, CLIP, MAX_POOL_2D and the pure
//   layout ops) stay in int8 when their input already is, with the input's
//   parameters on their output; RELU and CLIP are re-expressed as a CLIP
//   with bounds in the stored domain, because a RELU on stored integers
//   clamps at q = 0, which is real zero only when the zero point is 0.
// * Everything else stays FP32: a DEQUANTIZE is inserted before it and a
//   QUANTIZE after it where a quantized op needs its output.
// Graph inputs and outputs keep their names, dtypes and shapes: inputs get
// a QUANTIZE and outputs a DEQUANTIZE where the adjoining op is quantized.
// The float version of a tensor keeps its name; its int8 version is named
// "<name>_int8" (made unique if needed).
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_QUANTIZE_REWRITE_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_QUANTIZE_REWRITE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/quantize/calibration.h"
#include "framework/core/graph/graph.h"

namespace tessera::quantize {

struct RewriteStats {
  int quantized_ops = 0;  // ops of the input graph now computed in int8
  int float_ops = 0;      // ops left in FP32 (inserted QUANTIZE/DEQUANTIZE not counted)
};

struct QuantizedGraph {
  Graph graph;
  RewriteStats stats;
};

// `ranges` has one entry per tensor of `fp32` (see Calibrate). The result
// passes VerifyGraph. An op whose tensors have no usable range (never
// observed, non-finite values), whose weights are not constant or whose
// bias does not fit the int32 accumulator stays FP32.
absl::StatusOr<QuantizedGraph> QuantizeGraph(const Graph& fp32, const std::vector<TensorRange>& ranges);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_QUANTIZE_REWRITE_H_
