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
#include "base/budgets.h"
#include "graph/graph.h"

namespace tessera {

// The file's size is held to budgets.max_model_bytes before it is opened;
// the parsed graph to CheckGraphBudgets (graph/graph_budgets.h).
absl::StatusOr<Graph> LoadModelFile(const std::string& path, const Budgets& budgets = {});

// Parses `bytes`, which `keep_alive` owns (the Graph co-owns it). A file
// that ends with the checksum footer (model/model_footer.h) is checked
// against it first, so any edited byte is reported as a checksum mismatch.
absl::StatusOr<Graph> ParseModel(std::span<const uint8_t> bytes,
                                 std::shared_ptr<const void> keep_alive, const Budgets& budgets = {});

// True when the bytes start like a .tsr (size prefix + "TSR1").
bool LooksLikeTsr(std::span<const uint8_t> bytes);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_MODEL_MODEL_LOADER_H_
