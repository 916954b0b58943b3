// The few graph edits the import optimizations share, so each pass is only
// its pattern: who reads a tensor, erasing ops, bypassing an op that
// computes nothing, and reading or making float constants.
//
// Graph invariants every pass keeps: ops stay topologically ordered, each
// graph output stays produced by an op (the importer's rule: an output that
// is an input or a constant gets a RESHAPE copy), and a constant shared by
// several ops is never changed in place (a pass makes a new one, through
// MadeConstants, so that N uses of one constant make at most one copy).
//
// Every pass is one sweep in op order (a worklist of the ops it rewrote is
// never needed: a rewrite only enables rewrites of later ops), so it runs
// in O(ops + edges) plus the constants it makes. ImportPassWork() counts
// the ops and edges each sweep visits, for the tests that pin this.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "framework/core/graph/graph.h"

namespace tessera::onnx_import {

// Ops and edges visited by the import passes on this thread since the last
// reset: a work count that grows with the graph, not with time.
int64_t& ImportPassWork();

// Producers and readers of every tensor, as of construction. A sweep keeps
// using it after edits that no later op can see (see each pass).
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

bool IsFloatDType(int32_t dtype);
// True when both tensors carry the same quantization (or none).
bool SameQuantization(const Tensor& a, const Tensor& b);

// The values of an unquantized f32/f16 constant, widened; nullopt for
// anything else (runtime tensors, integers, quantized, short data).
std::optional<std::vector<double>> FloatConstant(const Graph& graph, int32_t t);
// The constants one pass makes, shared: Make returns `source` itself when
// the values, rounded to `dtype`, are its bytes (folding y + b into a
// MatMul leaves its weights as they are), an earlier made constant with
// the same dtype, shape and bytes, or else a new one.
class MadeConstants {
 public:
  int32_t Make(Graph& graph, int32_t source, std::string name, int32_t dtype, std::vector<int64_t> shape,
               const std::vector<double>& values);

 private:
  std::unordered_map<std::string_view, std::vector<int32_t>> by_bytes_;  // views into the graph's bytes
};

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_PASSES_GRAPH_EDIT_H_
