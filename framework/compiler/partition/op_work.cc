#include "framework/compiler/partition/op_work.h"

#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

double Elements(const Graph& g, int32_t t) {
  return t >= 0 && static_cast<size_t>(t) < g.tensors.size() ? static_cast<double>(g.tensors[t].element_count()) : 0;
}

bool IsInt8(const Graph& g, int32_t t) {
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return false;
  const int32_t d = g.tensors[t].dtype;
  return d == TSR_DTYPE_I8 || d == TSR_DTYPE_U8;
}

double LastDim(const Graph& g, int32_t t) {
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size() || g.tensors[t].shape.empty()) return 0;
  return static_cast<double>(g.tensors[t].shape.back());
}

double Window(const Op& op) {
  const Attribute* k = op.FindAttr(TSR_ATTR_KERNEL_SHAPE);
  double w = 1;
  if (k != nullptr)
    for (int64_t d : k->ints) w *= static_cast<double>(d > 0 ? d : 1);
  return w;
}

}  // namespace

OpWork WorkOf(const Graph& g, const Op& op) {
  const int32_t in0 = op.inputs.empty() ? -1 : op.inputs[0];
  const int32_t in1 = op.inputs.size() > 1 ? op.inputs[1] : -1;
  const double out = op.outputs.empty() ? 0 : Elements(g, op.outputs[0]);
  OpWork w;
  switch (op.type) {
    case TSR_OP_MATMUL:
    case TSR_OP_FULLY_CONNECTED:
      w.ops = 2 * out * LastDim(g, in0);
      w.int8 = IsInt8(g, in0) && IsInt8(g, in1);
      break;
    case TSR_OP_CONV_2D: {
      const bool has_weight = in1 >= 0 && !g.tensors[in1].shape.empty() && g.tensors[in1].shape[0] > 0;
      const double per_output = has_weight ? Elements(g, in1) / static_cast<double>(g.tensors[in1].shape[0]) : 0;
      w.ops = 2 * out * per_output;
      w.int8 = IsInt8(g, in0) && IsInt8(g, in1);
      break;
    }
    case TSR_OP_CONV_TRANSPOSE_2D: {  // every input element times a [M/groups, kH, kW] slice
      const bool has_weight = in1 >= 0 && !g.tensors[in1].shape.empty() && g.tensors[in1].shape[0] > 0;
      const double per_input = has_weight ? Elements(g, in1) / static_cast<double>(g.tensors[in1].shape[0]) : 0;
      w.ops = 2 * Elements(g, in0) * per_input;
      break;
    }
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
      w.ops = out * Window(op);
      break;
    case TSR_OP_GLOBAL_AVG_POOL:
    case TSR_OP_REDUCE_MEAN:
    case TSR_OP_REDUCE_SUM:
    case TSR_OP_REDUCE_MAX:
      w.ops = Elements(g, in0);
      break;
    case TSR_OP_SOFTMAX:  // max, subtract, exp (8), sum, divide
      w.ops = 12 * Elements(g, in0);
      break;
    case TSR_OP_LAYER_NORM:  // mean, centre, square, mean, rsqrt, scale, shift
      w.ops = 8 * Elements(g, in0);
      break;
    case TSR_OP_EXP:
    case TSR_OP_LOG:
    case TSR_OP_SIN:
    case TSR_OP_COS:
    case TSR_OP_TANH:
    case TSR_OP_SIGMOID:
    case TSR_OP_ERF:
    case TSR_OP_POW:
    case TSR_OP_SQRT:
    case TSR_OP_RSQRT:
      w.ops = 8 * out;
      break;
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_DISPATCH:
      w.ops = 0;
      break;
    default:
      w.ops = out;
      w.int8 = IsInt8(g, in0);
      break;
  }
  return w;
}

}  // namespace tessera
