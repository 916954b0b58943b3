// Per-family entry points used by the dispatcher (reference_ops.cc).
// Check* validates arity, dtypes and quantization only (ReferenceSupports
// calls it); Run* validates shapes and attributes and computes. The
// dispatcher always runs Check* before Run*.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_OPS_INTERNAL_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_OPS_INTERNAL_H_

#include <span>

#include "absl/status/status.h"
#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu::internal {

#define TSR_DECLARE_KERNEL(Name)                                                                               \
  absl::Status Check##Name(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs); \
  absl::Status Run##Name(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,               \
                         std::span<TensorRef> outputs)

TSR_DECLARE_KERNEL(Binary);   // ADD SUB MUL DIV POW MAXIMUM MINIMUM
TSR_DECLARE_KERNEL(Unary);    // NEG ... ERF, CLIP
TSR_DECLARE_KERNEL(Compare);  // EQUAL LESS GREATER
TSR_DECLARE_KERNEL(Select);   // SELECT
TSR_DECLARE_KERNEL(Reduce);   // REDUCE_MEAN/SUM/MAX
TSR_DECLARE_KERNEL(MatMul);   // MATMUL
TSR_DECLARE_KERNEL(FullyConnected);
TSR_DECLARE_KERNEL(Conv2D);
TSR_DECLARE_KERNEL(ConvTranspose2D);  // since ABI 1.3
TSR_DECLARE_KERNEL(Resize);           // since ABI 1.3
TSR_DECLARE_KERNEL(ArgReduce);        // ARG_MAX ARG_MIN, since ABI 1.4
TSR_DECLARE_KERNEL(TopK);             // since ABI 1.4
TSR_DECLARE_KERNEL(CumSum);           // since ABI 1.4
TSR_DECLARE_KERNEL(Pool2D);           // MAX_POOL_2D AVG_POOL_2D
TSR_DECLARE_KERNEL(GlobalAvgPool);
TSR_DECLARE_KERNEL(Softmax);
TSR_DECLARE_KERNEL(LayerNorm);
TSR_DECLARE_KERNEL(Reshape);  // RESHAPE SQUEEZE UNSQUEEZE
TSR_DECLARE_KERNEL(Transpose);
TSR_DECLARE_KERNEL(Concat);
TSR_DECLARE_KERNEL(Gather);
TSR_DECLARE_KERNEL(Slice);
TSR_DECLARE_KERNEL(Pad);
TSR_DECLARE_KERNEL(Cast);
TSR_DECLARE_KERNEL(Quantize);
TSR_DECLARE_KERNEL(Dequantize);

#undef TSR_DECLARE_KERNEL

}  // namespace tessera::cpu::internal

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_OPS_INTERNAL_H_
