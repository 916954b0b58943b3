// Reading an ONNX ModelProto from bytes or a file, and the opset it uses.
#ifndef TESSERA_FRAMEWORK_ONNX_MODEL_READER_H_
#define TESSERA_FRAMEWORK_ONNX_MODEL_READER_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "onnx.pb.h"

namespace tessera::onnx_import {

absl::StatusOr<onnx::ModelProto> ParseModel(std::span<const uint8_t> bytes);
absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

// The default-domain ("" or "ai.onnx") opset version; an error when it is
// missing or outside kMinOpset..kMaxOpset.
absl::StatusOr<int64_t> DefaultDomainOpset(const onnx::ModelProto& model);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_ONNX_MODEL_READER_H_
