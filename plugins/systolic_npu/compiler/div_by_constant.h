// DIV whose divisor is a constant runs as MUL by the divisor's reciprocal
// on the vector unit (docs/systolic_npu_isa.md §9 "DIV by a constant"): the NPU has no divider.
// The reciprocal is taken once, at compile time, in the divisor's dtype.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_DIV_BY_CONSTANT_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_DIV_BY_CONSTANT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/compiler/refusal.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

// The bytes of 1 / c for every element c of the constant divisor `b`
// (f32: rn32(1 / c); f16: rn16(rn32(1 / c))), in b's dtype and shape.
// Refuses (TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE) a divisor whose reciprocal
// is not a normal number of the dtype: x * rn(1/c) would then be far from
// x / c (overflow to inf, or a subnormal that has lost its precision).
// c = ±0, ±inf and NaN are kept: their reciprocals ±inf, ±0 and NaN give
// IEEE's x / c exactly (x / 0 = ±inf, 0 / 0 = NaN, x / inf = 0).
absl::StatusOr<std::vector<uint8_t>> DivisorReciprocal(const kit::SnapshotTensor& b, Why* why);

// INT8 DIV by a constant: no reciprocal (x * rn(1/c) is not bit exact
// against docs/ops.md's f32 division), but one 256-entry VECTOR TABLE per
// element of the int8 divisor `b` (a scalar: one; per channel: C), entry
// q + 128 = the quantized DIV of input q (int8_tables.h).
absl::StatusOr<std::vector<uint8_t>> Int8DivisionTables(const kit::SnapshotTensor& b,
                                                        const ElementwiseLayer& L, Why* why);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_DIV_BY_CONSTANT_H_
