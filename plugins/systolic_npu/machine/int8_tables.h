// The 256-entry tables of VECTOR TABLE, built at compile time: the INT8
// SIGMOID / TANH / EXP and DIV by a constant of docs/ops.md. Each entry is
// the reference pipeline applied to one int8 input value, so a lookup is
// bit exact by construction (docs/systolic_npu_isa.md §9 "INT8 tables").
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_INT8_TABLES_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_INT8_TABLES_H_

#include <array>
#include <cstdint>

namespace tessera::systolic {

using Int8Table = std::array<int8_t, 256>;  // entry q + 128 for input q

enum class Int8Function : uint8_t { kSigmoid, kTanh, kExp };

// T[q + 128] = QuantizeToInt8(f32(f(DequantizeInt8(q))), out): f in f64 as
// the cpu reference evaluates it for an f32 tensor (SIGMOID without
// overflow both ways), rounded once to f32.
Int8Table Int8FunctionTable(Int8Function f, float in_scale, int32_t in_zero_point, float out_scale,
                            int32_t out_zero_point);

// T[q + 128] = QuantizeToInt8(f32(DequantizeInt8(q) / divisor), out), one
// f32 division: the quantized DIV of docs/ops.md for a divisor whose real
// value (DequantizeInt8 of its stored byte) is `divisor`.
Int8Table Int8DivisionTable(float in_scale, int32_t in_zero_point, float divisor, float out_scale,
                            int32_t out_zero_point);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_INT8_TABLES_H_
