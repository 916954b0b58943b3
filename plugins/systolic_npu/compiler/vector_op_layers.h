// Claim checks and tiler layers of the vector-unit ops: ADD, MUL, RELU,
// CLIP, MAX_POOL_2D, AVG_POOL_2D.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_

#include "absl/status/status.h"
#include "compiler/refusal.h"
#include "graph_snapshot.h"
#include "tiler.h"

namespace tessera::systolic {

// `*a_index` (optional) receives which input is the full-size operand:
// ADD/MUL are commutative, so a broadcast first operand is swapped into
// second place.
absl::Status BuildElementwiseLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                                   ElementwiseLayer* L, Why* why, int* a_index = nullptr);

absl::Status BuildPoolLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                            Pool2dLayer* L, Why* why);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_
