#include "framework/core/graph/tensor_pruning.h"

namespace tessera {

void PruneUnusedTensors(Graph& g) {
  std::vector<int32_t> remap(g.tensors.size(), -1);
  auto mark = [&](int32_t t) {
    if (t >= 0) remap[t] = 0;
  };
  for (int32_t t : g.inputs) mark(t);
  for (int32_t t : g.outputs) mark(t);
  for (const Op& op : g.ops) {
    for (int32_t t : op.inputs) mark(t);
    for (int32_t t : op.outputs) mark(t);
    // Constants the bytecode references are read at load, not through an
    // input: they stay, or the model could not bind them.
    if (op.dispatch)
      for (const DispatchConstant& c : op.dispatch->constants) mark(c.tensor);
  }
  std::vector<Tensor> kept;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (remap[t] < 0) continue;
    remap[t] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(g.tensors[t]));
  }
  auto apply = [&](std::vector<int32_t>& list) {
    for (int32_t& t : list)
      if (t >= 0) t = remap[t];
  };
  apply(g.inputs);
  apply(g.outputs);
  for (Op& op : g.ops) {
    apply(op.inputs);
    apply(op.outputs);
    if (op.dispatch)
      for (DispatchConstant& c : op.dispatch->constants) c.tensor = remap[c.tensor];
  }
  g.tensors = std::move(kept);
}

}  // namespace tessera
