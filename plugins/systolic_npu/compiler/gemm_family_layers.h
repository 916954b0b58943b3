// Claim checks and tiler layers of the matrix-unit ops: FULLY_CONNECTED,
// MATMUL and CONV_2D. Weights and bias are either compile-time constants
// (pre-tiled into the constant pool) or, for FP16 compute, tensors the DMA
// engine reads at run time (OperandPlacement::kDram).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GEMM_FAMILY_LAYERS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GEMM_FAMILY_LAYERS_H_

#include "absl/status/status.h"
#include "plugins/systolic_npu/compiler/refusal.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

// FULLY_CONNECTED (x [..., K], W [N, K]) or MATMUL (A [..., M, K], B [K, N]
// or batched [..., K, N] with numpy-broadcast leading dims).
absl::Status BuildGemmLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op, GemmLayer* L,
                            Why* why);

// CONV_2D, NCHW, weights [M, C/g, kH, kW].
absl::Status BuildConvLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                            Conv2dLayer* L, Why* why);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GEMM_FAMILY_LAYERS_H_
