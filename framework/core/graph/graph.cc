#include "framework/core/graph/graph.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "framework/core/base/dtype.h"
#include "support/math/checked_math.h"

namespace tessera {

int64_t Tensor::element_count() const { return ShapeElementCount(shape).value_or(-1); }

size_t Tensor::byte_size() const {
  // 0 for a shape without a valid size (the verifier refuses those), never
  // a wrapped product.
  return static_cast<size_t>(checked::TensorBytes(shape, DTypeSize(dtype)).value_or(0));
}

const Attribute* Op::FindAttr(int32_t key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : &it->second;
}

std::span<const uint8_t> Graph::AdoptBytes(std::vector<uint8_t> bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  std::span<const uint8_t> view(owned->data(), owned->size());
  storage_.push_back(std::move(owned));
  return view;
}

void Graph::KeepAlive(std::shared_ptr<const void> storage) { storage_.push_back(std::move(storage)); }

std::span<const uint8_t> Graph::AdoptAlignedCopy(std::span<const uint8_t> bytes) {
  constexpr size_t kAlign = 64;
  const size_t rounded = (bytes.size() + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded);
  if (p == nullptr) throw std::bad_alloc();
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  storage_.push_back(std::shared_ptr<const void>(p, [](const void* q) { std::free(const_cast<void*>(q)); }));
  return {static_cast<const uint8_t*>(p), bytes.size()};
}

uint32_t Graph::NextOpId() const {
  uint32_t next = 0;
  for (const Op& op : ops) next = std::max(next, op.id + 1);
  return next;
}

std::vector<int32_t> Graph::ProducerIndex() const {
  std::vector<int32_t> producer(tensors.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i)
    for (int32_t t : ops[i].outputs)
      if (t >= 0 && static_cast<size_t>(t) < producer.size()) producer[t] = static_cast<int32_t>(i);
  return producer;
}

std::vector<std::vector<int32_t>> Graph::ConsumerIndex() const {
  std::vector<std::vector<int32_t>> consumers(tensors.size());
  for (size_t i = 0; i < ops.size(); ++i)
    for (int32_t t : ops[i].inputs)
      if (t >= 0 && static_cast<size_t>(t) < consumers.size()) consumers[t].push_back(static_cast<int32_t>(i));
  return consumers;
}

std::optional<std::string> Graph::FindMetadata(const std::string& key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return v;
  return std::nullopt;
}

bool IsAlignedConstant(std::span<const uint8_t> data) {
  return data.empty() || reinterpret_cast<uintptr_t>(data.data()) % kConstantAlignment == 0;
}

bool HasUnalignedConstants(const Graph& graph) {
  return std::any_of(graph.tensors.begin(), graph.tensors.end(),
                     [](const Tensor& t) { return t.is_constant && !IsAlignedConstant(t.data); });
}

size_t AlignConstants(Graph& graph) {
  size_t copied = 0;
  for (Tensor& t : graph.tensors) {
    if (!t.is_constant || IsAlignedConstant(t.data)) continue;
    copied += t.data.size();
    t.data = graph.AdoptAlignedCopy(t.data);
  }
  return copied;
}

}  // namespace tessera
