// Which class of cpu work an op is, for the cost model's per-class cpu
// efficiency ([cpu] efficiency_CLASS in the SoC description, docs/soc.md
// §4.3): a phone cpu runs a GEMM near its peak, but a depthwise
// convolution, an elementwise op or a transpose far below it, because they
// do little arithmetic per byte they touch. The classes are the order of
// kit::CpuOpClassNames().
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_CPU_OP_CLASS_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_CPU_OP_CLASS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "framework/core/graph/graph.h"

namespace tessera {

enum class CpuOpClass : uint8_t {
  kGemm = 0,          // MATMUL, FULLY_CONNECTED, dense CONV_2D, CONV_TRANSPOSE_2D
  kDepthwise = 1,     // grouped CONV_2D (groups > 1, depthwise included)
  kElementwise = 2,   // arithmetic, activations, transcendentals, casts, (de)quantize,
                      // SOFTMAX and LAYER_NORM (counted as 12 and 8 elementwise
                      // ops per element, op_work.h)
  kReduction = 3,     // reductions, pools, ARG_MAX/MIN, TOP_K, CUM_SUM: one op per
                      // input element read
  kDataMovement = 4,  // TRANSPOSE, SLICE, CONCAT, GATHER, PAD, RESIZE, SELECT
};

// The class an op's cpu time is priced in. Views (RESHAPE, SQUEEZE,
// UNSQUEEZE) and DISPATCH do no work (op_work.h) and are counted as data
// movement.
CpuOpClass ClassOf(const Op& op);

std::string_view CpuOpClassName(CpuOpClass c);  // "gemm", ... as in the SoC file
std::optional<CpuOpClass> CpuOpClassFromName(std::string_view name);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_CPU_OP_CLASS_H_
