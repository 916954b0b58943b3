#include "plugins/kit/constant_references.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace tessera::kit {

std::vector<tsr_constant_reference> ExternalizeConstants(GraphSnapshot& graph, uint64_t min_bytes) {
  std::vector<tsr_constant_reference> refs;
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    SnapshotTensor& tensor = graph.tensors[t];
    if (!tensor.is_constant || tensor.external_key || tensor.constant.size() < min_bytes) continue;
    // The key is the local index: distinct by construction, and it names the
    // tensor in the dispatch side's errors.
    const auto key = static_cast<uint32_t>(t);
    refs.push_back({static_cast<int32_t>(t), key, tensor.constant.size()});
    tensor.external_key = key;
    tensor.constant = {};
    tensor.owned.reset();
  }
  return refs;
}

absl::Status ResolveConstantReferences(GraphSnapshot& graph, std::span<const tsr_constant_binding> bindings) {
  std::unordered_map<uint32_t, const tsr_constant_binding*> by_key;
  for (const tsr_constant_binding& b : bindings)
    if (!by_key.emplace(b.key, &b).second)
      return absl::InvalidArgumentError(absl::StrCat("constant binding key ", b.key, " is given twice"));
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    SnapshotTensor& tensor = graph.tensors[t];
    if (!tensor.external_key) continue;
    const uint32_t key = *tensor.external_key;
    const auto expected = static_cast<uint64_t>(TensorByteSize(tensor));
    auto it = by_key.find(key);
    if (it == by_key.end())
      return absl::FailedPreconditionError(absl::StrCat("external constant key ", key, " (tensor ", t, " '",
                                                        tensor.name, "', ", expected,
                                                        " bytes) has no binding: the host did not supply it"));
    const tsr_constant_binding& b = *it->second;
    if (b.size_bytes != expected || (b.data == nullptr && expected != 0))
      return absl::InvalidArgumentError(absl::StrCat("external constant key ", key, " (tensor ", t, " '",
                                                     tensor.name, "') needs ", expected, " bytes, its binding has ",
                                                     b.size_bytes, b.data == nullptr ? " and no data" : ""));
    tensor.constant = {static_cast<const uint8_t*>(b.data), static_cast<size_t>(b.size_bytes)};
  }
  return absl::OkStatus();
}

std::span<const tsr_constant_binding> BindingsOf(const tsr_executable_source* source) {
  if (source == nullptr || !TSR_ABI_HAS_FIELD(source, tsr_executable_source, constant_count) ||
      source->constants == nullptr)
    return {};
  return {source->constants, source->constant_count};
}

}  // namespace tessera::kit
