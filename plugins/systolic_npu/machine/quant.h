// INT8 fixed-point numerics of the vector unit: the TFLite / gemmlowp
// requantization pipeline, bit for bit.
//
//   real multiplier M = in_scale * w_scale[c] / out_scale
//   (q31 multiplier, shift) = QuantizeMultiplier(M)
//   out = RoundingDivideByPOT(
//           SaturatingRoundingDoublingHighMul(acc * 2^left_shift, q31),
//           right_shift) + out_zero_point
//   then clamp to the fused activation range and saturate to int8.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_QUANT_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_QUANT_H_

#include <cstdint>
#include <limits>

namespace tessera::systolic {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // q31, in [2^30, 2^31) or 0
  int32_t shift = 0;       // > 0: left shift, < 0: right shift
  bool operator==(const QuantizedMultiplier&) const = default;
};

// Decomposes a real multiplier (>= 0, finite) into q31 + power-of-two
// exponent via frexp, as tflite::QuantizeMultiplier does: rounds the
// mantissa, renormalizes when it rounds to 2^31, and flushes multipliers
// below 2^-31 to zero. Shifts are clamped to [-31, 30].
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// gemmlowp::SaturatingRoundingDoublingHighMul.
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  // Divide (not shift): rounds toward zero, as gemmlowp does.
  const int32_t high = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

// gemmlowp::RoundingDivideByPOT: round to nearest, ties away from zero.
// exponent in [0, 31].
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// tflite::MultiplyByQuantizedMultiplier. The left shift wraps like the
// hardware's 32-bit shifter (the compiler keeps left shifts small).
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, multiplier), right);
}

inline int32_t Clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Requantizes one int32 accumulator to int8: multiplier, + zero point,
// clamp to [act_min, act_max] (already within [-128, 127]).
inline int8_t RequantizeOne(int32_t acc, int32_t multiplier, int32_t shift, int32_t out_zero_point, int32_t act_min,
                            int32_t act_max) {
  int32_t v = MultiplyByQuantizedMultiplier(acc, multiplier, shift);
  // The zero-point add saturates in the vector unit's 32-bit adder.
  int64_t w = static_cast<int64_t>(v) + out_zero_point;
  if (w > act_max) w = act_max;
  if (w < act_min) w = act_min;
  return static_cast<int8_t>(w);
}

// Fused activation range in the quantized domain (TFLite
// CalculateActivationRangeQuantized): NONE -> [-128, 127];
// RELU -> [max(-128, zp), 127]; CLIP(lo, hi) -> [max(-128, zp +
// round(lo/scale)), min(127, zp + round(hi/scale))].
struct QuantRange {
  int32_t min = -128;
  int32_t max = 127;
};
enum class Activation : uint8_t { kNone = 0, kRelu = 1, kClip = 2 };
QuantRange QuantizedActivationRange(Activation act, float clip_min, float clip_max, float out_scale,
                                    int32_t out_zero_point);

// Quantized elementwise ADD / SUB / MUL, the project's reference
// formulation (docs/ops.md): dequantize in f32, compute in f32, requantize
// with round-half-to-even, saturate to int8:
//   ra = f32(a - a_zp) * a_scale, rb = f32(b - b_zp) * b_scale
//   r = ra + rb (ra - rb, ra * rb)  all f32 operations
//   y = saturate(round_half_to_even(f32(r / out_scale)) + out_zp)
// The vector unit's fp32 datapath executes exactly this.
// Per-tensor int8 quantization, docs/ops.md QUANTIZE / DEQUANTIZE (the
// CPU reference kernels' arithmetic, bit for bit):
//   QuantizeToInt8: q = saturate(round_half_to_even(f32(x / scale)) + zp),
//     NaN -> 0, +-inf saturate to 127 / -128.
//   DequantizeInt8: x = (f32(q) - f32(zp)) * scale, one f32 multiply.
int8_t QuantizeToInt8(float x, float scale, int32_t zero_point);
float DequantizeInt8(int8_t q, float scale, int32_t zero_point);

// The QUANT descriptor of VECTOR QUANTIZE / DEQUANTIZE. The verifier
// requires a finite scale > 0 and an int8 zero point.
struct QuantDesc {
  int32_t scale_bits = 0;  // f32 bit pattern
  int32_t zero_point = 0;
};
QuantDesc MakeQuantDesc(float scale, int32_t zero_point);
float QuantDescScale(const QuantDesc& d);

struct QuantEltwiseDesc {
  int32_t a_zero_point = 0, a_scale_bits = 0;  // scales: f32 bit patterns
  int32_t b_zero_point = 0, b_scale_bits = 0;
  int32_t out_zero_point = 0, out_scale_bits = 0;
};
QuantEltwiseDesc MakeQuantEltwiseDesc(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                      int32_t out_zp);
enum class EltwiseKind : uint8_t { kAdd, kSub, kMul };
int8_t QuantEltwiseOne(const QuantEltwiseDesc& d, EltwiseKind kind, int8_t a, int8_t b);
inline int8_t QuantEltwiseOne(const QuantEltwiseDesc& d, bool add, int8_t a, int8_t b) {
  return QuantEltwiseOne(d, add ? EltwiseKind::kAdd : EltwiseKind::kMul, a, b);
}

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_QUANT_H_
