// Reading an ONNX ModelProto from bytes or a file, and the opset it uses.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_READER_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_READER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "absl/status/statusor.h"

namespace tessera::onnx_import {

// The whole model through libprotobuf, every raw_data copied into it.
absl::StatusOr<onnx::ModelProto> ParseModel(std::span<const uint8_t> bytes);

// A model parsed without its large raw_data payloads (model_scanner.h):
// each TensorProto that had one carries a marker instead, the index of its
// bytes in `payloads` (spans of the parsed bytes, never copied).
struct ParsedModel {
  onnx::ModelProto proto;
  std::vector<std::span<const uint8_t>> payloads;
};
// raw_data payloads of at least `min_payload_bytes` bytes stay out of the
// parse (0: all of them; UINT64_MAX: none, ParseModel's result).
absl::StatusOr<ParsedModel> ParseModelElided(std::span<const uint8_t> bytes, uint64_t min_payload_bytes);

// The default-domain ("" or "ai.onnx") opset version; an error when it is
// missing or outside kMinOpset..kMaxOpset.
absl::StatusOr<int64_t> DefaultDomainOpset(const onnx::ModelProto& model);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_MODEL_READER_H_
