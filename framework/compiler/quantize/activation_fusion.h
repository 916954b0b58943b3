// Folds a RELU or CLIP that directly follows FULLY_CONNECTED, CONV_2D or
// MATMUL into the producer's fused activation (TSR_ATTR_ACTIVATION). Done
// on the FP32 graph before calibration, so the fused op's output is the
// activated tensor and its calibrated range is tight ([0, max] after a
// RELU): half the int8 levels are not spent on values the RELU discards,
// and the NPU applies the clamp inside its requantization for free.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACTIVATION_FUSION_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACTIVATION_FUSION_H_

#include "framework/core/graph/graph.h"

namespace tessera::quantize {

struct FusionResult {
  Graph graph;
  int fused = 0;  // activations folded away
};

// Fuses only where it is exact: the producer is f32 with no activation yet,
// the intermediate has no other consumer and is not a graph output, and a
// CLIP's bounds are attributes or constant f32 scalars. Float semantics
// are unchanged (the kernels apply a fused activation before rounding,
// which RELU/CLIP commute with).
FusionResult FuseActivations(const Graph& graph);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACTIVATION_FUSION_H_
