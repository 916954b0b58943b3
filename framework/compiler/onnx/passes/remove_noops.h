// remove_noops: drops ops that move no data. The converters emit ONNX
// Identity and inference-mode Dropout as RESHAPE copies (so --no-optimize
// shows the graph as written); those, a CAST to the dtype the tensor
// already has, and a RESHAPE/SQUEEZE/UNSQUEEZE to the shape it already has
// are bypassed. A chain of RESHAPE/SQUEEZE/UNSQUEEZE (1-D Conv's
// Squeeze-then-Unsqueeze, PyTorch's view chains) collapses into one RESHAPE
// of the chain's source, which the first rule then drops when the shapes
// match. Quantized tensors are left alone unless both sides carry the same
// parameters: a RESHAPE copy is how the importer re-labels quantization.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_REMOVE_NOOPS_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_REMOVE_NOOPS_H_

#include <cstdint>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Returns the number of ops removed or collapsed.
int64_t RemoveNoOps(Graph& graph);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_REMOVE_NOOPS_H_
