// Semantic checks that run after a model is parsed (and on graphs built in
// code): indices in range, shapes consistent, dtypes known, constants the
// right size, ops in topological order, no dangling tensors.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_VERIFIER_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_VERIFIER_H_

#include "absl/status/status.h"
#include "framework/core/graph/graph.h"
#include "support/math/checked_math.h"

namespace tessera {

inline constexpr size_t kMaxTensorRank = 8;
// No tensor may exceed this many bytes (2^48): keeps every size computation
// far from overflow. The same bound as the plugin kit's (checked_math.h).
inline constexpr int64_t kMaxTensorBytes = checked::kMaxTensorBytes;

absl::Status VerifyGraph(const Graph& graph);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_VERIFIER_H_
