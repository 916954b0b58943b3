#include "framework/compiler/onnx/passes/graph_edit.h"

#include <algorithm>

#include "framework/compiler/onnx/constant_folding.h"
#include "framework/core/base/dtype.h"
#include "tessera/common.h"

namespace tessera::onnx_import {

UseIndex::UseIndex(const Graph& g)
    : producer_(g.ProducerIndex()), readers_(g.tensors.size()), is_output_(g.tensors.size(), false) {
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (int32_t t : g.ops[i].inputs) {
      if (t < 0) continue;
      std::vector<int32_t>& r = readers_[t];
      if (r.empty() || r.back() != static_cast<int32_t>(i)) r.push_back(static_cast<int32_t>(i));
    }
  for (int32_t t : g.outputs) is_output_[t] = true;
}

bool UseIndex::OnlyFeeds(int32_t t, int32_t op) const {
  return !is_output_[t] && readers_[t].size() == 1 && readers_[t][0] == op;
}

int32_t UseIndex::SoleReader(int32_t t) const {
  return !is_output_[t] && readers_[t].size() == 1 ? readers_[t][0] : -1;
}

void EraseOps(Graph& graph, const std::vector<bool>& erase) {
  std::vector<Op> kept;
  kept.reserve(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i)
    if (!erase[i]) kept.push_back(std::move(graph.ops[i]));
  graph.ops = std::move(kept);
}

bool BypassOp(Graph& graph, const UseIndex& uses, int32_t op, int32_t x, std::vector<bool>& erase) {
  const int32_t y = graph.ops[op].outputs[0];
  if (uses.is_output(y)) {
    const int32_t p = uses.producer(x);
    if (p < 0 || !uses.OnlyFeeds(x, op)) return false;
    std::replace(graph.ops[p].outputs.begin(), graph.ops[p].outputs.end(), x, y);
  } else {
    for (int32_t r : uses.readers(y)) std::replace(graph.ops[r].inputs.begin(), graph.ops[r].inputs.end(), y, x);
  }
  erase[op] = true;
  return true;
}

bool IsFloatDType(int32_t dtype) { return dtype == TSR_DTYPE_F32 || dtype == TSR_DTYPE_F16; }

bool SameQuantization(const Tensor& a, const Tensor& b) {
  return a.quant.scales == b.quant.scales && a.quant.zero_points == b.quant.zero_points &&
         (!a.quant.quantized() || a.quant.axis == b.quant.axis);
}

std::optional<std::vector<double>> FloatConstant(const Graph& graph, int32_t t) {
  if (t < 0) return std::nullopt;
  const Tensor& x = graph.tensors[t];
  if (!x.is_constant || !IsFloatDType(x.dtype) || x.quant.quantized()) return std::nullopt;
  const int64_t n = x.element_count();
  if (n < 0 || x.data.size() != x.byte_size()) return std::nullopt;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = LoadElement(x.dtype, x.data.data(), i);
  return v;
}

int32_t AddFloatConstant(Graph& graph, std::string name, int32_t dtype, std::vector<int64_t> shape,
                         const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) StoreElement(dtype, values[i], bytes.data(), static_cast<int64_t>(i));
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.is_constant = true;
  t.data = graph.AdoptBytes(std::move(bytes));
  graph.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph.tensors.size() - 1);
}

}  // namespace tessera::onnx_import
