// ONNX import: an ONNX ModelProto (opsets 11..21 of the default domain)
// becomes a Tessera Graph over the v1 op set (docs/onnx_import.md).
//
// * Shapes are static: every graph input needs concrete dims, from the
//   model or given for its dynamic dims (`--input-shape name=1,3,8,8` on
//   every command that takes an .onnx).
// * Constant sub-graphs (Constant, Shape->Gather->Concat->Reshape chains,
//   ConstantOfShape, Range, anything whose inputs are all constant) are
//   folded by running the cpu reference kernels at import time.
// * Then graph optimizations run (BatchNorm into Conv, LayerNorm fusion,
//   ...; passes/import_optimizations.h) unless ImportOptions::optimize is
//   false.
// * Errors name the node ("node 'conv1' (Conv): ..."): an op, attribute or
//   dtype that has no mapping is Unimplemented; a malformed file or an
//   inconsistent graph is InvalidArgument. Malformed input never crashes.
// * The import does not stop at the first Unimplemented node: one error
//   lists every problem (import_diagnostics.h), and
//   ImportOptions::out_diagnostics receives them as data.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_ONNX_IMPORTER_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_ONNX_IMPORTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/onnx/passes/import_optimizations.h"
#include "framework/core/base/budgets.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::onnx_import {

inline constexpr int64_t kMinOpset = 11;
// Opsets 6..10 are accepted too: converters read the older attribute forms
// (Slice/Pad/Clip/Split/Squeeze attributes, legacy broadcast=1 with axis).
inline constexpr int64_t kMinLegacyOpset = 6;
// Opsets 18..21 moved attributes to inputs (Reduce* axes, Pad axes) and
// added Split's num_outputs; the converters read both forms.
inline constexpr int64_t kMaxOpset = 21;

// The default bound on one constant made at import time (a folded op's
// result, an Expand condition, a Trilu mask, ConstantOfShape, ...): 256 MiB.
// A tiny file can ask for terabytes; past the budget the import fails at
// once, before anything is allocated (docs/reliability.md).
inline constexpr int64_t kDefaultMaxFoldedConstantBytes = int64_t{256} << 20;

// ImportOptions::large_payload_bytes by default.
inline constexpr uint64_t kDefaultLargePayloadBytes = 1024;

// One group of problems that stop the import (docs/onnx_import.md#diagnostics).
struct ImportDiagnostic {
  // "unsupported_op", "unsupported_opset", "dynamic_input", "dynamic_value"
  // (an operand that must fold to a constant does not), "unsupported_attribute"
  // (an attribute value, dtype or form a converter refuses), "unchecked"
  // (nodes fed by a problem above, not converted).
  std::string kind;
  std::string domain;              // the op's domain ("" = ai.onnx)
  std::string op_type;             // "" for graph-level problems
  int64_t count = 0;               // nodes (graph inputs for dynamic_input)
  std::vector<std::string> nodes;  // the first kMaxDiagnosticNodes of them
  std::string message, hint;
};
inline constexpr size_t kMaxDiagnosticNodes = 10;

struct ImportOptions {
  // Shapes by graph input name, for the declared dynamic dims: a shape of
  // another rank, or one that differs in a fixed dim, is InvalidArgument
  // naming both (an input declared without any shape takes any).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Shapes by position among the non-initializer graph inputs that are not
  // frozen by name (frozen_inputs): the inputs a run of the imported model
  // takes, in the graph's order, as `run --inputs DIR` matches its files.
  // Checked the same way (the onnx-test runner and `run --inputs` take them
  // from input_K.pb); nullopt = keep. A named shape wins.
  std::vector<std::optional<std::vector<int64_t>>> positional_input_shapes;
  // Values by the same positions (the onnx-test runner passes
  // test_data_set_0, and freezes nothing by name). An
  // input whose value is needed as a constant operand (a Reshape shape,
  // Slice starts, reduction axes, ...) is frozen into a constant and leaves
  // the graph's inputs; metadata "onnx.frozen_inputs" lists the positions.
  std::vector<std::optional<HostTensor>> positional_input_values;
  // Values by graph input name (`--freeze-input NAME=V0,V1,...`): the
  // input becomes a constant before any node is converted, so it folds
  // (an If on a sample rate, a shape computed from it) and leaves the
  // graph's inputs. Its shape is the declared one (a --input-shape fills
  // dynamic dims; a single dynamic dim is inferred from the value count);
  // values are converted to the input's dtype like CAST.
  std::map<std::string, std::vector<double>> frozen_inputs;
  // The largest constant the importer may create by growing its inputs
  // (bytes), and the most all such folds together may add beyond their
  // inputs; a fold no larger than its inputs (transpose, reshape, narrowing
  // cast) is never refused. `tessera import --max-folded-bytes N` sets it.
  int64_t max_folded_constant_bytes = kDefaultMaxFoldedConstantBytes;
  // Run the graph optimizations after conversion (passes/
  // import_optimizations.h); `tessera import --no-optimize` clears it to
  // see the graph as the converters wrote it. Constant folding runs either
  // way: static shapes and constant operands (a Reshape's shape, Slice
  // starts, ...) depend on it.
  bool optimize = true;
  // The file's size (max_model_bytes, before it is read) and the imported
  // graph (graph/graph_budgets.h) are held to these; `--budget NAME=VALUE`.
  Budgets budgets;
  // When given: cleared, then on a failed import every problem found
  // (grouped; empty when the file could not be read at all).
  std::vector<ImportDiagnostic>* out_diagnostics = nullptr;
  // Tensor payloads (TensorProto.raw_data of initializers and of tensor
  // attributes) of at least this many bytes are left out of the protobuf
  // parse and taken from the model's bytes (onnx/model_scanner.h): in place
  // by ImportOnnxFile and ImportOnnxShared, copied once by ImportOnnxBytes.
  // 0 takes every one so; UINT64_MAX none (every tensor through protobuf,
  // as imports did before; tests compare the two).
  uint64_t large_payload_bytes = kDefaultLargePayloadBytes;
};

// `out_optimizations`, when given, receives one entry per optimization
// pass (constant folding first) on success.
//
// Memory: ImportOnnxBytes copies each tensor's bytes once into the graph
// (the caller keeps `bytes`). ImportOnnxFile maps the file and
// ImportOnnxShared takes bytes that `owner` keeps alive: their large
// tensors (ImportOptions::large_payload_bytes) are views of those bytes,
// not copies, and the graph keeps the mapping (or `owner`) alive. Those
// views sit where the file has them, at any alignment: see
// kConstantAlignment in graph/graph.h before handing the graph's constants
// to kernels. As for a loaded .tsr, a file mapped (above
// MappedFile::kCopyBelowBytes) must not be truncated while the graph lives
// (docs/reliability.md, section 9).
absl::StatusOr<Graph> ImportOnnxBytes(std::span<const uint8_t> bytes, const ImportOptions& options = {},
                                      const std::string& fallback_name = "onnx_model",
                                      std::vector<OptimizationStats>* out_optimizations = nullptr);
absl::StatusOr<Graph> ImportOnnxShared(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                       const ImportOptions& options = {},
                                       const std::string& fallback_name = "onnx_model",
                                       std::vector<OptimizationStats>* out_optimizations = nullptr);
absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {},
                                     std::vector<OptimizationStats>* out_optimizations = nullptr);

// An input left dynamic (no shape given for it) fails the import with
// Unimplemented: one error naming every such input with its declared dims,
// and a --input-shape example per input. This tells that error apart (the
// CLI then takes the shapes from `--inputs DIR` when it has them).
inline constexpr char kDynamicInputsPayload[] = "tessera.onnx/dynamic-inputs";
bool IsDynamicInputsError(const absl::Status& status);

// Parses "name=1,3,224,224" (a --input-shape flag value).
absl::Status ParseInputShapeFlag(const std::string& text, ImportOptions& options);

// Parses "name=16000" or "name=1,2,3" (a --freeze-input flag value).
absl::Status ParseFreezeInputFlag(const std::string& text, ImportOptions& options);

// True when this build can import ONNX (protobuf and onnx.proto were found).
bool OnnxImportAvailable();

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_ONNX_IMPORTER_H_
