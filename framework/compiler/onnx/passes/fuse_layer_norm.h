// fuse_layer_norm: recognizes LayerNorm as PyTorch exports it before
// opset 17 (and as many transformer exports still do),
//
//   mean = ReduceMean(x, axes);  d = x - mean
//   var  = ReduceMean(Pow(d, 2) or d * d, axes)
//   y    = d / Sqrt(var + eps)  [* gamma]  [+ beta]
//
// and replaces the nine ops with one LAYER_NORM (axis = the first reduced
// axis, epsilon = eps). LAYER_NORM needs the axes to be the trailing ones,
// keepdims on both reductions, eps a constant, gamma and beta constants
// that broadcast over the normalized dims only, and every intermediate read
// by the pattern alone. Without a gamma the scale is ones; without a beta
// there is no bias. LAYER_NORM computes in f64 and rounds once (docs/ops.md)
// where the decomposition rounded after each op, so the fused result is at
// least as close to the exact value.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FUSE_LAYER_NORM_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FUSE_LAYER_NORM_H_

#include <cstdint>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Returns the number of LAYER_NORM ops made.
int64_t FuseLayerNorm(Graph& graph);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FUSE_LAYER_NORM_H_
