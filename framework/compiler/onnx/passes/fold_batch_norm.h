// fold_batch_norm: folds BatchNormalization into the Conv or Gemm before it.
//
// The importer lowers inference BatchNormalization to per-channel
// (x - mean) / sqrt(var + eps) * scale + B with the parameter arithmetic
// already folded, i.e. SUB, DIV, MUL and ADD by constants [C, 1, ...]. Each
// of them splits an accelerator's partition. This pass works on that
// lowered form, so it folds any chain of ADD/SUB/MUL/DIV by per-channel (or
// scalar) constants that follows a CONV_2D, FULLY_CONNECTED, or MATMUL with
// a constant 2-D B: BatchNormalization, but also a separate bias Add or
// Gemm's alpha scaling. The chain is y * s + t per output channel, so the
// op's weights become W * s (per output channel) and its bias b * s + t.
//
// Only folds when every intermediate value has no other reader and is not a
// graph output (the Conv's own output included), the weights and bias are
// constant, nothing is quantized and the op has no fused activation. A
// RESHAPE that keeps dims 0 and 1 may sit between a CONV_2D and the chain
// (the importer runs 1-D Conv as 2-D and reshapes back). New weight and
// bias constants are made only when the values change, and once per
// distinct value set (graph_edit.h, MadeConstants): N MatMuls reading one
// shared weight, each followed by + b, keep that weight and share one bias.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FOLD_BATCH_NORM_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FOLD_BATCH_NORM_H_

#include <cstdint>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Returns the number of chains folded (one per BatchNormalization).
int64_t FoldBatchNorm(Graph& graph);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_FOLD_BATCH_NORM_H_
