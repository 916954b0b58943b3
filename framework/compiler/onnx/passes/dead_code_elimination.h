// dead_code_elimination: removes ops none of whose results reaches a graph
// output (ONNX nodes whose values nobody reads, Split outputs left unused).
// Every op in the op set is pure, so a dead op can go unconditionally.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DEAD_CODE_ELIMINATION_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DEAD_CODE_ELIMINATION_H_

#include <cstdint>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Returns the number of ops removed.
int64_t EliminateDeadCode(Graph& graph);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_DEAD_CODE_ELIMINATION_H_
