// The per-op converters: one function per ONNX op_type, grouped by family
// (converters_*.cc). A converter reads its Node (inputs already resolved to
// tensors, attributes) and returns one tensor per ONNX output (-1 for an
// output it does not produce).
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_CONVERTERS_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_CONVERTERS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "absl/status/statusor.h"
#include "framework/compiler/onnx/import_context.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::onnx_import {

class Node {
 public:
  // `payloads`: where tensor attributes whose raw_data the parse left out
  // find it (ImportContext::payloads()).
  Node(const onnx::NodeProto& proto, std::vector<int32_t> inputs, const ModelPayloads* payloads = nullptr)
      : proto_(proto), inputs_(std::move(inputs)), payloads_(payloads) {}

  const std::string& op_type() const { return proto_.op_type(); }
  size_t input_count() const { return inputs_.size(); }
  // -1 when absent or omitted ("").
  int32_t input(size_t i) const { return i < inputs_.size() ? inputs_[i] : -1; }
  bool has_input(size_t i) const { return input(i) >= 0; }
  size_t output_count() const { return static_cast<size_t>(proto_.output_size()); }
  bool wants_output(size_t i) const { return i < output_count() && !proto_.output(static_cast<int>(i)).empty(); }

  // Attributes. A wrong attribute type records an error (see error()) and
  // yields the default.
  bool Has(const std::string& name) const { return Find(name) != nullptr; }
  int64_t Int(const std::string& name, int64_t def) const;
  float Float(const std::string& name, float def) const;
  std::string String(const std::string& name, const std::string& def) const;
  std::vector<int64_t> Ints(const std::string& name) const;
  std::vector<float> Floats(const std::string& name) const;
  absl::StatusOr<HostTensor> TensorAttr(const std::string& name) const;
  // The same, a large raw_data left a view into the model's bytes (for
  // ImportContext::AddConstant; Constant's value).
  absl::StatusOr<ConvertedTensor> TensorAttrView(const std::string& name) const;
  const onnx::AttributeProto* Find(const std::string& name) const;
  const absl::Status& error() const { return error_; }

 private:
  void Fail(const std::string& message) const;
  const onnx::NodeProto& proto_;
  std::vector<int32_t> inputs_;
  const ModelPayloads* payloads_;
  mutable absl::Status error_;
};

using Converter = std::function<absl::StatusOr<std::vector<int32_t>>(ImportContext&, const Node&)>;
using ConverterTable = std::map<std::string, Converter>;

void RegisterElementwiseConverters(ConverterTable& table);
void RegisterNnConverters(ConverterTable& table);
void RegisterLayoutConverters(ConverterTable& table);
void RegisterReduceConverters(ConverterTable& table);
void RegisterConstantConverters(ConverterTable& table);
void RegisterQuantConverters(ConverterTable& table);
void RegisterRnnConverters(ConverterTable& table);
void RegisterControlFlowConverters(ConverterTable& table);
void RegisterResizeConverters(ConverterTable& table);
void RegisterIndexConverters(ConverterTable& table);  // ArgMax ArgMin TopK CumSum
void RegisterGroupNormConverters(ConverterTable& table);
void RegisterEinsumConverters(ConverterTable& table);

const ConverterTable& Converters();

// Unimplemented("what"): an op, attribute or dtype without a mapping.
absl::Status Unsupported(const std::string& what);
// Input i, or InvalidArgument when a required input is missing.
absl::StatusOr<int32_t> Required(const Node& node, size_t i);
// Normalizes a possibly negative axis against `rank`.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// Subgraphs (If branches, Loop/Scan bodies): the caller binds the
// subgraph's inputs (and saves/restores the name map around the call); this
// binds its initializers, imports its nodes into the enclosing graph and
// returns the tensors of its outputs. Nesting and the total number of
// nodes imported from subgraphs are bounded.
inline constexpr int kMaxSubgraphDepth = 16;
inline constexpr int64_t kMaxSubgraphNodes = 200000;
absl::StatusOr<std::vector<int32_t>> ImportSubgraph(const onnx::GraphProto& g, ImportContext& ctx);

// Unrolled code (RNN steps, Loop/Scan iterations) over constants folds
// once per step: the constants folded since `base` (a folded_bytes() value)
// may total at most kUnrolledFoldFactor x the per-constant budget.
inline constexpr int64_t kUnrolledFoldFactor = 4;
absl::Status CheckUnrolledFolding(const ImportContext& ctx, int64_t base);

// One SLICE (axes normalized and checked; steps default to 1).
absl::StatusOr<int32_t> SliceOp(ImportContext& ctx, int32_t x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                                std::vector<int64_t> axes, std::vector<int64_t> steps);

inline Attribute IntsAttr(std::vector<int64_t> v) { return Attribute{std::move(v), {}}; }
inline Attribute FloatsAttr(std::vector<float> v) { return Attribute{{}, std::move(v)}; }

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_CONVERTERS_H_
