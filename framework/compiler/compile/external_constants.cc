#include "framework/compiler/compile/external_constants.h"

#include <set>

#include "absl/strings/str_cat.h"

namespace tessera {

absl::StatusOr<std::vector<DispatchConstant>> MapConstantReferences(const Graph& graph, const GraphView& view,
                                                                    std::span<const tsr_constant_reference> refs,
                                                                    const std::string& vendor, size_t partition) {
  std::vector<DispatchConstant> out;
  std::set<uint32_t> keys;
  auto refuse = [&](const tsr_constant_reference& r, const std::string& why) {
    return absl::FailedPreconditionError(absl::StrCat(vendor, " partition ", partition, ": external constant key ",
                                                      r.key, " (local tensor ", r.tensor, ") ", why));
  };
  for (const tsr_constant_reference& r : refs) {
    if (r.tensor < 0 || static_cast<size_t>(r.tensor) >= view.tensors().size())
      return refuse(r, absl::StrCat("is out of range: the partition has ", view.tensors().size(), " tensors"));
    const int32_t global = view.tensors()[r.tensor];
    const Tensor& t = graph.tensors[global];
    if (!t.is_constant) return refuse(r, absl::StrCat("names '", t.name, "', which is not a constant"));
    if (t.data.size() != r.size_bytes)
      return refuse(r, absl::StrCat("says ", r.size_bytes, " bytes; '", t.name, "' has ", t.data.size()));
    if (!keys.insert(r.key).second) return refuse(r, "is reported twice");
    out.push_back({r.key, global});
  }
  return out;
}

}  // namespace tessera
