#include "framework/compiler/partition/cpu_op_class.h"

#include "support/soc/soc_format.h"
#include "tessera/ops.h"

namespace tessera {

CpuOpClass ClassOf(const Op& op) {
  switch (op.type) {
    case TSR_OP_MATMUL:
    case TSR_OP_FULLY_CONNECTED:
    case TSR_OP_CONV_TRANSPOSE_2D:
      return CpuOpClass::kGemm;
    case TSR_OP_CONV_2D: {
      const Attribute* groups = op.FindAttr(TSR_ATTR_GROUPS);
      const bool grouped = groups != nullptr && !groups->ints.empty() && groups->ints[0] > 1;
      return grouped ? CpuOpClass::kDepthwise : CpuOpClass::kGemm;
    }
    case TSR_OP_REDUCE_MEAN:
    case TSR_OP_REDUCE_SUM:
    case TSR_OP_REDUCE_MAX:
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
    case TSR_OP_GLOBAL_AVG_POOL:
    case TSR_OP_ARG_MAX:
    case TSR_OP_ARG_MIN:
    case TSR_OP_TOP_K:
    case TSR_OP_CUM_SUM:
      return CpuOpClass::kReduction;
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_DISPATCH:
    case TSR_OP_TRANSPOSE:
    case TSR_OP_SLICE:
    case TSR_OP_CONCAT:
    case TSR_OP_GATHER:
    case TSR_OP_PAD:
    case TSR_OP_RESIZE:
    case TSR_OP_SELECT:
      return CpuOpClass::kDataMovement;
    default:
      return CpuOpClass::kElementwise;
  }
}

std::string_view CpuOpClassName(CpuOpClass c) { return kit::CpuOpClassNames()[static_cast<size_t>(c)]; }

std::optional<CpuOpClass> CpuOpClassFromName(std::string_view name) {
  for (size_t c = 0; c < kit::kCpuOpClassCount; ++c)
    if (kit::CpuOpClassNames()[c] == name) return static_cast<CpuOpClass>(c);
  return std::nullopt;
}

}  // namespace tessera
