// Claim checks and tiler layers of the vector-unit ops: ADD, SUB, MUL, DIV
// by a constant (float: MUL by its reciprocal; int8: a 256-entry table per
// divisor value), RELU, CLIP, the lookup-table ops SIGMOID, TANH and EXP
// (int8: one 256-entry table), MAX_POOL_2D, AVG_POOL_2D and GLOBAL_AVG_POOL
// (float: an AVG_POOL whose window is the whole plane; int8: ROW_SUM and
// the requantize pipeline).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_

#include "absl/status/status.h"
#include "plugins/systolic_npu/compiler/refusal.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

// `*a_index` (optional) receives which input is the full-size operand:
// ADD/MUL are commutative, so a broadcast first operand is swapped into
// second place.
absl::Status BuildElementwiseLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                                   ElementwiseLayer* L, Why* why, int* a_index = nullptr);

absl::Status BuildPoolLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                            Pool2dLayer* L, Why* why);

// GLOBAL_AVG_POOL [N, C, spatial...] -> [N, C, 1, ...], f32 / f16: one
// AVG_POOL window over each channel's whole plane (at most 4096 elements).
// Quantized i8 (L->dtype I8): *QL (optional) receives the INT8 layer.
absl::Status BuildGlobalAvgPoolLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                                     Pool2dLayer* L, Why* why,
                                     QuantGlobalAvgPoolLayer* QL = nullptr);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_VECTOR_OP_LAYERS_H_
