// .tsr bytes -> ParseModel at both verification levels (checksum footer, flatbuffers::Verifier,
// segment checks, graph conversion, then the semantic verifier) and
// VerifyGraph again on what it accepted: a malformed model must be an
// error, never a crash.
//
// The footer's CRC is fixed up before parsing when the input ends with a
// footer (the magic and a covered length equal to where it starts):
// otherwise nearly every mutation would stop at "checksum mismatch" and
// never reach the parser, and an attacker recomputes the CRC anyway (it
// detects accidents, docs/reliability.md §9). Inputs without a footer, or
// with a cut or mangled one, are parsed as they are, so the "declares a
// footer but has none" and old-format paths are fuzzed too.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> input(data, size);
  std::vector<uint8_t> refooted;
  if (tessera::HasModelFooter(input)) {
    refooted.assign(data, data + size);
    tessera::RefreshModelFooter(refooted);
    input = refooted;
  }
  // A private, 8-byte aligned copy, as a mapped file would be: the loader
  // may keep pointers into it (the Graph co-owns it).
  auto copy = std::shared_ptr<uint64_t[]>(new uint64_t[input.size() / 8 + 1]);
  std::memcpy(copy.get(), input.data(), input.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(copy.get());
  for (tessera::VerifyLevel level : {tessera::VerifyLevel::kStructure, tessera::VerifyLevel::kFull}) {
    absl::StatusOr<tessera::Graph> graph = tessera::ParseModel({bytes, input.size()}, copy, {}, level);
    if (graph.ok()) (void)tessera::VerifyGraph(*graph);
  }
  return 0;
}
