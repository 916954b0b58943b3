// .tsr bytes -> ParseModel (flatbuffers::Verifier, segment checks, graph
// conversion, then the semantic verifier) and VerifyGraph again on what it
// accepted: a malformed model must be an error, never a crash.
#include <cstdint>
#include <cstring>
#include <memory>

#include "graph/graph_verifier.h"
#include "model/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A private, 8-byte aligned copy, as a mapped file would be: the loader
  // may keep pointers into it (the Graph co-owns it).
  auto copy = std::shared_ptr<uint64_t[]>(new uint64_t[size / 8 + 1]);
  std::memcpy(copy.get(), data, size);
  const auto* bytes = reinterpret_cast<const uint8_t*>(copy.get());
  absl::StatusOr<tessera::Graph> graph = tessera::ParseModel({bytes, size}, copy);
  if (graph.ok()) (void)tessera::VerifyGraph(*graph);
  return 0;
}
