// The host side of external constants (ABI 1.4): what a plugin's
// compiled_constant_references reports, checked against the partition it
// compiled and turned into the model's DispatchConstant lists. A plugin
// that names something other than one of its partition's constants, at its
// exact size, has not compiled that partition: its compile fails and the
// ops fall back, rather than a model being written that binds wrong bytes.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_EXTERNAL_CONSTANTS_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_EXTERNAL_CONSTANTS_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/core/graph/graph.h"
#include "tessera/compiler_plugin.h"

namespace tessera {

// `refs` of the partition `view` (of `graph`) as global DispatchConstants,
// or FailedPrecondition naming `vendor`, the partition, the key and why.
absl::StatusOr<std::vector<DispatchConstant>> MapConstantReferences(const Graph& graph, const GraphView& view,
                                                                    std::span<const tsr_constant_reference> refs,
                                                                    const std::string& vendor, size_t partition);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_EXTERNAL_CONSTANTS_H_
