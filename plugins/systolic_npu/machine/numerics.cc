#include "plugins/systolic_npu/machine/numerics.h"

#include "plugins/systolic_npu/machine/isa.h"
#include "tessera/common.h"

namespace tessera::systolic {

bool ComputesInFp16(const EntryPoint& entry) {
  for (const Instruction& in : entry.code) {
    switch (in.op) {
      case Opcode::kMatmulTile:
        if (in.b == TSR_DTYPE_F16) return true;
        break;
      case Opcode::kDmaLoad:   // b = DRAM dtype | SRAM dtype << 4
      case Opcode::kDmaStore:  // b = SRAM dtype | DRAM dtype << 4
        if (DmaFirstDtype(in.b) != DmaSecondDtype(in.b) &&
            (DmaFirstDtype(in.b) == TSR_DTYPE_F16 || DmaSecondDtype(in.b) == TSR_DTYPE_F16))
          return true;
        break;
      case Opcode::kVector: {
        // QUANTIZE / DEQUANTIZE compute docs/ops.md's f32 formula and round
        // to f16 exactly where the reference does: bit exact, not FP16
        // compute.
        const VectorOp op = static_cast<VectorOp>(in.a);
        if (op == VectorOp::kQuantize || op == VectorOp::kDequantize) break;
        if (in.b == TSR_DTYPE_F16 || in.c == TSR_DTYPE_F16) return true;
        break;
      }
      default:
        break;
    }
  }
  return false;
}

bool UsesLookupTables(const EntryPoint& entry) {
  for (const Instruction& in : entry.code)
    if (in.op == Opcode::kVector && IsLookupTableVectorOp(static_cast<VectorOp>(in.a))) return true;
  return false;
}

}  // namespace tessera::systolic
