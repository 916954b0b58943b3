// Builds a blob in the standard envelope of tessera/bytecode.h: header,
// entry table, then the vendor body; computes the checksum last.
#ifndef TESSERA_PLUGINS_KIT_BYTECODE_BUILDER_H_
#define TESSERA_PLUGINS_KIT_BYTECODE_BUILDER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/kit/body_writer.h"
#include "tessera/bytecode.h"
#include "tessera/dispatch.h"

namespace tessera::kit {

struct BytecodeEntry {
  std::string name;            // < TSR_BYTECODE_ENTRY_NAME_SIZE chars
  std::vector<uint8_t> body;   // the entry point's code
  uint32_t input_count = 0;
  uint32_t output_count = 0;
  // Instead of `body` (which must then be empty): the body written straight
  // into its slot of the blob, so it is never held in a vector of its own.
  std::optional<BodyWriter> body_writer;
};

struct BytecodeIdentity {
  std::string vendor;          // < TSR_BYTECODE_NAME_SIZE chars
  std::string soc_model;
  uint32_t vendor_format_version = 1;
};

// Each entry body starts 64-byte aligned within the blob. Entries are
// written sorted by name (TSR_BYTECODE_FLAG_SORTED_ENTRIES); duplicate names
// are an error.
absl::StatusOr<std::vector<uint8_t>> BuildBytecode(
    const BytecodeIdentity& identity, const std::vector<BytecodeEntry>& entries);

// Verifies `blob` for `vendor` and returns the body bytes of `entry_point`.
// The returned span points into `blob`. `source_flags` are the
// tsr_executable_source flags (TSR_SOURCE_FLAG_ENVELOPE_VERIFIED skips the
// checksum, which the host already ran on these bytes).
struct VerifiedEntry {
  tsr_bytecode_header header;
  tsr_bytecode_entry entry;
  std::span<const uint8_t> body;
};
absl::StatusOr<VerifiedEntry> VerifyAndFindEntry(std::span<const uint8_t> blob,
                                                 const char* vendor,
                                                 const char* entry_point,
                                                 tsr_status* out_code, uint32_t source_flags = 0);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_BYTECODE_BUILDER_H_
