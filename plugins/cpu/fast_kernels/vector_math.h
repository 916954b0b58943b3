// f32 exp, tanh and erf written as straight-line arithmetic and selects, so
// that a loop calling them vectorizes (libm's expf/tanhf/erff are calls the
// compiler cannot vectorize without -ffast-math, which would also drop the
// NaN/inf handling). oneDNN has JIT exp/tanh, but its exp turns NaN into
// +inf and flushes results in the denormal range to 0; these keep the
// reference kernels' IEEE behaviour: NaN in, NaN out; exp(-inf) = 0,
// exp(+inf) = +inf; results in the denormal range are rounded, not flushed.
//
// Accuracy: Cephes' expf polynomial (about 1 ulp on the reduced range,
// plus one rounding in the 2^n scaling), well inside kFastRelTolerance.
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_VECTOR_MATH_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_VECTOR_MATH_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tessera::cpu::fast::detail {

[[gnu::always_inline]] inline float ExpF(float x) {
  const float inf = std::numeric_limits<float>::infinity();
  // Clamped so that n below stays in [-150, 128] (a NaN becomes -104: the
  // float-to-int conversion of a NaN would be undefined); the true limits
  // and NaN are applied after (ln(FLT_MAX) and ln(2^-149 / 2)).
  float xc = x > -104.0f ? x : -104.0f;
  xc = xc < 89.0f ? xc : 89.0f;
  // n = round(x / ln 2) with the 1.5 * 2^23 trick (SSE2 has no round).
  const float magic = 12582912.0f;
  const float n = (xc * 1.44269504088896341f + magic) - magic;
  // r = x - n ln 2 in two parts (Cody-Waite), |r| <= ln 2 / 2.
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n as two normal powers of two: a single one would not reach the
  // denormal range (n < -126) or 2^128.
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  const float s1 = std::bit_cast<float>(static_cast<int32_t>((n1 + 127) * (1 << 23)));
  const float s2 = std::bit_cast<float>(static_cast<int32_t>((n2 + 127) * (1 << 23)));
  float y = p * s1 * s2;
  y = x > 88.72283935546875f ? inf : y;
  y = x < -103.97208404541015625f ? 0.0f : y;
  return x != x ? x : y;
}

// tanh: Cephes' odd polynomial for |x| < 0.625 (no cancellation near 0,
// denormals pass through as x), 1 - 2 / (exp(2|x|) + 1) with the sign of x
// above it (exp overflowing to inf gives exactly +-1).
[[gnu::always_inline]] inline float TanhF(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  // z == 0 (x = +-0 or a tiny denormal): x itself, which keeps tanh(-0) = -0.
  const float small = z == 0.0f ? x : p * z * x + x;
  const float big = 1.0f - 2.0f / (ExpF(2.0f * ax) + 1.0f);
  const float signed_big = x < 0.0f ? -big : big;
  return ax < 0.625f ? small : signed_big;  // NaN: ax < 0.625 is false, big is NaN
}

// erf: its Taylor series (11 terms, odd in x) for |x| < 0.9, and
// 1 - erfc(|x|) with the sign of x above, erfc from Numerical Recipes'
// erfcc (t exp(-x^2 + P(t)), t = 1 / (1 + |x| / 2)). Measured at <= 2.9 ulp
// over [-6, 6]; erf(+-inf) = +-1, NaN stays NaN, denormals scale by
// 2/sqrt(pi) like the f64 reference.
[[gnu::always_inline]] inline float ErfF(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  // 2/sqrt(pi) (-1)^n / (n! (2n + 1)), n = 10 down to 0.
  float p = 1.4807192815879218e-08f;
  p = p * z - 1.6365844691234924e-07f;
  p = p * z + 1.6462114365889246e-06f;
  p = p * z - 1.492565035840625e-05f;
  p = p * z + 0.00012055332981789664f;
  p = p * z - 0.00085483270234508522f;
  p = p * z + 0.0052239776254421879f;
  p = p * z - 0.026866170645131252f;
  p = p * z + 0.11283791670955126f;
  p = p * z - 0.37612638903183754f;
  p = p * z + 1.1283791670955126f;
  const float small = x * p;
  const float t = 1.0f / (1.0f + 0.5f * ax);
  float q = 0.17087277f;
  q = q * t - 0.82215223f;
  q = q * t + 1.48851587f;
  q = q * t - 1.13520398f;
  q = q * t + 0.27886807f;
  q = q * t - 0.18628806f;
  q = q * t + 0.09678418f;
  q = q * t + 0.37409196f;
  q = q * t + 1.00002368f;
  q = q * t - 1.26551223f;
  const float big = 1.0f - t * ExpF(-z + q);  // z = inf: ExpF(-inf) = 0, big = 1
  const float signed_big = x < 0.0f ? -big : big;
  return ax < 0.9f ? small : signed_big;  // NaN: ax < 0.9 is false, big is NaN
}

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_VECTOR_MATH_H_
