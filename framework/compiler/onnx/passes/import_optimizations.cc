#include "framework/compiler/onnx/passes/import_optimizations.h"

#include "framework/compiler/onnx/passes/dead_code_elimination.h"
#include "framework/compiler/onnx/passes/div_to_mul.h"
#include "framework/compiler/onnx/passes/fold_batch_norm.h"
#include "framework/compiler/onnx/passes/fuse_layer_norm.h"
#include "framework/compiler/onnx/passes/remove_noops.h"

namespace tessera::onnx_import {

void RunImportOptimizations(Graph& graph, std::vector<OptimizationStats>& report) {
  struct Pass {
    const char* name;
    int64_t (*run)(Graph&);
  };
  static constexpr Pass kPasses[] = {
      {kDeadCodeEliminationPass, EliminateDeadCode},
      {kRemoveNoOpsPass, RemoveNoOps},
      {kFuseLayerNormPass, FuseLayerNorm},
      {kFoldBatchNormPass, FoldBatchNorm},
      {kDivToMulPass, DivToMul},
  };
  for (const Pass& pass : kPasses) {
    const int64_t before = static_cast<int64_t>(graph.ops.size());
    const int64_t changed = pass.run(graph);
    report.push_back({pass.name, changed, before - static_cast<int64_t>(graph.ops.size())});
  }
}

}  // namespace tessera::onnx_import
