// ONNX import: an ONNX ModelProto (opsets 11..17 of the default domain)
// becomes a Tessera Graph over the v1 op set (docs/onnx_import.md).
//
// * Shapes are static: every graph input needs concrete dims, from the
//   model or from an override (`tessera import --input-shape name=1,3,8,8`).
// * Constant sub-graphs (Constant, Shape->Gather->Concat->Reshape chains,
//   ConstantOfShape, Range, anything whose inputs are all constant) are
//   folded by running the cpu reference kernels at import time.
// * Then graph optimizations run (BatchNorm into Conv, LayerNorm fusion,
//   ...; passes/import_optimizations.h) unless ImportOptions::optimize is
//   false.
// * Errors name the node ("node 'conv1' (Conv): ..."): an op, attribute or
//   dtype that has no mapping is Unimplemented; a malformed file or an
//   inconsistent graph is InvalidArgument. Malformed input never crashes.
#ifndef TESSERA_FRAMEWORK_ONNX_ONNX_IMPORTER_H_
#define TESSERA_FRAMEWORK_ONNX_ONNX_IMPORTER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"
#include "onnx/passes/import_optimizations.h"

namespace tessera::onnx_import {

inline constexpr int64_t kMinOpset = 11;
// Opsets 6..10 are accepted too: converters read the older attribute forms
// (Slice/Pad/Clip/Split/Squeeze attributes, legacy broadcast=1 with axis).
inline constexpr int64_t kMinLegacyOpset = 6;
inline constexpr int64_t kMaxOpset = 17;

// The default bound on one constant made at import time (a folded op's
// result, an Expand condition, a Trilu mask, ConstantOfShape, ...): 256 MiB.
// A tiny file can ask for terabytes; past the budget the import fails at
// once, before anything is allocated (docs/reliability.md).
inline constexpr int64_t kDefaultMaxFoldedConstantBytes = int64_t{256} << 20;

struct ImportOptions {
  // Shape overrides by graph input name (replace the declared dims).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Shape overrides by position among the non-initializer graph inputs
  // (the onnx-test runner takes them from input_K.pb); nullopt = keep.
  std::vector<std::optional<std::vector<int64_t>>> positional_input_shapes;
  // Values by position (the onnx-test runner passes test_data_set_0). An
  // input whose value is needed as a constant operand (a Reshape shape,
  // Slice starts, reduction axes, ...) is frozen into a constant and leaves
  // the graph's inputs; metadata "onnx.frozen_inputs" lists the positions.
  std::vector<std::optional<HostTensor>> positional_input_values;
  // The largest constant the importer may create (bytes); `tessera import
  // --max-folded-bytes N` sets it.
  int64_t max_folded_constant_bytes = kDefaultMaxFoldedConstantBytes;
  // Run the graph optimizations after conversion (passes/
  // import_optimizations.h); `tessera import --no-optimize` clears it to
  // see the graph as the converters wrote it. Constant folding runs either
  // way: static shapes and constant operands (a Reshape's shape, Slice
  // starts, ...) depend on it.
  bool optimize = true;
};

// `out_optimizations`, when given, receives one entry per optimization
// pass (constant folding first) on success.
absl::StatusOr<Graph> ImportOnnxBytes(std::span<const uint8_t> bytes, const ImportOptions& options = {},
                                      const std::string& fallback_name = "onnx_model",
                                      std::vector<OptimizationStats>* out_optimizations = nullptr);
absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {},
                                     std::vector<OptimizationStats>* out_optimizations = nullptr);

// Parses "name=1,3,224,224" (a --input-shape flag value).
absl::Status ParseInputShapeFlag(const std::string& text, ImportOptions& options);

// True when this build can import ONNX (protobuf and onnx.proto were found).
bool OnnxImportAvailable();

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_ONNX_ONNX_IMPORTER_H_
