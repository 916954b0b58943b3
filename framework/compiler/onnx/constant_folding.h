// Constant folding: runs one op on constant tensors with the cpu reference
// kernels (the numerical oracle, docs/ops.md), so a folded value is exactly
// what the op would have produced at run time.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_CONSTANT_FOLDING_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_CONSTANT_FOLDING_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"
#include "framework/core/graph/shape_inference.h"

namespace tessera::onnx_import {

// `inputs` may hold nullptr for an omitted optional input. Each output may
// hold at most `max_output_bytes` (the import's folding budget).
absl::StatusOr<std::vector<HostTensor>> FoldConstantOp(int32_t op_type, const std::map<int32_t, Attribute>& attrs,
                                                       const std::vector<const Tensor*>& inputs,
                                                       const std::vector<TensorType>& outputs,
                                                       const std::vector<Quantization>& output_quants,
                                                       int64_t max_output_bytes);

// Writes `value` as element `i` of a tensor of `dtype` (float->int truncates
// and saturates like CAST; f16 rounds to nearest even; bool = value != 0).
void StoreElement(int32_t dtype, double value, uint8_t* data, int64_t i);
// Reads element `i` as a double (f16 widened; bool 0/1).
double LoadElement(int32_t dtype, const uint8_t* data, int64_t i);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_CONSTANT_FOLDING_H_
