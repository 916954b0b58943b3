#include "framework/core/model/model_footer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tessera/bytecode.h"

namespace tessera {
namespace {

constexpr char kMagicV1[4] = {'T', 'C', 'R', 'C'};
constexpr char kMagicV2[4] = {'T', 'C', 'R', '2'};

uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

bool EndsWith(std::span<const uint8_t> file, const char (&magic)[4]) {
  return file.size() >= 4 && std::memcmp(file.data() + file.size() - 4, magic, 4) == 0;
}

absl::Status Mismatch(const char* what, uint32_t actual, uint32_t stored) {
  return absl::DataLossError(absl::StrFormat(
      "model checksum mismatch: the %s CRC-32 is %08x, its footer says %08x (the file was modified after it was "
      "written)",
      what, actual, stored));
}

}  // namespace

std::vector<uint8_t> ModelFooterBytes(uint64_t tables_end, uint64_t covered, uint32_t tables_crc, uint32_t data_crc) {
  std::vector<uint8_t> footer;
  footer.reserve(kModelFooterBytes);
  AppendLe(footer, tables_end, 8);
  AppendLe(footer, covered, 8);
  AppendLe(footer, tables_crc, 4);
  AppendLe(footer, data_crc, 4);
  footer.insert(footer.end(), kMagicV2, kMagicV2 + 4);
  return footer;
}

void AppendModelFooter(std::vector<uint8_t>& file, uint64_t tables_end) {
  const uint64_t covered = file.size();
  if (tables_end > covered) tables_end = covered;
  const std::vector<uint8_t> footer =
      ModelFooterBytes(tables_end, covered, tsr_crc32_update(0, file.data(), tables_end),
                       tsr_crc32_update(0, file.data() + tables_end, covered - tables_end));
  file.insert(file.end(), footer.begin(), footer.end());
}

std::vector<uint8_t> ModelFooterV1Bytes(uint64_t covered, uint32_t crc) {
  std::vector<uint8_t> footer;
  AppendLe(footer, covered, 8);
  AppendLe(footer, crc, 4);
  footer.insert(footer.end(), kMagicV1, kMagicV1 + 4);
  return footer;
}

void AppendModelFooterV1(std::vector<uint8_t>& file) {
  const std::vector<uint8_t> footer = ModelFooterV1Bytes(file.size(), tsr_crc32_update(0, file.data(), file.size()));
  file.insert(file.end(), footer.begin(), footer.end());
}

ModelFooterKind FindModelFooter(std::span<const uint8_t> file) {
  if (file.size() >= kModelFooterBytes && EndsWith(file, kMagicV2)) {
    const uint8_t* footer = file.data() + file.size() - kModelFooterBytes;
    const uint64_t covered = ReadLe(footer + 8, 8);
    if (covered == file.size() - kModelFooterBytes && ReadLe(footer, 8) <= covered) return ModelFooterKind::kSplitV2;
    return ModelFooterKind::kNone;
  }
  if (file.size() >= kModelFooterV1Bytes && EndsWith(file, kMagicV1) &&
      ReadLe(file.data() + file.size() - kModelFooterV1Bytes, 8) == file.size() - kModelFooterV1Bytes)
    return ModelFooterKind::kWholeFileV1;
  return ModelFooterKind::kNone;
}

void RefreshModelFooter(std::vector<uint8_t>& file) {
  switch (FindModelFooter(file)) {
    case ModelFooterKind::kWholeFileV1:
      file.resize(file.size() - kModelFooterV1Bytes);
      AppendModelFooterV1(file);
      break;
    case ModelFooterKind::kSplitV2: {
      const uint64_t tables_end = ReadLe(file.data() + file.size() - kModelFooterBytes, 8);
      file.resize(file.size() - kModelFooterBytes);
      AppendModelFooter(file, tables_end);
      break;
    }
    case ModelFooterKind::kNone:
      break;
  }
}

absl::StatusOr<CheckedModelFile> CheckModelFooter(std::span<const uint8_t> file, bool check_data) {
  switch (FindModelFooter(file)) {
    case ModelFooterKind::kWholeFileV1: {
      const uint64_t covered = file.size() - kModelFooterV1Bytes;
      const uint32_t stored = static_cast<uint32_t>(ReadLe(file.data() + covered + 8, 4));
      const uint32_t actual = tsr_crc32_update(0, file.data(), covered);
      if (stored != actual) return Mismatch("file's", actual, stored);
      return CheckedModelFile{file.first(covered), 0, true};
    }
    case ModelFooterKind::kSplitV2: {
      const uint64_t covered = file.size() - kModelFooterBytes;
      const uint8_t* footer = file.data() + covered;
      const uint64_t tables_end = ReadLe(footer, 8);
      const uint32_t tables_stored = static_cast<uint32_t>(ReadLe(footer + 16, 4));
      const uint32_t tables_actual = tsr_crc32_update(0, file.data(), tables_end);
      if (tables_stored != tables_actual) return Mismatch("tables region's", tables_actual, tables_stored);
      if (check_data) {
        const uint32_t data_stored = static_cast<uint32_t>(ReadLe(footer + 20, 4));
        const uint32_t data_actual = tsr_crc32_update(0, file.data() + tables_end, covered - tables_end);
        if (data_stored != data_actual)
          return Mismatch("data segment's (weights and bytecode)", data_actual, data_stored);
      }
      return CheckedModelFile{file.first(covered), tables_end, check_data};
    }
    case ModelFooterKind::kNone:
      break;
  }
  return absl::InternalError("CheckModelFooter: the file has no checksum footer");
}

}  // namespace tessera
