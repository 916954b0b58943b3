// The few graph edits the import optimizations share, so each pass is only
// its pattern: who reads a tensor, erasing ops, bypassing an op that
// computes nothing, and reading or making float constants.
//
// Graph invariants every pass keeps: ops stay topologically ordered, each
// graph output stays produced by an op (the importer's rule: an output that
// is an input or a constant gets a RESHAPE copy), and a constant shared by
// several ops is never changed in place (a pass makes a new one).
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Producers and readers of every tensor, as of construction (rebuild it
// after an edit).
class UseIndex {
 public:
  explicit UseIndex(const Graph& g);
  // Op index, or -1 for a graph input or constant.
  int32_t producer(int32_t t) const { return producer_[t]; }
  // Distinct op indices reading `t`, in op order.
  const std::vector<int32_t>& readers(int32_t t) const { return readers_[t]; }
  bool is_output(int32_t t) const { return is_output_[t]; }
  // True when `t` is not a graph output and op `op` is its only reader.
  bool OnlyFeeds(int32_t t, int32_t op) const;
  // The one op reading `t` when `t` is not a graph output, else -1.
  int32_t SoleReader(int32_t t) const;

 private:
  std::vector<int32_t> producer_;
  std::vector<std::vector<int32_t>> readers_;
  std::vector<bool> is_output_;
};

// Removes the ops flagged in `erase` (indexed like graph.ops), keeping order.
void EraseOps(Graph& graph, const std::vector<bool>& erase);

// Op `op` computes y = x (same dtype, shape and quantization) for its only
// output y. Makes y's readers read x instead and flags the op in `erase`.
// When y is a graph output, x's producer writes y instead (so the output
// keeps its name and stays an op result); that needs x to be an op result
// read by this op alone. Returns false, changing nothing, when neither is
// possible (e.g. the importer's copy of an input to an output).
bool BypassOp(Graph& graph, const UseIndex& uses, int32_t op, int32_t x, std::vector<bool>& erase);

bool IsFloatDType(int32_t dtype);
// True when both tensors carry the same quantization (or none).
bool SameQuantization(const Tensor& a, const Tensor& b);

// The values of an unquantized f32/f16 constant, widened; nullopt for
// anything else (runtime tensors, integers, quantized, short data).
std::optional<std::vector<double>> FloatConstant(const Graph& graph, int32_t t);
// A new constant of `dtype` (f32/f16) and `shape`; values are rounded to
// the dtype. Its name is `name`.
int32_t AddFloatConstant(Graph& graph, std::string name, int32_t dtype, std::vector<int64_t> shape,
                         const std::vector<double>& values);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_
