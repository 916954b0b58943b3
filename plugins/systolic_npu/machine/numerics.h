// What the NPU declares about the precision of a compiled entry point
// (the dispatch ABI's executable_numerics). FP16 compute is detected from
// the instruction stream itself, so the declaration can never disagree with
// what actually runs.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_NUMERICS_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_NUMERICS_H_

#include "plugins/systolic_npu/machine/program.h"

namespace tessera::systolic {

// The declared tolerance of FP16 compute against an FP32 reference,
// |y - y_ref| <= kFp16AbsoluteTolerance + kFp16RelativeTolerance * |y_ref|.
// docs/systolic_npu_isa.md §9 bounds one output by
// (2u16 + u16^2 + γ_{K+1}(1+u16)^2) Σ|x||w| + u32|b| ≈ 2^-10 Σ|x||w| for
// K < 2^13; without heavy cancellation (Σ|x||w| within 2x of |y|) that is
// within 2^-9 |y|. The absolute term covers outputs near zero for operands
// of unit scale. Outputs stored as F16 add one more rounding (2^-11 |y|).
inline constexpr double kFp16RelativeTolerance = 1.0 / 512;  // 2^-9
inline constexpr double kFp16AbsoluteTolerance = 1.0 / 512;

// True when any instruction of `entry` computes in FP16: a matrix tile with
// F16 operands, a DMA that converts between F32 and F16 (either way: data
// that passes through F16 was computed in F16), or a vector op on F16 data
// (except QUANTIZE / DEQUANTIZE, bit exact against the reference).
// Everything else the NPU does to floats (bias, activations, F32 ADD/MUL,
// pooling) is FP32, and INT8 is exact against the reference pipeline.
bool ComputesInFp16(const EntryPoint& entry);

// True when any VECTOR instruction of `entry` evaluates a function table
// (SIGMOID, TANH, EXP): FP32 entries then declare the tables' bound
// (lookup_tables.h) instead of plain FP32.
bool UsesLookupTables(const EntryPoint& entry);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_NUMERICS_H_
