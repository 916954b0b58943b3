// Writing a Graph as a .tsr: the flatbuffer tables first, then a data
// segment with every constant and bytecode blob 64-byte aligned, so a
// loader can map the file and use them in place.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_MODEL_WRITER_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_MODEL_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera {

struct ModelWriteOptions {
  // End the file with the checksum footer (model/model_footer.h): v2, a
  // CRC-32 of the tables region and one of the data segment. False writes
  // the file as writers before the footer did; tests use it to check that
  // such files still load.
  bool checksum_footer = true;
  // With checksum_footer: the v1 whole-file footer instead, as writers
  // before v2 did (tests: such files still load, checked whole).
  bool whole_file_footer_v1 = false;
};

absl::StatusOr<std::vector<uint8_t>> SerializeModel(const Graph& graph, const ModelWriteOptions& options = {});

// Writes through WriteFileAtomically (base/atomic_file.h): a failure never
// leaves a half-written model behind, and no symlink is followed. The same
// bytes as SerializeModel, streamed: the tables, then each constant and
// blob straight from the graph's memory (the CRCs computed over the same
// pieces), so writing a model holds no second copy of its weights.
absl::Status WriteModelFile(const Graph& graph, const std::string& path, const ModelWriteOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_MODEL_WRITER_H_
