// Functional semantics of VECTOR instructions (docs/systolic_npu_isa.md).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_UNIT_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_UNIT_H_

#include <cstdint>

#include "plugins/systolic_npu/machine/element_access.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/program.h"

namespace tessera::systolic {

// banks[0..2]: input, weight and accumulator SRAM. `in` must be verified.
void ExecuteVector(const Program& p, const Instruction& in, uint8_t* banks[3]);

// Bytes a VECTOR instruction writes at its dst (f2).
uint64_t VectorResultBytes(const Program& p, const Instruction& in);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_VECTOR_UNIT_H_
