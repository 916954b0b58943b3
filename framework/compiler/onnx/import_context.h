// Value and shape tracking while importing: the Graph under construction,
// the ONNX value name -> tensor map, and op emission with constant folding
// (an op whose inputs are all constant is run at import time with the cpu
// reference kernels and becomes a constant).
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_CONTEXT_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_CONTEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"
#include "framework/core/graph/shape_inference.h"

namespace tessera::onnx_import {

struct EmitOptions {
  std::optional<int32_t> output_dtype;  // CAST / QUANTIZE / DEQUANTIZE
  Quantization output_quant;
  bool no_fold = false;  // emit even when every input is constant
};

class ImportContext {
 public:
  // `max_folded_bytes`: the budget of every constant made while importing,
  // and of what all folds together grow the constants by (see Fold).
  ImportContext(int64_t opset, int64_t max_folded_bytes) : opset_(opset), max_folded_bytes_(max_folded_bytes) {}

  int64_t opset() const { return opset_; }
  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }
  const Tensor& tensor(int32_t t) const { return graph_.tensors[t]; }
  bool IsConstant(int32_t t) const { return t >= 0 && graph_.tensors[t].is_constant; }
  int32_t dtype(int32_t t) const { return graph_.tensors[t].dtype; }
  const std::vector<int64_t>& shape(int32_t t) const { return graph_.tensors[t].shape; }
  int64_t rank(int32_t t) const { return static_cast<int64_t>(graph_.tensors[t].shape.size()); }

  // Names generated tensors after the node being converted.
  void SetCurrentNode(std::string label) { node_label_ = std::move(label); }

  int32_t AddInput(const std::string& name, int32_t dtype, std::vector<int64_t> shape);
  int32_t AddConstant(HostTensor t, Quantization quant = {});
  // A converted initializer or attribute tensor: a view into the model's
  // bytes stays one when payloads().owner keeps them (the graph then keeps
  // the owner alive), and is copied otherwise.
  int32_t AddConstant(ConvertedTensor t);

  // The raw_data payloads left out of the parse (set before any tensor is
  // converted); null when the parse kept them all.
  void set_payloads(const ModelPayloads* payloads) { payloads_ = payloads; }
  const ModelPayloads* payloads() const { return payloads_; }
  // Rank-0 constant of `dtype` holding `value` (converted like CAST).
  int32_t Scalar(int32_t dtype, double value);
  // Constant of `dtype` and `shape` filled with `value`; fails when its
  // size overflows or exceeds the folding budget (`what` names it).
  absl::StatusOr<int32_t> Filled(int32_t dtype, std::vector<int64_t> shape, double value,
                                 absl::string_view what = "filled constant");
  // Bytes of a constant of `dtype` and `shape` about to be made at import
  // time: checked arithmetic, then the folding budget. Call it before
  // allocating; `what` names the constant in the error.
  absl::StatusOr<size_t> FoldedBytes(int32_t dtype, const std::vector<int64_t>& shape, absl::string_view what) const;
  int64_t max_folded_bytes() const { return max_folded_bytes_; }
  int32_t Int64s(const std::vector<int64_t>& values);  // 1-D i64

  // One-output op; output type from shape inference.
  absl::StatusOr<int32_t> Emit(int32_t op_type, std::vector<int32_t> inputs, std::map<int32_t, Attribute> attrs = {},
                               EmitOptions options = {});
  // Any-output op with explicit output types.
  absl::StatusOr<std::vector<int32_t>> EmitTyped(int32_t op_type, std::vector<int32_t> inputs,
                                                 std::map<int32_t, Attribute> attrs, std::vector<TensorType> outputs,
                                                 std::vector<Quantization> quants = {}, bool no_fold = false);

  // Shorthands.
  absl::StatusOr<int32_t> Unary(int32_t op_type, int32_t x) { return Emit(op_type, {x}); }
  absl::StatusOr<int32_t> Binary(int32_t op_type, int32_t a, int32_t b) { return Emit(op_type, {a, b}); }
  // Binary with a scalar of a's dtype.
  absl::StatusOr<int32_t> BinaryScalar(int32_t op_type, int32_t a, double b);
  absl::StatusOr<int32_t> Reshape(int32_t x, std::vector<int64_t> shape);
  absl::StatusOr<int32_t> Cast(int32_t x, int32_t dtype);
  // A RESHAPE to x's own shape carrying x's quantization: the op set's
  // identity (ONNX Identity, a graph output that needs its own op).
  absl::StatusOr<int32_t> Copy(int32_t x, bool no_fold = false);

  // A graph input given a value (ImportOptions::positional_input_values)
  // may be frozen into a constant when an operand must be constant.
  void SetFreezableValue(int32_t t, HostTensor value) { freezable_[t] = std::move(value); }
  // True when `t` is constant, freezing it first if it is a freezable input,
  // or folding the ops that compute it from freezable inputs and constants
  // (an If condition that is Equal(Cast(sr), 16000) of a frozen `sr`): the
  // ops go, their results become constants (small ones only: see
  // kMaxFoldFromFrozenElements).
  bool RequireConstant(int32_t t);
  // True when `t` is a graph input that has a value to freeze it with.
  bool IsFreezable(int32_t t) const { return freezable_.count(t) > 0; }

  // Constant readers (the tensor must be constant, or a freezable input;
  // `what` names it in errors).
  absl::StatusOr<std::vector<int64_t>> ConstInts(int32_t t, absl::string_view what);
  absl::StatusOr<std::vector<double>> ConstDoubles(int32_t t, absl::string_view what);
  absl::StatusOr<double> ConstScalar(int32_t t, absl::string_view what);
  HostTensor ConstHost(int32_t t) const;

  // ONNX value names.
  void Bind(const std::string& name, int32_t t) { values_[name] = t; }
  std::optional<int32_t> Lookup(const std::string& name) const;

  std::string NewName(absl::string_view base);

  // Subgraphs (If branches, Loop and Scan bodies) see the enclosing names
  // and may shadow them; the caller saves the name map before and restores
  // it after. `scope` prefixes the ONNX names of the tensors made inside,
  // so an unrolled body's iterations stay apart.
  std::map<std::string, int32_t> SaveNames() const { return values_; }
  void RestoreNames(std::map<std::string, int32_t> names) { values_ = std::move(names); }
  const std::string& scope() const { return scope_; }
  void set_scope(std::string scope) { scope_ = std::move(scope); }
  // Nesting depth of subgraphs being imported, and ONNX nodes imported
  // from subgraphs so far (an unrolled Loop imports its body once per
  // iteration): both bounded so a crafted model cannot exhaust memory.
  int subgraph_depth = 0;
  int64_t subgraph_nodes = 0;

  // Ops evaluated at import time instead of emitted (the constant_folding
  // entry of the optimization report).
  int64_t folded_ops() const { return folded_ops_; }
  // Bytes of all constants made by folding so far. Unrolling multiplies
  // folded ops, so unrolled code bounds their total, not just each one.
  int64_t folded_bytes() const { return folded_bytes_; }
  // folded_bytes() when the outermost subgraph import began.
  int64_t unroll_base = 0;

 private:
  // RequireConstant's folding from freezable inputs: whether `t` can be made
  // constant that way (nothing changes), and making it so.
  bool CanFoldFromFrozen(int32_t t, int depth) const;
  bool FoldFromFrozen(int32_t t);
  int32_t ProducerOf(int32_t t) const;  // op index, or -1
  absl::StatusOr<std::vector<int32_t>> Fold(int32_t op_type, const std::vector<int32_t>& inputs,
                                            const std::map<int32_t, Attribute>& attrs,
                                            const std::vector<TensorType>& outputs,
                                            const std::vector<Quantization>& quants);
  int32_t AddTensor(Tensor t);

  int64_t opset_;
  int64_t max_folded_bytes_;
  Graph graph_;
  const ModelPayloads* payloads_ = nullptr;
  bool keeps_payload_owner_ = false;
  std::map<std::string, int32_t> values_;
  std::map<int32_t, HostTensor> freezable_;
  std::string node_label_ = "onnx";
  std::string scope_;
  int64_t counter_ = 0;
  int64_t folded_ops_ = 0;
  int64_t folded_bytes_ = 0;
  int64_t folded_growth_ = 0;  // bytes the growing folds added beyond their inputs
};

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_CONTEXT_H_
