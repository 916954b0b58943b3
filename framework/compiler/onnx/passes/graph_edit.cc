#include "framework/compiler/onnx/passes/graph_edit.h"

#include <algorithm>

#include "framework/compiler/onnx/constant_folding.h"
#include "framework/core/base/dtype.h"
#include "tessera/common.h"

namespace tessera::onnx_import {

int64_t& ImportPassWork() {
  thread_local int64_t work = 0;
  return work;
}

UseIndex::UseIndex(const Graph& g)
    : producer_(g.ProducerIndex()), readers_(g.tensors.size()), is_output_(g.tensors.size(), false) {
  ImportPassWork() += static_cast<int64_t>(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (int32_t t : g.ops[i].inputs) {
      ++ImportPassWork();
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
  ImportPassWork() += static_cast<int64_t>(graph.ops.size());
  std::vector<Op> kept;
  kept.reserve(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i)
    if (!erase[i]) kept.push_back(std::move(graph.ops[i]));
  graph.ops = std::move(kept);
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

namespace {

std::vector<uint8_t> StoreAll(int32_t dtype, const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * DTypeSize(dtype));
  for (size_t i = 0; i < values.size(); ++i) StoreElement(dtype, values[i], bytes.data(), static_cast<int64_t>(i));
  return bytes;
}

std::string_view View(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

bool SameConstant(const Tensor& t, int32_t dtype, const std::vector<int64_t>& shape, std::string_view bytes) {
  return t.is_constant && t.dtype == dtype && t.shape == shape && !t.quant.quantized() && View(t.data) == bytes;
}

}  // namespace

int32_t MadeConstants::Make(Graph& graph, int32_t source, std::string name, int32_t dtype, std::vector<int64_t> shape,
                            const std::vector<double>& values) {
  std::vector<uint8_t> bytes = StoreAll(dtype, values);
  const std::string_view key(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (source >= 0 && SameConstant(graph.tensors[source], dtype, shape, key)) return source;
  auto it = by_bytes_.find(key);
  if (it != by_bytes_.end())
    for (int32_t t : it->second)
      if (SameConstant(graph.tensors[t], dtype, shape, key)) return t;
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.is_constant = true;
  t.data = graph.AdoptBytes(std::move(bytes));
  graph.tensors.push_back(std::move(t));
  const int32_t made = static_cast<int32_t>(graph.tensors.size() - 1);
  by_bytes_[View(graph.tensors[made].data)].push_back(made);
  return made;
}

}  // namespace tessera::onnx_import
