#include "framework/compiler/onnx/initializers.h"

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/model_scanner.h"
#include "framework/core/io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera::onnx_import {

absl::StatusOr<int32_t> DTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT:
      return TSR_DTYPE_F32;
    case onnx::TensorProto::UINT8:
      return TSR_DTYPE_U8;
    case onnx::TensorProto::INT8:
      return TSR_DTYPE_I8;
    case onnx::TensorProto::INT32:
      return TSR_DTYPE_I32;
    case onnx::TensorProto::INT64:
      return TSR_DTYPE_I64;
    case onnx::TensorProto::BOOL:
      return TSR_DTYPE_BOOL;
    case onnx::TensorProto::FLOAT16:
      return TSR_DTYPE_F16;
    default:
      return absl::UnimplementedError(absl::StrCat("dtype ", OnnxDataTypeName(onnx_type), " unsupported"));
  }
}

int32_t OnnxFromDType(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return onnx::TensorProto::FLOAT;
    case TSR_DTYPE_U8:
      return onnx::TensorProto::UINT8;
    case TSR_DTYPE_I8:
      return onnx::TensorProto::INT8;
    case TSR_DTYPE_I32:
      return onnx::TensorProto::INT32;
    case TSR_DTYPE_I64:
      return onnx::TensorProto::INT64;
    case TSR_DTYPE_BOOL:
      return onnx::TensorProto::BOOL;
    case TSR_DTYPE_F16:
      return onnx::TensorProto::FLOAT16;
    default:
      return onnx::TensorProto::UNDEFINED;
  }
}

absl::StatusOr<ConvertedTensor> ConvertTensorProtoView(const onnx::TensorProto& proto, const ModelPayloads* payloads) {
  absl::StatusOr<int32_t> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok())
    return absl::UnimplementedError(absl::StrCat("tensor '", proto.name(), "': ", dtype.status().message()));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0)
    return absl::UnimplementedError(absl::StrCat("tensor '", proto.name(), "': external data unsupported"));
  absl::StatusOr<std::optional<uint64_t>> marker = FindPayloadMarker(proto.unknown_fields());
  if (!marker.ok())
    return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': ", marker.status().message()));
  // The wire decoder of framework/io validates counts against dims and
  // handles raw_data and every typed field: reuse it. What protobuf parsed
  // is small here: a large raw_data was left out (a marker instead).
  const std::string wire = proto.SerializeAsString();
  const std::span<const uint8_t> wire_bytes(reinterpret_cast<const uint8_t*>(wire.data()), wire.size());
  ConvertedTensor out;
  absl::StatusOr<HostTensor> t;
  if (*marker) {
    if (payloads == nullptr || **marker >= payloads->bytes.size())
      return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': unknown payload marker ", **marker));
    // A marker and a raw_data too: a message field given twice and merged,
    // the two raw_data from different occurrences. Which protobuf would keep
    // is not known here.
    if (proto.has_raw_data())
      return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': raw_data given more than once"));
    out.view = payloads->bytes[**marker];
    t = ParseTensorProtoHeader(wire_bytes, *out.view);
  } else {
    t = ParseTensorProto(wire_bytes);
  }
  if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': ", t.status().message()));
  out.host = *std::move(t);
  return out;
}

absl::StatusOr<HostTensor> ConvertTensorProto(const onnx::TensorProto& proto, const ModelPayloads* payloads) {
  absl::StatusOr<ConvertedTensor> t = ConvertTensorProtoView(proto, payloads);
  if (!t.ok()) return t.status();
  if (t->view) t->host.data.assign(t->view->begin(), t->view->end());
  return std::move(t->host);
}

}  // namespace tessera::onnx_import
