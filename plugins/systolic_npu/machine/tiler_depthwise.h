// Depthwise CONV_2D on the vector unit (VECTOR DEPTHWISE, ISA doc section
// "VECTOR DEPTHWISE"): the lowering EmitConv2d takes for a conv with
// groups == in_channels == out_channels > 1 and compile-time weights. A
// systolic array would waste all but one column of every group's GEMM.
// Not part of the public API.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_DEPTHWISE_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_DEPTHWISE_H_

#include "absl/status/status.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic::internal {

// Whether `L` (already validated by EmitConv2d) lowers to VECTOR DEPTHWISE:
// depthwise with compile-time weights, every output row's window reaching
// an input row, and one output row of one channel tile fitting half the
// input and accumulator banks (else the array runs it).
bool IsVectorDepthwise(const Conv2dLayer& L, const SystolicNpuConfig& npu);

// Per image, per tile of array_cols channels (its taps x channels weight
// panel and epilogue parameters loaded once), per band of output rows that
// fits half the input and accumulator banks: DMA_LOAD of the band's input
// rows, DEPTHWISE, the GEMM epilogue (BIAS_ADD, REQUANTIZE or activation),
// and a strided DMA_STORE into NCHW. Requires IsVectorDepthwise(L, npu).
absl::Status EmitDepthwiseConv(const Conv2dLayer& L, const LayerRefs& refs, const SystolicNpuConfig& npu, Program& p,
                               EntryPoint& e);

}  // namespace tessera::systolic::internal

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_DEPTHWISE_H_
