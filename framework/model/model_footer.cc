#include "model/model_footer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tessera/bytecode.h"

namespace tessera {
namespace {

constexpr char kMagic[4] = {'T', 'C', 'R', 'C'};

uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void AppendLe(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

void AppendModelFooter(std::vector<uint8_t>& file) {
  const uint64_t covered = file.size();
  const uint32_t crc = tsr_crc32_update(0, file.data(), file.size());
  AppendLe(file, covered, 8);
  AppendLe(file, crc, 4);
  file.insert(file.end(), kMagic, kMagic + 4);
}

bool HasModelFooter(std::span<const uint8_t> file) {
  return file.size() >= kModelFooterBytes && std::memcmp(file.data() + file.size() - 4, kMagic, sizeof(kMagic)) == 0 &&
         ReadLe(file.data() + file.size() - kModelFooterBytes, 8) == file.size() - kModelFooterBytes;
}

absl::StatusOr<std::span<const uint8_t>> CheckModelFooter(std::span<const uint8_t> file) {
  const uint64_t covered = file.size() - kModelFooterBytes;
  const uint8_t* footer = file.data() + covered;
  const uint32_t stored = static_cast<uint32_t>(ReadLe(footer + 8, 4));
  const uint32_t actual = tsr_crc32_update(0, file.data(), covered);
  if (stored != actual)
    return absl::DataLossError(absl::StrFormat(
        "model checksum mismatch: the file's CRC-32 is %08x, its footer says %08x (the file was modified after "
        "it was written)",
        actual, stored));
  return file.first(covered);
}

}  // namespace tessera
