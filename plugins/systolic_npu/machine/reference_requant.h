// Test-only: an independent reference for the INT8 requantization of
// docs/systolic_npu_isa.md §9 (steps 4 and 5), written from the document's
// formulas with none of quant.h's code, so that the bit-exact INT8 tests
// (test_util.h's ReferenceGemmI8, tiler_test.cc's conv reference) can see a
// requantizer bug instead of repeating it. Pinned by hand vectors in
// reference_requant_test.cc.
//
//   M = s_in * s_w[c] / s_out                        (double)
//   M = q * 2^shift, q in [0.5, 1); q31 = round_half_away(q * 2^31);
//     q31 == 2^31 -> q31 = 2^30, shift + 1; shift < -31 -> 0; shift > 30 -> 30
//   x   = acc * 2^max(shift, 0), wrapped to 32 bits
//   h   = x * q31 / 2^31 rounded half up (toward +inf), the doc's
//         (x*q31 + (x*q31 >= 0 ? 2^30 : 1 - 2^30)) / 2^31 truncating
//   v   = h / 2^max(-shift, 0) rounded half away from zero
//   out = clamp(v + zp_out, act_min, act_max), max first, then min
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_REFERENCE_REQUANT_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_REFERENCE_REQUANT_H_

#include <cmath>
#include <cstdint>

#include "plugins/systolic_npu/machine/quant.h"  // the Activation tag only

namespace tessera::systolic::snpu_test {

struct RefMultiplier {
  int64_t q31 = 0;
  int shift = 0;
};

inline RefMultiplier RefQuantizeMultiplier(double m) {
  if (!(m > 0) || !std::isfinite(m)) return {};
  // m = q * 2^shift by exact halvings and doublings (no frexp).
  int shift = 0;
  double q = m;
  while (q >= 1.0) {
    q /= 2;
    ++shift;
  }
  while (q < 0.5) {
    q *= 2;
    --shift;
  }
  int64_t q31 = std::llround(q * 2147483648.0);  // exact product; ties away from zero
  if (q31 == 2147483648LL) {
    q31 = 1073741824LL;
    ++shift;
  }
  if (shift < -31) return {};
  if (shift > 30) return {2147483647LL, 30};
  return {q31, shift};
}

// floor(a / b) for b > 0.
inline int64_t RefFloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// x * q31 / 2^31 rounded half toward +inf (-1.5 -> -1, 1.5 -> 2).
inline int64_t RefHighMul(int64_t x, int64_t q31) {
  if (x == INT32_MIN && q31 == INT32_MIN) return INT32_MAX;
  return RefFloorDiv(x * q31 + (int64_t{1} << 30), int64_t{1} << 31);
}

// x / 2^e rounded half away from zero.
inline int64_t RefDivPow2(int64_t x, int e) {
  if (e == 0) return x;
  const int64_t mag = x < 0 ? -x : x;
  const int64_t r = (mag + (int64_t{1} << (e - 1))) >> e;
  return x < 0 ? -r : r;
}

inline int32_t RefWrap32(int64_t v) {
  const int64_t m = ((v % 4294967296LL) + 4294967296LL) % 4294967296LL;
  return static_cast<int32_t>(m >= 2147483648LL ? m - 4294967296LL : m);
}

inline int8_t RefRequantize(int32_t acc, const RefMultiplier& q, int32_t zp, int32_t act_min, int32_t act_max) {
  const int left = q.shift > 0 ? q.shift : 0, right = q.shift < 0 ? -q.shift : 0;
  const int64_t x = RefWrap32(static_cast<int64_t>(acc) * (int64_t{1} << left));
  int64_t v = RefDivPow2(RefHighMul(x, q.q31), right) + zp;
  if (v > act_max) v = act_max;
  if (v < act_min) v = act_min;
  if (v > 127) v = 127;
  if (v < -128) v = -128;
  return static_cast<int8_t>(v);
}

struct RefRange {
  int32_t min = -128, max = 127;
};

// The fused activation range in the quantized domain (§9 steps 4, 5):
// NONE [-128, 127]; RELU [max(-128, zp), 127]; CLIP(lo, hi)
// [zp + round_half_away(f32(lo / s)), zp + round_half_away(f32(hi / s))]
// within [-128, 127], an infinite bound leaving its side open, an empty
// range collapsing to its upper bound.
inline RefRange RefActivationRange(Activation kind, float lo, float hi, float s, int32_t zp) {
  RefRange r;
  auto bound = [&](float v) {
    const float d = v / s;  // the division in FP32
    const double b = zp + std::round(static_cast<double>(d));
    return static_cast<int32_t>(b < -128 ? -128 : (b > 127 ? 127 : b));
  };
  if (kind == Activation::kRelu && zp > -128) r.min = zp > 127 ? 127 : zp;
  if (kind == Activation::kClip) {
    if (std::isfinite(lo)) r.min = bound(lo);
    if (std::isfinite(hi)) r.max = bound(hi);
  }
  if (r.min > r.max) r.min = r.max;
  return r;
}

}  // namespace tessera::systolic::snpu_test

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_REFERENCE_REQUANT_H_
