#include "framework/core/graph/graph_operands.h"

namespace tessera {

GraphOperands::GraphOperands(const Graph& graph) : GraphOperands(graph, [](size_t, const Op&) {}) {}

}  // namespace tessera
