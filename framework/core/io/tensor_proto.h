// ONNX TensorProto (.pb) reading and writing without linking protobuf: the
// wire format is decoded directly (varints, length-delimited, fixed32/64,
// packed and unpacked repeated fields), so apps and tests can exchange
// tensors with ONNX tooling and read the ONNX backend test data layout
// (DIR/input_0.pb, input_1.pb, ..., output_0.pb, ...).
//
// Supported ONNX element types and the tsr_dtype they become:
//   FLOAT(1)->F32  UINT8(2)->U8  INT8(3)->I8  INT32(6)->I32  INT64(7)->I64
//   BOOL(9)->BOOL  FLOAT16(10)->F16 (bits)
// Every other type (DOUBLE, STRING, BFLOAT16, ...) is refused with
// "unsupported ONNX data type N (NAME)". Segmented tensors, string data and
// external data are refused too. Malformed bytes give an error naming the
// problem, never a crash, and never an allocation larger than the input
// justifies.
#ifndef TESSERA_FRAMEWORK_CORE_IO_TENSOR_PROTO_H_
#define TESSERA_FRAMEWORK_CORE_IO_TENSOR_PROTO_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera {

// Decodes one serialized TensorProto. The element count must match dims.
absl::StatusOr<HostTensor> ParseTensorProto(std::span<const uint8_t> bytes);

// The same checks for a TensorProto whose raw_data was taken out of
// `bytes` and is `raw_data` (bytes the caller keeps, e.g. a mapped file):
// `bytes` must carry no raw_data and no typed data of its own. The result
// has every field but data, which stays empty: the caller references
// `raw_data` instead of a copy.
absl::StatusOr<HostTensor> ParseTensorProtoHeader(std::span<const uint8_t> bytes, std::span<const uint8_t> raw_data);

// Encodes dims, data_type, name and raw_data (in field-number order, dims
// unpacked as protobuf itself writes proto2). A tensor whose dtype has no
// ONNX equivalent is written with data_type 0 (UNDEFINED); use
// WriteTensorProtoFile to have that checked.
std::vector<uint8_t> SerializeTensorProto(const HostTensor& t);

// Reads and parses `path`. A file larger than `max_file_bytes` is refused
// before it is read (see MaxTensorProtoFileBytes).
absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path,
                                               uint64_t max_file_bytes = std::numeric_limits<uint64_t>::max());

// The largest file a valid TensorProto of a tensor of `shape` can take
// (any dtype, any encoding); UINT64_MAX for a shape without a size.
uint64_t MaxTensorProtoFileBytes(std::span<const int64_t> shape);

// Checks dtype and data size against the shape, then writes through
// WriteFileAtomically (base/atomic_file.h).
absl::Status WriteTensorProtoFile(const HostTensor& t, const std::string& path);

// ONNX backend-test layout: DIR/<prefix>_0.pb, <prefix>_1.pb, ... (prefix is
// "input" or "output"). Reads every <prefix>_N.pb in the directory; the
// indices must run 0..N-1 without gaps. An empty set is not an error.
absl::StatusOr<std::vector<HostTensor>> ReadTensorSet(const std::string& dir, const std::string& prefix);
// The paths of that set, in index order (same checks), without reading them.
absl::StatusOr<std::vector<std::string>> ListTensorSet(const std::string& dir, const std::string& prefix);

// Writes <prefix>_0.pb... into `dir` (created if needed) and removes stale
// <prefix>_K.pb files with K >= tensors.size(), so a later ReadTensorSet
// returns exactly `tensors`.
absl::Status WriteTensorSet(const std::vector<HostTensor>& tensors, const std::string& dir, const std::string& prefix);

// ONNX TensorProto.DataType name ("FLOAT", "DOUBLE", ...), "UNKNOWN" when
// out of range. Exposed for messages and tests.
const char* OnnxDataTypeName(int32_t onnx_type);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_IO_TENSOR_PROTO_H_
