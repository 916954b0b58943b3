#include "onnx/initializers.h"

#include "absl/strings/str_cat.h"
#include "io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera::onnx_import {

absl::StatusOr<int32_t> DTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return TSR_DTYPE_F32;
    case onnx::TensorProto::UINT8: return TSR_DTYPE_U8;
    case onnx::TensorProto::INT8: return TSR_DTYPE_I8;
    case onnx::TensorProto::INT32: return TSR_DTYPE_I32;
    case onnx::TensorProto::INT64: return TSR_DTYPE_I64;
    case onnx::TensorProto::BOOL: return TSR_DTYPE_BOOL;
    case onnx::TensorProto::FLOAT16: return TSR_DTYPE_F16;
    default:
      return absl::UnimplementedError(absl::StrCat("dtype ", OnnxDataTypeName(onnx_type), " unsupported"));
  }
}

int32_t OnnxFromDType(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: return onnx::TensorProto::FLOAT;
    case TSR_DTYPE_U8: return onnx::TensorProto::UINT8;
    case TSR_DTYPE_I8: return onnx::TensorProto::INT8;
    case TSR_DTYPE_I32: return onnx::TensorProto::INT32;
    case TSR_DTYPE_I64: return onnx::TensorProto::INT64;
    case TSR_DTYPE_BOOL: return onnx::TensorProto::BOOL;
    case TSR_DTYPE_F16: return onnx::TensorProto::FLOAT16;
    default: return onnx::TensorProto::UNDEFINED;
  }
}

absl::StatusOr<HostTensor> ConvertTensorProto(const onnx::TensorProto& proto) {
  absl::StatusOr<int32_t> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok())
    return absl::UnimplementedError(absl::StrCat("tensor '", proto.name(), "': ", dtype.status().message()));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0)
    return absl::UnimplementedError(absl::StrCat("tensor '", proto.name(), "': external data unsupported"));
  // The wire decoder of framework/io validates counts against dims and
  // handles raw_data and every typed field: reuse it.
  const std::string wire = proto.SerializeAsString();
  absl::StatusOr<HostTensor> t =
      ParseTensorProto(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(wire.data()), wire.size()));
  if (!t.ok())
    return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': ", t.status().message()));
  return t;
}

}  // namespace tessera::onnx_import
