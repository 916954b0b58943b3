#include "onnx/model_reader.h"

#include <fstream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "onnx/onnx_importer.h"

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

absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "'"));
  // protobuf parses at most 2 GiB: refuse a larger file before reading it.
  if (size > std::numeric_limits<int>::max())
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is larger than 2 GiB (external data is not supported)"));
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    return absl::InvalidArgumentError(absl::StrCat("cannot read '", path, "'"));
  return bytes;
}

absl::StatusOr<int64_t> DefaultDomainOpset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto& id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx") opset = id.version();
  if (opset < 0) {
    std::string domains;
    for (const onnx::OperatorSetIdProto& id : model.opset_import()) absl::StrAppend(&domains, domains.empty() ? "" : ", ", id.domain());
    if (domains.empty()) return absl::InvalidArgumentError("ONNX model imports no opset");
    return absl::UnimplementedError(absl::StrCat("only non-default op domains imported (", domains, ") unsupported"));
  }
  if (opset < kMinLegacyOpset || opset > kMaxOpset)
    return absl::UnimplementedError(absl::StrCat("opset ", opset, " unsupported (supported: ", kMinOpset, "..",
                                                 kMaxOpset, ", legacy ", kMinLegacyOpset, "..", kMinOpset - 1, ")"));
  return opset;
}

}  // namespace tessera::onnx_import
