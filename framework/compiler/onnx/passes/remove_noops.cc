#include "framework/compiler/onnx/passes/remove_noops.h"

#include <vector>

#include "framework/compiler/onnx/passes/graph_edit.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

// RESHAPE, SQUEEZE and UNSQUEEZE copy the bytes unchanged and take the
// output shape as given (docs/ops.md, Layout ops): each is a reshape.
bool IsReshapeLike(const Op& op) {
  return (op.type == TSR_OP_RESHAPE || op.type == TSR_OP_SQUEEZE || op.type == TSR_OP_UNSQUEEZE) &&
         !op.inputs.empty() && op.inputs[0] >= 0 && op.outputs.size() == 1;
}

bool IsIdentity(const Graph& g, const Op& op) {
  if (!IsReshapeLike(op) && !(op.type == TSR_OP_CAST && op.inputs.size() == 1 && op.outputs.size() == 1)) return false;
  const Tensor& x = g.tensors[op.inputs[0]];
  const Tensor& y = g.tensors[op.outputs[0]];
  return x.dtype == y.dtype && x.shape == y.shape && SameQuantization(x, y);
}

// One edit: bypass an identity, or fold a reshape into the reshape that
// reads it. Returns false when there is nothing left to do.
bool RemoveOne(Graph& g) {
  const UseIndex uses(g);
  std::vector<bool> erase(g.ops.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Op& op = g.ops[i];
    const int32_t index = static_cast<int32_t>(i);
    if (IsIdentity(g, op) && BypassOp(g, uses, index, op.inputs[0], erase)) {
      EraseOps(g, erase);
      return true;
    }
    if (!IsReshapeLike(op)) continue;
    const int32_t inner = uses.producer(op.inputs[0]);
    if (inner < 0 || !IsReshapeLike(g.ops[inner])) continue;
    const int32_t source = g.ops[inner].inputs[0];
    const Tensor& y = g.tensors[op.outputs[0]];
    if (!SameQuantization(g.tensors[source], y) || !SameQuantization(g.tensors[op.inputs[0]], y)) continue;
    const int32_t middle = op.inputs[0];
    op.type = TSR_OP_RESHAPE;
    op.inputs = {source};
    op.attrs = {{TSR_ATTR_SHAPE, Attribute{y.shape, {}}}};
    if (uses.OnlyFeeds(middle, index)) erase[inner] = true;
    EraseOps(g, erase);
    return true;
  }
  return false;
}

}  // namespace

int64_t RemoveNoOps(Graph& graph) {
  int64_t changed = 0;
  while (RemoveOne(graph)) ++changed;
  return changed;
}

}  // namespace tessera::onnx_import
