// Loading a .tsr: map, run flatbuffers::Verifier over the table region,
// check every data-segment range, convert to a Graph whose constants and
// bytecode point into the map, then run the semantic verifier. A malformed
// file yields an error naming what is wrong, never a crash.
#ifndef TESSERA_FRAMEWORK_MODEL_MODEL_LOADER_H_
#define TESSERA_FRAMEWORK_MODEL_MODEL_LOADER_H_

#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tessera {

absl::StatusOr<Graph> LoadModelFile(const std::string& path);

// Parses `bytes`, which `keep_alive` owns (the Graph co-owns it).
absl::StatusOr<Graph> ParseModel(std::span<const uint8_t> bytes,
                                 std::shared_ptr<const void> keep_alive);

// True when the bytes start like a .tsr (size prefix + "TSR1").
bool LooksLikeTsr(std::span<const uint8_t> bytes);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_MODEL_MODEL_LOADER_H_
