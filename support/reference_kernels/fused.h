// Pieces shared by the compute ops (MATMUL, FULLY_CONNECTED, CONV_2D): the
// fused activation and the integer (quantized) output pipeline.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_FUSED_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_FUSED_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/quantized.h"

namespace tessera::cpu {

// TSR_ATTR_ACTIVATION (default NONE); CLIP reads TSR_ATTR_CLIP_MIN / MAX
// (absent = -inf / +inf).
struct FusedActivation {
  int64_t kind = TSR_ACTIVATION_NONE;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();

  // Float domain; NaN passes through.
  double Apply(double v) const {
    if (std::isnan(v)) return v;
    if (kind == TSR_ACTIVATION_RELU) return v < 0 ? 0.0 : v;
    if (kind == TSR_ACTIVATION_CLIP) {
      if (v < lo) v = lo;
      if (v > hi) v = hi;
    }
    return v;
  }
};
absl::StatusOr<FusedActivation> ParseActivation(int32_t op, const Attributes& attrs);

// Dtype rules of the compute ops (x = activations, w = weights, bias
// optional, y = output):
//  * float: x f32/f16, w, bias and y the same dtype;
//  * quantized: x, w in {i8, u8}; y i8/u8 with quant params on x, w and y
//    (requantizing), or y i32 (raw integer accumulators, zero points from
//    the quant params when present); bias i32.
absl::Status CheckComputeTypes(int32_t op, const TensorRef& x, const TensorRef& w, const TensorRef* bias,
                               const TensorRef& y);
inline bool IsQuantizedCompute(const TensorRef& x) { return x.dtype == TSR_DTYPE_I8 || x.dtype == TSR_DTYPE_U8; }

// Integer output stage, one entry per output channel c.
struct IntegerPipeline {
  bool requantize = true;  // false: y is i32, written raw
  int32_t x_zero_point = 0;
  std::vector<int32_t> w_zero_point;            // per channel
  std::vector<QuantizedMultiplier> multiplier;  // per channel
  int32_t y_zero_point = 0;
  int32_t act_min = 0, act_max = 0;  // quantized activation clamp

  // acc = sum((x - x_zp) * (w - w_zp)) + bias, modulo 2^32.
  int32_t Finish(int32_t acc, int64_t c) const {
    if (!requantize) return acc;
    int64_t v = MultiplyByQuantizedMultiplier(acc, multiplier[c]);
    v += y_zero_point;
    if (v < act_min) v = act_min;
    if (v > act_max) v = act_max;
    return static_cast<int32_t>(v);
  }
};

// Builds the pipeline; `w_channel_axis` is the output-channel axis of w
// (per-channel weight quantization must use it), `channels` its size.
absl::StatusOr<IntegerPipeline> MakeIntegerPipeline(int32_t op, const TensorRef& x, const TensorRef& w,
                                                    const TensorRef& y, int64_t w_channel_axis, int64_t channels,
                                                    const FusedActivation& act);

// Wraps an int64 to int32 (two's complement).
inline int32_t WrapToInt32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_FUSED_H_
