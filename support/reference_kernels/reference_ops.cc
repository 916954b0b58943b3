// The dispatcher: maps each op to its family's Check/Run pair.
// RunReferenceOp = Check (arity, dtypes, quantization) + Run (shapes,
// attributes, compute). ReferenceSupports = Check only, so both agree.
#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_api.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu {
namespace {

using CheckFn = absl::Status (*)(int32_t, std::span<const TensorRef>, std::span<const TensorRef>);
using RunFn = absl::Status (*)(int32_t, const Attributes&, std::span<const TensorRef>, std::span<TensorRef>);
struct Kernel {
  CheckFn check = nullptr;
  RunFn run = nullptr;
};

Kernel Lookup(int32_t op) {
  using namespace internal;
  switch (op) {
    case TSR_OP_ADD:
    case TSR_OP_SUB:
    case TSR_OP_MUL:
    case TSR_OP_DIV:
    case TSR_OP_POW:
    case TSR_OP_MAXIMUM:
    case TSR_OP_MINIMUM:
      return {CheckBinary, RunBinary};
    case TSR_OP_NEG:
    case TSR_OP_ABS:
    case TSR_OP_SQRT:
    case TSR_OP_RSQRT:
    case TSR_OP_EXP:
    case TSR_OP_LOG:
    case TSR_OP_SIN:
    case TSR_OP_COS:
    case TSR_OP_TANH:
    case TSR_OP_SIGMOID:
    case TSR_OP_RELU:
    case TSR_OP_CLIP:
    case TSR_OP_ERF:
      return {CheckUnary, RunUnary};
    case TSR_OP_EQUAL:
    case TSR_OP_LESS:
    case TSR_OP_GREATER:
      return {CheckCompare, RunCompare};
    case TSR_OP_SELECT:
      return {CheckSelect, RunSelect};
    case TSR_OP_REDUCE_MEAN:
    case TSR_OP_REDUCE_SUM:
    case TSR_OP_REDUCE_MAX:
      return {CheckReduce, RunReduce};
    case TSR_OP_MATMUL:
      return {CheckMatMul, RunMatMul};
    case TSR_OP_FULLY_CONNECTED:
      return {CheckFullyConnected, RunFullyConnected};
    case TSR_OP_CONV_2D:
      return {CheckConv2D, RunConv2D};
    case TSR_OP_CONV_TRANSPOSE_2D:
      return {CheckConvTranspose2D, RunConvTranspose2D};
    case TSR_OP_RESIZE:
      return {CheckResize, RunResize};
    case TSR_OP_ARG_MAX:
    case TSR_OP_ARG_MIN:
      return {CheckArgReduce, RunArgReduce};
    case TSR_OP_TOP_K:
      return {CheckTopK, RunTopK};
    case TSR_OP_CUM_SUM:
      return {CheckCumSum, RunCumSum};
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
      return {CheckPool2D, RunPool2D};
    case TSR_OP_GLOBAL_AVG_POOL:
      return {CheckGlobalAvgPool, RunGlobalAvgPool};
    case TSR_OP_SOFTMAX:
      return {CheckSoftmax, RunSoftmax};
    case TSR_OP_LAYER_NORM:
      return {CheckLayerNorm, RunLayerNorm};
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
      return {CheckReshape, RunReshape};
    case TSR_OP_TRANSPOSE:
      return {CheckTranspose, RunTranspose};
    case TSR_OP_SLICE:
      return {CheckSlice, RunSlice};
    case TSR_OP_CONCAT:
      return {CheckConcat, RunConcat};
    case TSR_OP_GATHER:
      return {CheckGather, RunGather};
    case TSR_OP_PAD:
      return {CheckPad, RunPad};
    case TSR_OP_CAST:
      return {CheckCast, RunCast};
    case TSR_OP_QUANTIZE:
      return {CheckQuantize, RunQuantize};
    case TSR_OP_DEQUANTIZE:
      return {CheckDequantize, RunDequantize};
    default:
      return {};
  }
}

absl::Status CheckOp(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs, Kernel* k) {
  if (op == TSR_OP_DISPATCH)
    return absl::UnimplementedError("DISPATCH is a compiled partition, not a reference kernel");
  *k = Lookup(op);
  if (!k->check)
    return absl::UnimplementedError(absl::StrCat("op type ", op, " (", OpTypeName(op), ") has no reference kernel"));
  return k->check(op, inputs, outputs);
}

}  // namespace

absl::Status RunReferenceOp(int32_t op_type, const Attributes& attrs, std::span<const TensorRef> inputs,
                            std::span<TensorRef> outputs) {
  Kernel k;
  absl::Status s = CheckOp(op_type, inputs, outputs, &k);
  if (!s.ok()) return s;
  return k.run(op_type, attrs, inputs, outputs);
}

bool ReferenceSupports(int32_t op_type, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                       std::string* reason) {
  Kernel k;
  absl::Status s = CheckOp(op_type, inputs, outputs, &k);
  if (!s.ok() && reason) *reason = std::string(s.message());
  if (s.ok() && reason) reason->clear();
  return s.ok();
}

}  // namespace tessera::cpu
