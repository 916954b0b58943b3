#include "plugins/cpu/fast_kernels/row_math.h"

#include <limits>

namespace tessera::cpu::fast::detail {

constexpr int kLanes = 8;

TSR_VECTOR_CLONES double SumRow(const float* x, int64_t n) {
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += x[i + k];
  double s = 0;
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  for (; i < n; ++i) s += x[i];
  return s;
}

TSR_VECTOR_CLONES double SquaredDeviationRow(const float* x, int64_t n, double mean) {
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      const double d = x[i + k] - mean;
      acc[k] += d * d;
    }
  double s = 0;
  for (int k = 0; k < kLanes; ++k) s += acc[k];
  for (; i < n; ++i) {
    const double d = x[i] - mean;
    s += d * d;
  }
  return s;
}

// A lane that has seen a NaN keeps it: v > NaN is false and v != v only
// for a NaN v.
[[gnu::always_inline]] inline float MaxStep(float acc, float v) { return (v != v || v > acc) ? v : acc; }

TSR_VECTOR_CLONES float MaxRow(const float* x, int64_t n) {
  float acc[kLanes];
  for (int k = 0; k < kLanes; ++k) acc[k] = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] = MaxStep(acc[k], x[i + k]);
  float m = acc[0];
  for (int k = 1; k < kLanes; ++k) m = MaxStep(m, acc[k]);
  for (; i < n; ++i) m = MaxStep(m, x[i]);
  return m;
}

}  // namespace tessera::cpu::fast::detail
