// How real-valued ranges and weights become int8 quantization parameters
// (docs/quantization.md): activations asymmetric per tensor, weights
// symmetric per output channel, bias int32 at scale x_scale·w_scale[c].
// Pure functions of their inputs, so the edge cases are unit-tested alone.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_SCALE_SELECTION_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_SCALE_SELECTION_H_

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::quantize {

struct ActivationParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// Asymmetric int8 for a tensor observed in [min, max]. The range is widened
// to contain 0 so that real zero (padding, RELU's floor) is exact; scale =
// (max − min) / 255, zero point = round(−128 − min / scale) clamped to
// [−128, 127]. A degenerate range (all zeros, or too narrow for a normal
// float scale) gets scale 1, which represents its values (≈ 0) exactly
// enough. Non-finite bounds are an error: such a tensor stays float.
absl::StatusOr<ActivationParams> ChooseActivationParams(float min, float max);

// round_half_to_even(x / scale) + zero_point saturated to int8: the same
// formula as the QUANTIZE kernel, used for constant operands.
int8_t QuantizeValue(float x, const ActivationParams& p);

struct PerChannelWeights {
  std::vector<float> scales;   // one per index of `axis`
  std::vector<int8_t> values;  // same layout as the float weights
  int32_t axis = 0;
};

// Symmetric per-channel int8 along `axis` of `shape`: scale_c = max|w_c| /
// 127 (zero point 0, values clamped to ±127 so the range stays symmetric).
// An all-zero channel gets scale 1. Non-finite weights are an error.
absl::StatusOr<PerChannelWeights> QuantizeWeightsPerChannel(std::span<const float> weights,
                                                            const std::vector<int64_t>& shape, int32_t axis);

// bias_q[c] = round(bias[c] / (x_scale · w_scale[c])): the scale the
// quantized FC/CONV/MATMUL pipeline assumes for its bias. `w_scales` has one
// entry (per-tensor) or one per bias element. A non-finite bias is an
// error, and so is a |bias_q| above `limit` (at most the int32 range): a
// saturated bias, or one that makes the int32 accumulator wrap, would give
// that channel a wrong result, so such an op stays float.
absl::StatusOr<std::vector<int32_t>> QuantizeBias(std::span<const float> bias, float x_scale,
                                                  std::span<const float> w_scales,
                                                  int64_t limit = std::numeric_limits<int32_t>::max());

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_SCALE_SELECTION_H_
