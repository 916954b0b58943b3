// The framework side of the graph view ABI (tessera/graph_view.h): a set of
// ops of a Graph presented to a plugin as a graph of its own, with tensors
// renumbered locally and the boundary tensors as inputs and outputs.
#ifndef TESSERA_FRAMEWORK_COMPILER_CLAIMS_GRAPH_VIEW_IMPL_H_
#define TESSERA_FRAMEWORK_COMPILER_CLAIMS_GRAPH_VIEW_IMPL_H_

#include <span>
#include <unordered_map>
#include <vector>

#include "framework/core/graph/graph.h"
#include "framework/core/graph/graph_operands.h"
#include "tessera/graph_view.h"

namespace tessera {

// Who reads each tensor, built once per graph so that a partition's view
// can find its outputs by looking only at its own ops' consumers: views of
// P partitions then cost the sum of their sizes, not P times the graph.
class GraphUses {
 public:
  explicit GraphUses(const Graph& graph);
  // The same from the flat operand lists (no pass over the ops' structs).
  explicit GraphUses(const Graph& graph, const GraphOperands& operands);
  // Ops reading tensor t (an op reading t twice appears twice).
  std::span<const int32_t> consumers(int32_t t) const {
    return {consumers_.data() + first_[t], consumers_.data() + first_[t + 1]};
  }
  bool is_graph_output(int32_t t) const { return is_graph_output_[t]; }

 private:
  template <typename InputsOf>
  void Build(const Graph& graph, size_t op_count, InputsOf inputs_of);

  std::vector<int32_t> first_;  // per tensor, into consumers_ (CSR)
  std::vector<int32_t> consumers_;
  std::vector<bool> is_graph_output_;
};

class GraphView {
 public:
  // All ops of `graph` except DISPATCH ops; boundary = graph inputs/outputs
  // plus any DISPATCH inputs/outputs.
  static GraphView Whole(const Graph& graph);
  // `op_indices` in topological order. Costs O(partition) given `uses`;
  // the overload without it builds one, which costs O(graph).
  static GraphView Partition(const Graph& graph, std::vector<int32_t> op_indices, const GraphUses& uses);
  static GraphView Partition(const Graph& graph, std::vector<int32_t> op_indices);

  tsr_graph handle() const { return reinterpret_cast<tsr_graph>(const_cast<GraphView*>(this)); }
  static const GraphView* FromHandle(tsr_graph g) { return reinterpret_cast<const GraphView*>(g); }

  const Graph& graph() const { return *graph_; }
  const std::vector<int32_t>& ops() const { return ops_; }          // global op indices
  const std::vector<int32_t>& tensors() const { return tensors_; }  // local -> global
  const std::vector<int32_t>& inputs() const { return inputs_; }    // local indices
  const std::vector<int32_t>& outputs() const { return outputs_; }
  int32_t Local(int32_t global) const;  // -1 if absent
  const Tensor* LocalTensor(int32_t local) const;

 private:
  GraphView(const Graph& graph, std::vector<int32_t> op_indices, const GraphUses& uses);
  int32_t Intern(int32_t global);

  const Graph* graph_;
  std::vector<int32_t> ops_;
  std::vector<int32_t> tensors_;
  std::unordered_map<int32_t, int32_t> local_;
  std::vector<int32_t> inputs_;
  std::vector<int32_t> outputs_;
};

// The accessor table handed to plugins; static, thread-safe. GraphViewApi()
// is this host's newest; GraphViewApiFor() the table of a negotiated
// version (its header carries that version, its struct_size ends with that
// version's members).
const tsr_graph_view_api* GraphViewApi();
const tsr_graph_view_api* GraphViewApiFor(tsr_version negotiated);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_CLAIMS_GRAPH_VIEW_IMPL_H_
