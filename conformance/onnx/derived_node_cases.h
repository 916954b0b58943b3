// ONNX node-test cases derived from ONNX's own test data (Debian's
// libonnx-testdata, data/node), for ops the shipped cases cannot reach on
// the systolic NPU as they are:
//   * DIV by a constant: every ONNX Div case divides by a graph input, and
//     the NPU only runs DIV whose divisor is a constant. The derived case
//     turns input B into an initializer holding the bytes of that case's
//     test_data_set_0/input_1.pb, so the model divides by a constant.
//   * GlobalAveragePool: its cases import opset 1, below the importer's
//     model-wide opset floor. The derived case raises opset_import to 11.
// Inputs A and the expected output_0.pb are copied byte for byte: the
// expected outputs stay ONNX's reference outputs (an independent oracle),
// never ours. Nothing here runs a kernel.
#ifndef TESSERA_CONFORMANCE_ONNX_DERIVED_NODE_CASES_H_
#define TESSERA_CONFORMANCE_ONNX_DERIVED_NODE_CASES_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include <onnx.pb.h>

namespace tessera::conformance {

// The opset the GlobalAveragePool cases are raised to: the importer's
// kMinOpset (framework/compiler/onnx/onnx_importer.h), its non-legacy floor.
inline constexpr int64_t kDerivedGapOpset = 11;

struct DerivedNodeCase {
  std::string name;    // directory written under the output dir
  std::string source;  // the libonnx-testdata node case it comes from
  std::string op_type; // "Div" or "GlobalAveragePool"
};

// Every derivation this file knows, whether or not its source is installed.
const std::vector<DerivedNodeCase>& DerivedNodeCases();

// `model` dividing by the constant `divisor` (input_1.pb): the graph input
// named like the Div node's second operand is dropped and an initializer of
// that name holding `divisor`'s values is added. Fails unless the graph is
// one Div node whose B is a graph input matching `divisor`'s dtype and dims.
absl::StatusOr<onnx::ModelProto> DivideByConstant(const onnx::ModelProto& model, const onnx::TensorProto& divisor);

// `model` (only GlobalAveragePool nodes) importing default-domain opset
// `opset` instead of its own, and an IR version that opset needs (6 for 11).
absl::StatusOr<onnx::ModelProto> RaiseGlobalAveragePoolOpset(const onnx::ModelProto& model, int64_t opset);

// Writes every case of DerivedNodeCases() whose source exists under
// `node_dir` into `out_dir`/NAME/{model.onnx,test_data_set_0/}; returns the
// cases written (none when libonnx-testdata is not installed).
absl::StatusOr<std::vector<DerivedNodeCase>> WriteDerivedNodeCases(const std::filesystem::path& node_dir,
                                                                   const std::filesystem::path& out_dir);

}  // namespace tessera::conformance

#endif  // TESSERA_CONFORMANCE_ONNX_DERIVED_NODE_CASES_H_
