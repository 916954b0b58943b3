// ONNX TensorProto / TypeProto -> Tessera dtypes and host tensors.
#ifndef TESSERA_FRAMEWORK_ONNX_INITIALIZERS_H_
#define TESSERA_FRAMEWORK_ONNX_INITIALIZERS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/host_tensor.h"
#include "onnx.pb.h"

namespace tessera::onnx_import {

// tsr_dtype of an ONNX TensorProto.DataType; Unimplemented for types the op
// set has no dtype for (DOUBLE, STRING, BFLOAT16, ...).
absl::StatusOr<int32_t> DTypeFromOnnx(int32_t onnx_type);
int32_t OnnxFromDType(int32_t dtype);

// An initializer or attribute tensor with its data (raw_data or the typed
// repeated fields). External data and segments are refused.
absl::StatusOr<HostTensor> ConvertTensorProto(const onnx::TensorProto& proto);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_ONNX_INITIALIZERS_H_
