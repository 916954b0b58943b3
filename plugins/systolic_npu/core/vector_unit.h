// Functional semantics of VECTOR instructions (docs/systolic_npu_isa.md).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_VECTOR_UNIT_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_VECTOR_UNIT_H_

#include <cstdint>

#include "isa.h"
#include "program.h"

namespace tessera::systolic {

// banks[0..2]: input, weight and accumulator SRAM. `in` must be verified.
void ExecuteVector(const Program& p, const Instruction& in, uint8_t* banks[3]);

// Element access helpers shared with the DMA engine.
float LoadFloat(const uint8_t* p, int32_t dtype);            // F32 / F16
void StoreFloat(uint8_t* p, int32_t dtype, float v);         // F16 rounds
int32_t LoadInt(const uint8_t* p, int32_t dtype);            // I8 / I32
void StoreInt(uint8_t* p, int32_t dtype, int32_t v);         // I8 truncates

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_VECTOR_UNIT_H_
