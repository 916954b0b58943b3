// VECTOR DEPTHWISE: a depthwise convolution on the vector unit
// (docs/systolic_npu_isa.md, "VECTOR DEPTHWISE").
//
//   src0: rows = channels (f3), cols = in_h * in_w (f4), operand dtype b
//         (I8 or F16), one NCHW plane per row;
//   src1: weights, taps x channels, tap-major (tap = kh * kernel_w + kw,
//         f6 = kernel_h * kernel_w taps), operand dtype;
//   dst:  (out_h * out_w) x channels, position-major, result dtype c
//         (I8 -> I32, F16 -> F32), so that BIAS_ADD and REQUANTIZE act per
//         channel (per column) and a strided DMA_STORE writes NCHW;
//   f5:   a POOL descriptor for the window geometry (count_include_pad,
//         pad_bottom and pad_right must be 0: the input's extent bounds
//         the window); its pad_value is what a padded tap reads (I8: the
//         input zero point, which the compiler folds into the bias as the
//         matrix unit's IM2COL padding does; float: must be 0, and padded
//         taps are skipped).
//
// I8: dst = sum over taps of x * w in int32 (exact). F16: products of the
// f16 operands in fp32, summed in fp32 in tap order (kh, then kw).
// Cycles: the pooling formula, one pass per tap.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_DEPTHWISE_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_DEPTHWISE_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/program.h"

namespace tessera::systolic {

// The taps k in [0, count) whose position start + k * step lies in
// [lo, hi): an interval [*first, *last). Shared by pooling and DEPTHWISE.
inline void TapRange(int64_t start, int64_t step, int64_t count, int64_t lo, int64_t hi, int64_t* first,
                     int64_t* last) {
  const int64_t a = start >= lo ? 0 : (lo - start + step - 1) / step;
  const int64_t b = start >= hi ? 0 : (hi - 1 - start) / step + 1;
  *first = std::min(a, count);
  *last = std::max(*first, std::min(b, count));
}

// What is wrong with a DEPTHWISE instruction's dtypes, tap count and
// descriptor (whose kind the caller has checked), or "" when nothing is.
// SRAM ranges are the caller's to check.
std::string DepthwiseProblem(const Program& p, const Instruction& in);

// Executes a verified DEPTHWISE: reads src0 and src1, writes `out`
// (VectorResultBytes bytes).
void ExecuteDepthwise(const Program& p, const Instruction& in, const uint8_t* src0, const uint8_t* src1, uint8_t* out);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_DEPTHWISE_H_
