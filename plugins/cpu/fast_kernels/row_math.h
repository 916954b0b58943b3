// Row reductions shared by the REDUCE_* and LAYER_NORM fast kernels: sums
// in f64 over eight independent lanes. Eight lanes so that the loop
// vectorizes without reassociating a single accumulator (which the
// compiler may not do without -ffast-math); f64 so that the result stays
// within an ulp or so of the reference kernels' sequential f64 sum.
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_ROW_MATH_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_ROW_MATH_H_

#include <cstdint>

#include "plugins/cpu/fast_kernels/loop_op.h"

namespace tessera::cpu::fast::detail {

// sum_i x[i]
double SumRow(const float* x, int64_t n);
// sum_i (x[i] - mean)^2
double SquaredDeviationRow(const float* x, int64_t n, double mean);
// max_i x[i]; NaN if any x[i] is NaN (n >= 1)
float MaxRow(const float* x, int64_t n);

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_ROW_MATH_H_
