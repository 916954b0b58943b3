// A compiled model names the SoC its bytecode was compiled for (each blob's
// soc_model, from the compile's --soc). Running it for another SoC is
// refused here, before any dispatch library sees it, with a message that
// says what to do: it is never run wrongly. Blobs compiled for "any" SoC
// (or with no SoC named) run anywhere; so does any blob when the run names
// no SoC.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_COMPILED_TARGET_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_COMPILED_TARGET_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "framework/core/graph/graph.h"

namespace tessera {

absl::Status CheckCompiledTarget(const Graph& compiled, const std::string& run_soc);

// The one SoC every SoC-specific blob of `compiled` names; nullopt when
// there is none, or they disagree.
std::optional<std::string> CompiledSoc(const Graph& compiled);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_COMPILED_TARGET_H_
