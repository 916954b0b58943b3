// VECTOR SOFTMAX (docs/systolic_npu_isa.md, "VECTOR SOFTMAX"): a softmax
// over each row of a rows x cols F32 or F16 tile, from the vector unit's
// parts: a running row max, the EXP table (lookup_tables.h), a row sum, one
// reciprocal per row and a scale.
//   per row r, every step an f32 operation:
//     m = max over c of x[r][c]          (NaN propagates)
//     e[c] = LutExp(x[r][c] - m)         (the EXP table)
//     s = e[0] + e[1] + ... (in column order)
//     y[r][c] = e[c] * (1 / s)           (rounded once to f16 for F16)
// Cycles: 4 + rows * (3 * ceil(cols / lanes) + 2 * ceil(log2 lanes) + 1):
// three lane-wide passes over the row (max, exp and sum, scale), the max and
// the sum folding their per-lane partials in ceil(log2 lanes) steps each,
// and one cycle for the reciprocal.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_SOFTMAX_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_SOFTMAX_H_

#include <cstdint>

namespace tessera::systolic {

// The cycles of one VECTOR SOFTMAX of rows x cols on `lanes` lanes.
uint64_t SoftmaxCycles(uint64_t rows, uint64_t cols, uint64_t lanes);

// Softmax of each row of `src` (rows x cols of dtype F32 or F16) into `dst`
// (same dtype and size; may not overlap `src`).
void ExecuteSoftmaxRows(int32_t dtype, uint64_t rows, uint64_t cols, const uint8_t* src, uint8_t* dst);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_SOFTMAX_H_
