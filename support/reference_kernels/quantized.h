// Fixed-point requantization helpers, bit-exact with TFLite's
// QuantizeMultiplier / MultiplyByQuantizedMultiplier (double-rounding
// variant) and gemmlowp's SaturatingRoundingDoublingHighMul /
// RoundingDivideByPOT. Hardware simulators must match these bit for bit.
// The pipeline is written out in docs/ops.md ("Quantization").
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_QUANTIZED_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_QUANTIZED_H_

#include <cstdint>

namespace tessera::cpu {

// A real multiplier M expressed as M ~= multiplier * 2^(shift - 31), with
// multiplier in [2^30, 2^31) (or 0).
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int shift = 0;  // > 0: left shift, < 0: right shift
  bool operator==(const QuantizedMultiplier&) const = default;
};

// TFLite QuantizeMultiplier: q = frexp(M, &shift); m = round_half_away(q *
// 2^31); if m == 2^31 { m /= 2; ++shift; }. M == 0 gives {0, 0}. shift <
// -31 flushes to {0, 0}; shift > 30 saturates to {2^31 - 1, 30}.
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// gemmlowp: round(a * b / 2^31) with ties away from zero; the only overflow
// case (INT32_MIN * INT32_MIN) returns INT32_MAX.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);

// gemmlowp: x / 2^exponent rounded to nearest, ties away from zero.
// exponent must be in [0, 31].
int32_t RoundingDivideByPOT(int32_t x, int exponent);

// TFLite MultiplyByQuantizedMultiplier:
//   RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(
//       x * 2^max(shift, 0), multiplier), max(-shift, 0)).
// The left shift wraps modulo 2^32 (two's complement), as on hardware.
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift);
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m) {
  return MultiplyByQuantizedMultiplier(x, m.multiplier, m.shift);
}

// TFLite's activation bound quantization: zero_point + round_half_away(
// value / scale) computed as float division, saturated to int32 range.
int32_t QuantizeActivationBound(float value, float scale, int32_t zero_point);

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_QUANTIZED_H_
