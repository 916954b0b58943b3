// Built when protobuf or onnx.proto is missing: every import is refused.
#include "framework/compiler/onnx/onnx_importer.h"

namespace tessera::onnx_import {

absl::StatusOr<Graph> ImportOnnxBytes(std::span<const uint8_t>, const ImportOptions&, const std::string&,
                                      std::vector<OptimizationStats>*) {
  return absl::UnimplementedError(
      "this tessera was built without ONNX import (install libonnx-dev, libprotobuf-dev, protobuf-compiler)");
}
absl::StatusOr<Graph> ImportOnnxShared(std::span<const uint8_t>, std::shared_ptr<const void>,
                                       const ImportOptions& options, const std::string& name,
                                       std::vector<OptimizationStats>* out_optimizations) {
  return ImportOnnxBytes({}, options, name, out_optimizations);
}
absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options,
                                     std::vector<OptimizationStats>* out_optimizations) {
  return ImportOnnxBytes({}, options, path, out_optimizations);
}
absl::Status ParseInputShapeFlag(const std::string&, ImportOptions&) { return absl::OkStatus(); }
bool IsDynamicInputsError(const absl::Status&) { return false; }
bool OnnxImportAvailable() { return false; }

}  // namespace tessera::onnx_import
