// The graph optimizations run at ONNX import (docs/onnx_import.md,
// "Optimizations"), in order, on the converted Tessera graph: there every
// constant is already a constant tensor (initializer, Constant node or
// folded sub-graph alike) and the op set is small, so each pass is one
// pattern over a few op types. `tessera import --json` lists the entries of
// the report under "optimizations"; the pass names are a public interface.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_IMPORT_OPTIMIZATIONS_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_IMPORT_OPTIMIZATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

struct OptimizationStats {
  std::string pass;         // stable name, e.g. "fold_batch_norm"
  int64_t changed = 0;      // places rewritten: ops folded or removed, patterns fused
  int64_t ops_removed = 0;  // runtime ops fewer because of this pass
};

// The pass names, in the order they run after constant folding (which runs
// while converting, see ImportContext).
inline constexpr const char* kConstantFoldingPass = "constant_folding";
inline constexpr const char* kDeadCodeEliminationPass = "dead_code_elimination";
inline constexpr const char* kRemoveNoOpsPass = "remove_noops";
inline constexpr const char* kFuseLayerNormPass = "fuse_layer_norm";
inline constexpr const char* kFoldBatchNormPass = "fold_batch_norm";
inline constexpr const char* kDivToMulPass = "div_to_mul";

// Runs every pass after constant folding on `graph`, appending one entry
// per pass to `report`. Dead code goes first so that a node nobody reads
// does not count as a second reader and block a fusion; no-ops go next so
// that Identity/Dropout/Cast copies do not break a pattern; BatchNorm folds
// before div_to_mul so that its DIV is counted as BatchNorm.
void RunImportOptimizations(Graph& graph, std::vector<OptimizationStats>& report);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_IMPORT_OPTIMIZATIONS_H_
