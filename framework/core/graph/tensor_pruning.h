// A graph's unused tensors, dropped. After partitioning, a partition's inner
// tensors (and the constants compiled into its bytecode) no longer belong in
// the outer graph; after import, neither do the ones a fusion replaced.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_TENSOR_PRUNING_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_TENSOR_PRUNING_H_

#include "framework/core/graph/graph.h"

namespace tessera {

// Drops tensors no op, input or output references; renumbers the rest.
void PruneUnusedTensors(Graph& graph);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_TENSOR_PRUNING_H_
