// The demo model: one attention block with rotary position embedding, the
// pattern from the partitioning seed article. Its matmuls suit an NPU; its
// SIN/COS/SELECT/SLICE/CONCAT/TRANSPOSE are what force cuts.
#ifndef TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_
#define TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tessera::cli {

struct AttentionShape {
  int64_t seq = 16;
  int64_t model_dim = 64;
  int64_t heads = 4;
};

// x [seq, model_dim] -> y [seq, model_dim]; weights are seeded, so the
// model is the same on every run.
absl::StatusOr<Graph> BuildAttentionRopeModel(const AttentionShape& shape);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_
