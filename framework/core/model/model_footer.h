// The checksum footer of a .tsr (docs/model_format.md §1): bytes after the
// data segment that let the loader detect an in-place edit of any byte (a
// flipped weight, a patched table) before using the file.
//
// Version 2 ("TCR2", the current version), 28 bytes, little-endian:
//
//   offset F = file size - 28:  uint64 T  (bytes [0, T) are the tables region)
//                   F + 8:      uint64 F  (bytes covered in all)
//                   F + 16:     uint32 CRC-32 of bytes [0, T)   (tables)
//                   F + 20:     uint32 CRC-32 of bytes [T, F)   (data segment)
//                   F + 24:     "TCR2"
//
// Two CRCs so that a load can check the tables (kilobytes) every time and
// the data segment (the weights and bytecode, gigabytes) only when asked:
// loading must not read every weight page.
//
// Version 1 ("TCRC"), 16 bytes: uint64 F, uint32 CRC-32 of [0, F), "TCRC".
// Still read (the whole CRC is checked, as before); no longer written
// except on request (tests).
//
// The CRC is the bytecode envelope's (tsr_crc32_update, api/tessera/
// bytecode.h). It is not a defence against a crafted file (whoever edits
// the file recomputes it); the verifiers are.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_MODEL_FOOTER_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_MODEL_FOOTER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

inline constexpr size_t kModelFooterV1Bytes = 16;
inline constexpr size_t kModelFooterBytes = 28;  // version 2

enum class ModelFooterKind { kNone, kWholeFileV1, kSplitV2 };

// Appends a version 2 footer: tables region [0, tables_end), data segment
// [tables_end, file.size()).
void AppendModelFooter(std::vector<uint8_t>& file, uint64_t tables_end);
// The 28 bytes of a version 2 footer for a file of `covered` bytes whose
// CRCs were computed as it was written (a streaming writer).
std::vector<uint8_t> ModelFooterBytes(uint64_t tables_end, uint64_t covered, uint32_t tables_crc, uint32_t data_crc);
// Appends a version 1 (whole-file) footer, as writers before version 2 did.
void AppendModelFooterV1(std::vector<uint8_t>& file);
// Its 16 bytes for a file of `covered` bytes whose CRC-32 is `crc`.
std::vector<uint8_t> ModelFooterV1Bytes(uint64_t covered, uint32_t crc);

// Which footer `file` ends with: the magic, and a covered length that is
// exactly where the footer starts (and, for v2, a tables region inside
// it). Files written before the footer existed end with data: kNone.
ModelFooterKind FindModelFooter(std::span<const uint8_t> file);
inline bool HasModelFooter(std::span<const uint8_t> file) { return FindModelFooter(file) != ModelFooterKind::kNone; }

// Recomputes the CRCs of the footer `file` ends with (either version; v2
// keeps its tables region), as a writer of crafted files would: tests and
// the fuzzer use it so that only the later checks can catch a mutation.
// A file without a footer is left as it is.
void RefreshModelFooter(std::vector<uint8_t>& file);

struct CheckedModelFile {
  std::span<const uint8_t> body;  // the file without its footer
  // v2: the end of the tables region the footer's first CRC covers; 0 for v1.
  uint64_t tables_end = 0;
  // True when a CRC covered the data segment (v1 always; v2 with check_data).
  bool data_checked = false;
};

// For a file with HasModelFooter. v1: the whole CRC. v2: the tables CRC,
// and the data CRC when `check_data`; with check_data false not one byte
// of the data segment is read. A mismatch is DATA_LOSS naming both CRCs
// (an edited file).
absl::StatusOr<CheckedModelFile> CheckModelFooter(std::span<const uint8_t> file, bool check_data);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_MODEL_FOOTER_H_
