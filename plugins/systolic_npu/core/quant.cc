#include "quant.h"

#include <algorithm>
#include <cmath>

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

QuantRange QuantizedActivationRange(Activation act, float clip_min,
                                    float clip_max, float out_scale,
                                    int32_t zp) {
  QuantRange r;
  auto quantize = [&](float v) -> int64_t {
    const double q = std::round(static_cast<double>(v) / out_scale);
    const double clamped = std::clamp(q, -1e9, 1e9);
    return static_cast<int64_t>(clamped) + zp;
  };
  if (act == Activation::kRelu) {
    r.min = static_cast<int32_t>(std::max<int64_t>(-128, zp));
  } else if (act == Activation::kClip) {
    r.min = static_cast<int32_t>(std::clamp<int64_t>(quantize(clip_min), -128, 127));
    r.max = static_cast<int32_t>(std::clamp<int64_t>(quantize(clip_max), -128, 127));
  }
  if (r.min > r.max) r.max = r.min;
  return r;
}

QuantAddParams MakeQuantAddParams(float s1, int32_t zp1, float s2, int32_t zp2,
                                  float so, int32_t zpo, QuantRange range) {
  QuantAddParams p;
  p.input1_offset = -zp1;
  p.input2_offset = -zp2;
  p.output_offset = zpo;
  p.left_shift = 20;
  const double twice_max = 2.0 * std::max<double>(s1, s2);
  const double m1 = s1 / twice_max;
  const double m2 = s2 / twice_max;
  const double mo = twice_max / ((1 << p.left_shift) * static_cast<double>(so));
  QuantizedMultiplier q1 = QuantizeMultiplier(m1);
  QuantizedMultiplier q2 = QuantizeMultiplier(m2);
  QuantizedMultiplier qo = QuantizeMultiplier(mo);
  p.input1_multiplier = q1.multiplier;
  p.input1_shift = q1.shift;
  p.input2_multiplier = q2.multiplier;
  p.input2_shift = q2.shift;
  p.output_multiplier = qo.multiplier;
  p.output_shift = qo.shift;
  p.act_min = range.min;
  p.act_max = range.max;
  return p;
}

int8_t QuantAddOne(const QuantAddParams& p, int8_t a, int8_t b) {
  const int32_t in1 = p.input1_offset + a;
  const int32_t in2 = p.input2_offset + b;
  const int32_t sh1 = in1 * (1 << p.left_shift);
  const int32_t sh2 = in2 * (1 << p.left_shift);
  const int32_t sc1 =
      MultiplyByQuantizedMultiplier(sh1, p.input1_multiplier, p.input1_shift);
  const int32_t sc2 =
      MultiplyByQuantizedMultiplier(sh2, p.input2_multiplier, p.input2_shift);
  const int32_t raw = MultiplyByQuantizedMultiplier(sc1 + sc2, p.output_multiplier,
                                                    p.output_shift) +
                      p.output_offset;
  return static_cast<int8_t>(Clamp32(raw, p.act_min, p.act_max));
}

QuantMulParams MakeQuantMulParams(float s1, int32_t zp1, float s2, int32_t zp2,
                                  float so, int32_t zpo, QuantRange range) {
  QuantMulParams p;
  p.input1_offset = -zp1;
  p.input2_offset = -zp2;
  p.output_offset = zpo;
  QuantizedMultiplier q = QuantizeMultiplier(static_cast<double>(s1) * s2 / so);
  p.output_multiplier = q.multiplier;
  p.output_shift = q.shift;
  p.act_min = range.min;
  p.act_max = range.max;
  return p;
}

int8_t QuantMulOne(const QuantMulParams& p, int8_t a, int8_t b) {
  const int32_t in1 = p.input1_offset + a;
  const int32_t in2 = p.input2_offset + b;
  const int32_t raw =
      MultiplyByQuantizedMultiplier(in1 * in2, p.output_multiplier,
                                    p.output_shift) +
      p.output_offset;
  return static_cast<int8_t>(Clamp32(raw, p.act_min, p.act_max));
}

}  // namespace tessera::systolic
