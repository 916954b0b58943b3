// External constants (ABI 1.4, TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK): a
// snapshot names its large constants by key instead of carrying their
// bytes, and the dispatch side binds the keys to the host's mapped model.
// Without this, an AOT compile copied every weight into the bytecode: the
// compile's peak held the weights twice (docs/benchmarks.md).
#ifndef TESSERA_PLUGINS_KIT_CONSTANT_REFERENCES_H_
#define TESSERA_PLUGINS_KIT_CONSTANT_REFERENCES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/kit/graph_snapshot.h"
#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"

namespace tessera::kit {

// Below this, a constant stays in the bytecode: a binding costs more than
// the bytes, and scalars (shapes, axes) are read at load anyway.
inline constexpr uint64_t kExternalConstantMinBytes = 4096;

// Marks every constant of `graph` of at least `min_bytes` external, keyed by
// its (partition-local) tensor index, and drops its span so the encoding
// does not copy it. Returns the references for compiled_constant_references.
std::vector<tsr_constant_reference> ExternalizeConstants(GraphSnapshot& graph, uint64_t min_bytes);

// Points every external constant of a decoded `graph` at its binding. A key
// with no binding, or a binding whose size differs from the tensor's, is
// refused with a message naming key, tensor and sizes, and so is data that
// is not TSR_CONSTANT_ALIGNMENT-aligned; bindings' data must outlive
// the snapshot.
absl::Status ResolveConstantReferences(GraphSnapshot& graph, std::span<const tsr_constant_binding> bindings);

// The bindings of `source`, read with the host's stride (a headed array,
// common.h) and copied as 1.4 bindings; none when its struct_size does not
// cover them. An array that breaks the stride rule is refused.
absl::StatusOr<std::vector<tsr_constant_binding>> BindingsOf(const tsr_executable_source* source);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_CONSTANT_REFERENCES_H_
