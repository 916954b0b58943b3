#include "plugins/kit/constant_references.h"

#include <cstring>
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
    refs.push_back({.header = {sizeof(tsr_constant_reference), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
                    .tensor = static_cast<int32_t>(t),
                    .key = key,
                    .size_bytes = tensor.constant.size()});
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
    if (reinterpret_cast<uintptr_t>(b.data) % TSR_CONSTANT_ALIGNMENT != 0)
      return absl::InvalidArgumentError(absl::StrCat("external constant key ", key, " (tensor ", t, " '", tensor.name,
                                                     "'): its binding's data is not ", TSR_CONSTANT_ALIGNMENT,
                                                     "-byte aligned"));
    if (b.size_bytes != expected || (b.data == nullptr && expected != 0))
      return absl::InvalidArgumentError(absl::StrCat("external constant key ", key, " (tensor ", t, " '",
                                                     tensor.name, "') needs ", expected, " bytes, its binding has ",
                                                     b.size_bytes, b.data == nullptr ? " and no data" : ""));
    tensor.constant = {static_cast<const uint8_t*>(b.data), static_cast<size_t>(b.size_bytes)};
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<tsr_constant_binding>> BindingsOf(const tsr_executable_source* source) {
  if (source == nullptr || !TSR_ABI_HAS_FIELD(source, tsr_executable_source, constant_count) ||
      source->constant_count == 0)
    return std::vector<tsr_constant_binding>{};
  // A headed array: the host's stride, never our sizeof (a newer host's
  // bindings are larger; we read the 1.4 prefix of each).
  size_t stride = 0;
  if (!tsr_abi_array_stride(source->constants, source->constant_count, sizeof(tsr_constant_binding), &stride))
    return absl::InvalidArgumentError(
        absl::StrCat("load_executable: the ", source->constant_count,
                     " constant bindings are not a headed array (NULL, unaligned, mixed struct_size, or "
                     "elements smaller than a 1.4 tsr_constant_binding)"));
  std::vector<tsr_constant_binding> out(source->constant_count);
  for (size_t i = 0; i < out.size(); ++i) {
    std::memcpy(&out[i], tsr_abi_array_at(source->constants, stride, i), sizeof(tsr_constant_binding));
    out[i].header.struct_size = sizeof(tsr_constant_binding);
  }
  return out;
}

}  // namespace tessera::kit
