#include "support/reference_kernels/quantized.h"

#include <cmath>
#include <limits>

namespace tessera::cpu {

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  QuantizedMultiplier r;
  if (real_multiplier == 0.0 || !std::isfinite(real_multiplier)) return r;
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);  // |q| in [0.5, 1)
  int64_t q_fixed = static_cast<int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {  // flush tiny multipliers to zero
    shift = 0;
    q_fixed = 0;
  }
  if (shift > 30) {  // saturate huge multipliers
    shift = 30;
    q_fixed = (1LL << 31) - 1;
  }
  r.multiplier = static_cast<int32_t>(q_fixed);
  r.shift = shift;
  return r;
}

int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  // Division truncates toward zero (C semantics), as in gemmlowp.
  const int32_t ab_x2_high32 = static_cast<int32_t>((ab + nudge) / (1LL << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : ab_x2_high32;
}

int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, multiplier), right_shift);
}

int32_t QuantizeActivationBound(float value, float scale, int32_t zero_point) {
  const double q = static_cast<double>(zero_point) + std::round(value / scale);
  if (std::isnan(q)) return zero_point;
  if (q <= std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  if (q >= std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(q);
}

}  // namespace tessera::cpu
