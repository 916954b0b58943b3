// How much arithmetic an op is, for the cost model: floating-point (or
// integer) operations counted from its shapes alone, so every policy and
// every SoC sees the same number.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_OP_WORK_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_OP_WORK_H_

#include "framework/core/graph/graph.h"

namespace tessera {

struct OpWork {
  double ops = 0;     // multiply and add count separately: a MAC is 2
  bool int8 = false;  // runs at the CPU's INT8 rate (quantized operands)
};

// The counting rules (docs/partitioning.md, "The cost model"):
//   MATMUL, FULLY_CONNECTED  2 x output elements x K
//   CONV_2D                  2 x output elements x (weight elements / Cout)
//   CONV_TRANSPOSE_2D        2 x input elements x (weight elements / Cin)
//   pools                    output elements x window
//   reductions, softmax,     input elements x a per-element factor
//   layer norm
//   transcendentals          8 x output elements
//   other elementwise, data  1 x output element
//   movement
//   RESHAPE, SQUEEZE,        0 (a view)
//   UNSQUEEZE, DISPATCH
OpWork WorkOf(const Graph& graph, const Op& op);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_OP_WORK_H_
