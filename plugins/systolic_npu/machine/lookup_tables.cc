#include "plugins/systolic_npu/machine/lookup_tables.h"

#include <cmath>
#include <vector>

namespace tessera::systolic {
namespace {

// Samples f(j / per_unit) for j = 0..count-1, each rounded once to f32.
template <typename F>
std::vector<float> Samples(int count, double per_unit, F f) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int j = 0; j < count; ++j) v[static_cast<size_t>(j)] = static_cast<float>(f(j / per_unit));
  return v;
}

const std::vector<float>& Exp2Table() {
  static const std::vector<float> t = Samples(257, 256.0, [](double f) { return std::exp2(f); });
  return t;
}
const std::vector<float>& SigmoidTable() {
  static const std::vector<float> t = Samples(2049, 128.0, [](double a) { return 1.0 / (1.0 + std::exp(-a)); });
  return t;
}
const std::vector<float>& TanhTable() {
  static const std::vector<float> t = Samples(2305, 256.0, [](double a) { return std::tanh(a); });
  return t;
}

// p >= 0 (the callers range-check first). p may land exactly on the last
// sample: the callers' range checks are on x, and the scaling rounds (an
// exp2 fraction 1 - 1e-9 rounds to 1.0f; a sigmoid argument just below 16
// scales to 2048.0f). The last sample is then the value, not an
// interpolation past the table's end (ASan caught the read).
float Interp(const std::vector<float>& v, float p) {
  const float fi = std::floor(p);
  const size_t i = static_cast<size_t>(fi);
  if (i + 1 >= v.size()) return v.back();
  const float u = p - fi;  // exact: p and fi share their leading bits
  return v[i] + u * (v[i + 1] - v[i]);
}

}  // namespace

float LutExp(float x) {
  if (std::isnan(x)) return x;
  const float t = x * 1.44269502f;  // fl32(log2 e)
  if (t >= 128.0f) return INFINITY;
  if (t < -150.0f) return 0.0f;
  const float k = std::floor(t);
  const float f = t - k;  // exact, in [0, 1)
  return std::ldexp(Interp(Exp2Table(), f * 256.0f), static_cast<int>(k));
}

float LutSigmoid(float x) {
  if (std::isnan(x)) return x;
  const float a = std::fabs(x);
  const float s = a >= 16.0f ? 1.0f : Interp(SigmoidTable(), a * 128.0f);
  return x >= 0.0f ? s : LutExp(x) * s;
}

float LutTanh(float x) {
  if (std::isnan(x)) return x;
  const float a = std::fabs(x);
  const float y = a >= 9.0f ? 1.0f : Interp(TanhTable(), a * 256.0f);
  return std::copysign(y, x);
}

}  // namespace tessera::systolic
