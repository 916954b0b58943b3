// A graph's operand lists, flat: each op's input and output tensor ids in
// one array (CSR), which tensor each op produces, and which ops are
// DISPATCH ops. Built in one pass over the ops.
//
// Why: an Op is about 250 bytes (attribute map, optional DISPATCH
// reference) with its operand vectors in heap blocks of their own, so every
// pass over a million ops streams 250 MB and chases two pointers per op.
// The partitioner and the cost model each make several passes (the
// consumer index, the producer index, the grouping, the costs), so they
// read these arrays instead, 4 bytes per operand.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_OPERANDS_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_OPERANDS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "framework/core/graph/graph.h"
#include "tessera/ops.h"

namespace tessera {

class GraphOperands {
 public:
  explicit GraphOperands(const Graph& graph);
  // The same, calling visit(op_index, op) for each op in the same pass: a
  // caller that needs more of each Op (the cost model's work per op) then
  // reads the struct, a few cache lines that a million-op graph cannot
  // keep cached, once instead of twice.
  template <typename Visit>
  GraphOperands(const Graph& graph, Visit&& visit);

  size_t op_count() const { return is_dispatch_.size(); }
  size_t tensor_count() const { return producer_.size(); }
  // Inputs and outputs of every op, omitted inputs included.
  size_t operand_count() const { return operands_.size(); }
  // As in the Op: -1 for an omitted optional input, ids unchecked.
  std::span<const int32_t> inputs(size_t op) const {
    return {operands_.data() + first_input_[op], operands_.data() + first_output_[op]};
  }
  std::span<const int32_t> outputs(size_t op) const {
    return {operands_.data() + first_output_[op], operands_.data() + first_input_[op + 1]};
  }
  bool is_dispatch(size_t op) const { return is_dispatch_[op] != 0; }
  // Per tensor: the op that writes it (the last one, as
  // Graph::ProducerIndex), or -1.
  const std::vector<int32_t>& producer() const { return producer_; }

 private:
  std::vector<int32_t> first_input_;   // per op, + 1 at the end: inputs, then outputs, in operands_
  std::vector<int32_t> first_output_;  // per op
  std::vector<int32_t> operands_;
  std::vector<uint8_t> is_dispatch_;
  std::vector<int32_t> producer_;
};

template <typename Visit>
GraphOperands::GraphOperands(const Graph& graph, Visit&& visit) : producer_(graph.tensors.size(), -1) {
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
    visit(o, op);
  }
  first_input_.push_back(static_cast<int32_t>(operands_.size()));
}

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_OPERANDS_H_
