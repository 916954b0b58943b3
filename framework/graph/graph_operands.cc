#include "graph/graph_operands.h"

#include "tessera/ops.h"

namespace tessera {

GraphOperands::GraphOperands(const Graph& graph) : producer_(graph.tensors.size(), -1) {
  const size_t n = graph.ops.size();
  first_input_.reserve(n + 1);
  first_output_.reserve(n);
  operands_.reserve(3 * n);  // most ops: one or two inputs, one output
  is_dispatch_.resize(n);
  for (size_t o = 0; o < n; ++o) {
    const Op& op = graph.ops[o];
    first_input_.push_back(static_cast<int32_t>(operands_.size()));
    operands_.insert(operands_.end(), op.inputs.begin(), op.inputs.end());
    first_output_.push_back(static_cast<int32_t>(operands_.size()));
    operands_.insert(operands_.end(), op.outputs.begin(), op.outputs.end());
    is_dispatch_[o] = op.type == TSR_OP_DISPATCH ? 1 : 0;
    for (int32_t t : op.outputs)
      if (t >= 0 && static_cast<size_t>(t) < producer_.size()) producer_[t] = static_cast<int32_t>(o);
  }
  first_input_.push_back(static_cast<int32_t>(operands_.size()));
}

}  // namespace tessera
