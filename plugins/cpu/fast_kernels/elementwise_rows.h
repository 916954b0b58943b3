// The row loops of the elementwise loop kernels, shared by the one-op
// kernels (unary_kernels.cc, binary_loop_kernels.cc) and the fused
// elementwise groups (elementwise_group_kernels.cc), so that a fused group
// computes exactly what the same ops would one by one.
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_ELEMENTWISE_ROWS_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_ELEMENTWISE_ROWS_H_

#include <cstdint>

namespace tessera::cpu::fast::detail {

// NEG ABS SQRT RSQRT EXP LOG SIN COS TANH SIGMOID RELU ERF, and CLIP to
// [lo, hi]: y[i] = op(x[i]).
void UnaryRow(int32_t op, const float* x, float* y, int64_t n, float lo, float hi);
bool IsLoopUnary(int32_t op);  // the ops UnaryRow takes (CLIP included)
// y[i] = pow(x[i], e), 2 3 0.5 1 0 -1 special-cased.
void PowRow(double e, const float* x, float* y, int64_t n);
// ADD SUB MUL DIV MAXIMUM MINIMUM POW: y[i] = a[i * sa] op b[i * sb],
// sa and sb each 0 or 1.
void ArithmeticRow(int32_t op, const float* a, int64_t sa, const float* b, int64_t sb, float* y, int64_t n);

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_ELEMENTWISE_ROWS_H_
