// The whole-file checksum footer of a .tsr (docs/model_format.md §5): 16
// bytes after the data segment that let the loader detect an in-place edit
// of any byte (a flipped weight, a patched table) before using the file.
//
//   offset F = file size - 16:  uint64 LE  F (the bytes covered)
//                   F + 8:      uint32 LE  CRC-32 of bytes [0, F)
//                   F + 12:     "TCRC"
//
// The CRC is the bytecode envelope's (tsr_crc32_update, api/tessera/
// bytecode.h). It is not a defence against a crafted file (whoever edits
// the file recomputes it); the verifiers are.
#ifndef TESSERA_FRAMEWORK_MODEL_MODEL_FOOTER_H_
#define TESSERA_FRAMEWORK_MODEL_MODEL_FOOTER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

inline constexpr size_t kModelFooterBytes = 16;

// Appends the footer covering every byte of `file` so far.
void AppendModelFooter(std::vector<uint8_t>& file);

// True when `file` ends with a footer: the magic, and a covered length
// that is exactly where the footer starts. Files written before the footer
// existed end with data and are read without a check.
bool HasModelFooter(std::span<const uint8_t> file);

// For a file with HasModelFooter: the file without its footer once the CRC
// matches; DATA_LOSS naming both CRCs when it does not (an edited file).
absl::StatusOr<std::span<const uint8_t>> CheckModelFooter(std::span<const uint8_t> file);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_MODEL_MODEL_FOOTER_H_
