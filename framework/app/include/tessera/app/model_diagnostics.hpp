// Why an ONNX model does not load: every problem the import found, in one
// pass (`tessera inspect MODEL.onnx --json` prints them as "diagnostics").
#ifndef TESSERA_APP_MODEL_DIAGNOSTICS_HPP_
#define TESSERA_APP_MODEL_DIAGNOSTICS_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

// One group of problems (docs/onnx_import.md#diagnostics).
struct ImportDiagnostic {
  // "unsupported_op", "unsupported_opset", "dynamic_input", "dynamic_value",
  // "unsupported_attribute" or "unchecked".
  std::string kind;
  std::string domain;              // the op's ONNX domain ("" = the default, ai.onnx)
  std::string op_type;             // "" for graph-level problems (opset, dynamic inputs)
  int64_t count = 0;               // nodes, or graph inputs for dynamic_input
  std::vector<std::string> nodes;  // their names, the first 10
  std::string message;             // what is wrong
  std::string hint;                // what fixes it, e.g. the flag to pass
};

struct DiagnosedLoad {
  Result<Model> model;  // as Model::Load returns it
  // Empty when the model loaded, or when the file could not be read or
  // parsed at all (model's status says why).
  std::vector<ImportDiagnostic> diagnostics;
};

// Model::Load that keeps, when an ONNX import fails, the problems it found
// as data (the error's message lists the same, one line per group).
DiagnosedLoad LoadWithDiagnostics(const std::string& path, const LoadOptions& options = {});

}  // namespace tessera::app

#endif  // TESSERA_APP_MODEL_DIAGNOSTICS_HPP_
