// ONNX TensorProto / TypeProto -> Tessera dtypes and host tensors.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_INITIALIZERS_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_INITIALIZERS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <onnx.pb.h>
#include "absl/status/statusor.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::onnx_import {

// tsr_dtype of an ONNX TensorProto.DataType; Unimplemented for types the op
// set has no dtype for (DOUBLE, STRING, BFLOAT16, ...).
absl::StatusOr<int32_t> DTypeFromOnnx(int32_t onnx_type);
int32_t OnnxFromDType(int32_t dtype);

// The raw_data payloads the parse left out (model_reader.h ParseModelElided),
// by marker value: spans of the model's bytes.
struct ModelPayloads {
  std::vector<std::span<const uint8_t>> bytes;
  // Owns the model's bytes when constants may reference them in place (a
  // mapped file); null when they are the caller's: then they are copied.
  std::shared_ptr<const void> owner;
};

// A converted tensor: dtype, shape and name in `host`, its bytes either in
// host.data or, for a payload left out of the parse, `view` (into the
// model's bytes; host.data is empty then).
struct ConvertedTensor {
  HostTensor host;
  std::optional<std::span<const uint8_t>> view;
};

// An initializer or attribute tensor with its data (raw_data or the typed
// repeated fields). External data and segments are refused. A TensorProto
// with a payload marker takes its raw_data from `payloads` (an error without
// them).
absl::StatusOr<ConvertedTensor> ConvertTensorProtoView(const onnx::TensorProto& proto, const ModelPayloads* payloads);
// The same, the bytes always in host.data (a view is copied).
absl::StatusOr<HostTensor> ConvertTensorProto(const onnx::TensorProto& proto, const ModelPayloads* payloads = nullptr);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_INITIALIZERS_H_
