// Claim checks and tiler layers of the element-stream ops: RESHAPE,
// SQUEEZE and UNSQUEEZE (no data movement inside a partition; a DMA copy of
// unchanged bytes into a partition output, see lowering.cc), QUANTIZE and DEQUANTIZE (per-tensor, on the
// vector unit). See core/tiler_convert.cc for the lowering.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_CONVERT_OP_LAYERS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_CONVERT_OP_LAYERS_H_

#include "absl/status/status.h"
#include "plugins/systolic_npu/compiler/refusal.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

// RESHAPE / SQUEEZE / UNSQUEEZE: static shapes (a shape or axes input
// must be a constant), same dtype (f32, f16, i8; quantized or not: the
// bytes and their quantization are unchanged), same element count.
absl::Status BuildReshapeLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                               ConvertLayer* L, Why* why);

// QUANTIZE (f32/f16 -> i8, the output's per-tensor params) and DEQUANTIZE
// (i8 -> f32/f16, the input's), same shapes.
absl::Status BuildQuantizeLayer(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                                ConvertLayer* L, Why* why);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_CONVERT_OP_LAYERS_H_
