// Large tensor payloads out of the protobuf parse: a scan of a serialized
// ModelProto's wire format that finds every TensorProto.raw_data the
// importer reads (initializers of the graph and of subgraphs, tensor
// attributes of nodes) and, for those of at least `min_payload_bytes`,
// records where they are in the model bytes and replaces them with a
// marker. libprotobuf then parses the model without them (it would copy
// every raw_data into a std::string), and the importer takes each payload
// from the model bytes itself: in place when those are a mapped file
// (ImportOnnxFile), so a model's weights are never copied on import.
//
// The paths walked (field numbers from onnx.proto):
//   ModelProto.graph(7) -> GraphProto
//   GraphProto.initializer(5) -> TensorProto, GraphProto.node(1) -> NodeProto
//   NodeProto.attribute(5) -> AttributeProto
//   AttributeProto.t(5), .tensors(10) -> TensorProto; .g(6), .graphs(11) -> GraphProto
//   TensorProto.raw_data(9): the payload
// Every other field is copied as it is, after its bounds are checked. A
// field whose wire type is not the one the schema gives it is copied too
// (protobuf keeps it as an unknown field). Subgraphs nested deeper than
// kMaxScanDepth are copied whole (their payloads stay in the parse; the
// importer refuses such nesting anyway).
//
// Bytes are untrusted: a truncated or overlong varint, a length past the
// end of its message, a field number 0 or an invalid wire type fail the
// scan with InvalidArgument naming the byte offset; nothing is read out of
// bounds and nothing is allocated beyond the size of the input.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_SCANNER_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_SCANNER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::onnx_import {

// The field that stands in for an elided raw_data in its TensorProto: the
// largest field number protobuf allows (2^29 - 1), which onnx.proto will
// never use; a varint holding the payload's index in ScannedModel::payloads.
// libprotobuf keeps it among the TensorProto's unknown fields. A field of
// this number already in the input is dropped from every TensorProto the
// scan walks, so only the scan's own markers reach the importer.
inline constexpr uint32_t kPayloadMarkerField = (uint32_t{1} << 29) - 1;

// Graph nesting the scan descends into (the importer stops at 16).
inline constexpr int kMaxScanDepth = 32;

struct ScannedModel {
  struct Payload {
    uint64_t offset = 0;  // into the scanned bytes
    uint64_t size = 0;
  };
  // Elided payloads, indexed by marker value, in file order.
  std::vector<Payload> payloads;
  // The model with those payloads replaced by markers; empty when none was
  // elided (then the input parses as it is).
  std::vector<uint8_t> stripped;
};

// Scans `bytes` (a serialized ModelProto). raw_data payloads of at least
// `min_payload_bytes` bytes are elided (0: every one).
absl::StatusOr<ScannedModel> ScanModel(std::span<const uint8_t> bytes, uint64_t min_payload_bytes);

// The marker value in a TensorProto's unknown fields (the bytes
// libprotobuf-lite keeps for it), nullopt when there is none; the last one
// when there are several (a message field given twice is merged).
absl::StatusOr<std::optional<uint64_t>> FindPayloadMarker(std::string_view unknown_fields);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_SCANNER_H_
