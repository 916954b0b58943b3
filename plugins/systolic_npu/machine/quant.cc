#include "plugins/systolic_npu/machine/quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tessera::systolic {

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  QuantizedMultiplier out;
  if (!(real_multiplier > 0.0) || !std::isfinite(real_multiplier)) return out;
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);  // q in [0.5, 1)
  int64_t q_fixed = static_cast<int64_t>(std::round(q * (int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {  // rounded up to 1.0
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {  // too small to represent: zero
    return out;
  }
  if (shift > 30) {  // saturate (never happens for sane scales)
    shift = 30;
    q_fixed = (int64_t{1} << 31) - 1;
  }
  out.multiplier = static_cast<int32_t>(q_fixed);
  out.shift = shift;
  return out;
}

QuantRange QuantizedActivationRange(Activation act, float clip_min, float clip_max, float out_scale, int32_t zp) {
  QuantRange r;
  // TFLite: zero_point + round_half_away(value / scale), the division in
  // float, saturated to int32 (then intersected with [-128, 127]).
  auto bound = [&](float v) -> int64_t {
    const double q = static_cast<double>(zp) + std::round(v / out_scale);
    if (std::isnan(q)) return zp;
    return static_cast<int64_t>(std::clamp(q, -2147483648.0, 2147483647.0));
  };
  if (act == Activation::kRelu) {
    r.min = static_cast<int32_t>(std::max<int64_t>(-128, bound(0.0f)));
  } else if (act == Activation::kClip) {
    if (std::isfinite(clip_min)) r.min = static_cast<int32_t>(std::clamp<int64_t>(bound(clip_min), -128, 127));
    if (std::isfinite(clip_max)) r.max = static_cast<int32_t>(std::clamp<int64_t>(bound(clip_max), -128, 127));
  }
  // Clamp order is max-then-min: an empty range yields act_max.
  if (r.min > r.max) r.min = r.max;
  return r;
}

QuantEltwiseDesc MakeQuantEltwiseDesc(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                      int32_t out_zp) {
  QuantEltwiseDesc d;
  d.a_zero_point = a_zp;
  d.b_zero_point = b_zp;
  d.out_zero_point = out_zp;
  std::memcpy(&d.a_scale_bits, &a_scale, 4);
  std::memcpy(&d.b_scale_bits, &b_scale, 4);
  std::memcpy(&d.out_scale_bits, &out_scale, 4);
  return d;
}

int8_t QuantEltwiseOne(const QuantEltwiseDesc& d, EltwiseKind kind, int8_t a, int8_t b) {
  float as, bs, ys;
  std::memcpy(&as, &d.a_scale_bits, 4);
  std::memcpy(&bs, &d.b_scale_bits, 4);
  std::memcpy(&ys, &d.out_scale_bits, 4);
  const float ra = static_cast<float>(int32_t{a} - d.a_zero_point) * as;
  const float rb = static_cast<float>(int32_t{b} - d.b_zero_point) * bs;
  const float r = kind == EltwiseKind::kAdd ? ra + rb : (kind == EltwiseKind::kSub ? ra - rb : ra * rb);
  return QuantizeToInt8(r, ys, d.out_zero_point);
}

int8_t QuantizeToInt8(float x, float scale, int32_t zero_point) {
  const float scaled = x / scale;    // the f32 division of docs/ops.md
  if (std::isnan(scaled)) return 0;  // as the CPU reference's saturating cast
  // Round half to even in double (the default rounding mode; exact for
  // every f32), then + zp; infinities saturate like any large value.
  const double q = std::nearbyint(static_cast<double>(scaled)) + zero_point;
  return static_cast<int8_t>(std::clamp(q, -128.0, 127.0));
}

float DequantizeInt8(int8_t q, float scale, int32_t zero_point) {
  // Both conversions are exact for int8 values; the subtraction too.
  return (static_cast<float>(q) - static_cast<float>(zero_point)) * scale;
}

QuantDesc MakeQuantDesc(float scale, int32_t zero_point) {
  QuantDesc d;
  std::memcpy(&d.scale_bits, &scale, 4);
  d.zero_point = zero_point;
  return d;
}

float QuantDescScale(const QuantDesc& d) {
  float s;
  std::memcpy(&s, &d.scale_bits, 4);
  return s;
}

}  // namespace tessera::systolic
