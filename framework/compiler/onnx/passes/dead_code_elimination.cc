#include "framework/compiler/onnx/passes/dead_code_elimination.h"

#include <vector>

#include "framework/compiler/onnx/passes/graph_edit.h"

namespace tessera::onnx_import {

int64_t EliminateDeadCode(Graph& graph) {
  // Ops are topologically ordered, so one backward sweep marks every live
  // value: an op is live when one of its outputs is, and then so are its
  // inputs.
  std::vector<bool> live(graph.tensors.size(), false);
  for (int32_t t : graph.outputs) live[t] = true;
  std::vector<bool> erase(graph.ops.size(), false);
  int64_t removed = 0;
  for (size_t i = graph.ops.size(); i-- > 0;) {
    const Op& op = graph.ops[i];
    ++ImportPassWork();
    bool needed = false;
    for (int32_t t : op.outputs) needed = needed || live[t];
    if (!needed) {
      erase[i] = true;
      ++removed;
      continue;
    }
    for (int32_t t : op.inputs)
      if (t >= 0) live[t] = true;
  }
  if (removed > 0) EraseOps(graph, erase);
  return removed;
}

}  // namespace tessera::onnx_import
