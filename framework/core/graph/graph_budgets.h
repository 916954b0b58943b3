// The budgets (base/budgets.h) a whole graph is held to: its tensor and op
// counts, its largest tensor, its activation memory and its bytecode. Run
// where a graph enters the process from a file: the model loader and the
// ONNX importer.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_BUDGETS_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_BUDGETS_H_

#include "absl/status/status.h"
#include "framework/core/base/budgets.h"
#include "framework/core/graph/graph.h"

namespace tessera {

// Activation memory is counted as the sum of every non-constant tensor's
// bytes: an upper bound of what the runtime allocates (it may reuse
// buffers), and one a reader can recompute from `tessera inspect`.
absl::Status CheckGraphBudgets(const Graph& graph, const Budgets& budgets);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_BUDGETS_H_
