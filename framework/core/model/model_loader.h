// Loading a .tsr: map, run flatbuffers::Verifier over the table region,
// check every data-segment range, convert to a Graph whose constants and
// bytecode point into the map, then run the semantic verifier. A malformed
// file yields an error naming what is wrong, never a crash.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_MODEL_LOADER_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_MODEL_LOADER_H_

#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "framework/core/base/budgets.h"
#include "framework/core/graph/graph.h"

namespace tessera {

// The file's size is held to budgets.max_model_bytes before it is opened;
// the parsed graph to CheckGraphBudgets (graph/graph_budgets.h).
absl::StatusOr<Graph> LoadModelFile(const std::string& path, const Budgets& budgets = {},
                                    VerifyLevel level = VerifyLevel::kStructure);

// Parses `bytes`, which `keep_alive` owns (the Graph co-owns it). A file
// that ends with a checksum footer (model/model_footer.h) is checked
// against it first, so an edited byte is reported as a checksum mismatch:
//  - kStructure (the default): the tables region's CRC (v2 footer), the
//    verifiers and range checks, and each bytecode envelope's layout. No
//    byte of the data segment past the envelope headers and entry tables is
//    read, so the load time does not grow with the weights; an edited
//    weight is not detected.
//  - kFull: also the data segment's CRC (every weight and bytecode byte)
//    and each blob's own envelope CRC, whatever the footer covered.
// A v1 (whole-file) footer is always checked whole, as before v2.
// Graph::verified says what was checked; each blob's BlobCrc whether its
// CRC was (dispatch/loaded_model.cc tells the library only then).
absl::StatusOr<Graph> ParseModel(std::span<const uint8_t> bytes, std::shared_ptr<const void> keep_alive,
                                 const Budgets& budgets = {}, VerifyLevel level = VerifyLevel::kStructure);

// True when the bytes start like a .tsr (size prefix + "TSR1").
bool LooksLikeTsr(std::span<const uint8_t> bytes);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_MODEL_LOADER_H_
