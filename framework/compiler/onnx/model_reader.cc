#include "framework/compiler/onnx/model_reader.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/model_scanner.h"
#include "framework/compiler/onnx/onnx_importer.h"

namespace tessera::onnx_import {

absl::StatusOr<onnx::ModelProto> ParseModel(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return absl::InvalidArgumentError("empty ONNX file");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::InvalidArgumentError("ONNX file larger than 2 GiB (external data is not supported)");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return absl::InvalidArgumentError("not a valid ONNX ModelProto (protobuf parse failed)");
  if (!model.has_graph()) return absl::InvalidArgumentError("ONNX model has no graph");
  return model;
}

absl::StatusOr<ParsedModel> ParseModelElided(std::span<const uint8_t> bytes, uint64_t min_payload_bytes) {
  if (bytes.empty()) return absl::InvalidArgumentError("empty ONNX file");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::InvalidArgumentError("ONNX file larger than 2 GiB (external data is not supported)");
  ParsedModel parsed;
  if (min_payload_bytes == std::numeric_limits<uint64_t>::max()) {
    absl::StatusOr<onnx::ModelProto> model = ParseModel(bytes);
    if (!model.ok()) return model.status();
    parsed.proto = *std::move(model);
    return parsed;
  }
  absl::StatusOr<ScannedModel> scanned = ScanModel(bytes, min_payload_bytes);
  if (!scanned.ok()) return scanned.status();
  // Markers can outgrow the tiny raw_data they replace (min_payload_bytes
  // near 0): the protobuf limit applies to what is parsed.
  const std::span<const uint8_t> parse =
      scanned->stripped.empty() ? bytes : std::span<const uint8_t>(scanned->stripped);
  if (parse.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::InvalidArgumentError("ONNX model larger than 2 GiB without its tensor data");
  absl::StatusOr<onnx::ModelProto> model = ParseModel(parse);
  if (!model.ok()) return model.status();
  parsed.proto = *std::move(model);
  scanned->stripped = {};
  for (const ScannedModel::Payload& p : scanned->payloads) parsed.payloads.push_back(bytes.subspan(p.offset, p.size));
  return parsed;
}

absl::StatusOr<int64_t> DefaultDomainOpset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto& id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx") opset = id.version();
  if (opset < 0) {
    std::string domains;
    for (const onnx::OperatorSetIdProto& id : model.opset_import())
      absl::StrAppend(&domains, domains.empty() ? "" : ", ", id.domain());
    if (domains.empty()) return absl::InvalidArgumentError("ONNX model imports no opset");
    return absl::UnimplementedError(absl::StrCat("only non-default op domains imported (", domains, ") unsupported"));
  }
  if (opset < kMinLegacyOpset || opset > kMaxOpset)
    return absl::UnimplementedError(absl::StrCat("opset ", opset, " unsupported (supported: ", kMinOpset, "..",
                                                 kMaxOpset, ", legacy ", kMinLegacyOpset, "..", kMinOpset - 1, ")"));
  return opset;
}

}  // namespace tessera::onnx_import
