// Bytes -> the envelope verifier every dispatch library and the framework
// share (api/tessera/bytecode.h), as received and with the checksum made
// right (so the bounds and entry-table checks are reached), for no vendor
// and for a named one, then a lookup of every entry it accepted.
#include <cstdint>
#include <cstring>
#include <vector>

#include "tessera/bytecode.h"

namespace {

void VerifyAndLookUp(const std::vector<uint8_t>& blob, uint32_t flags) {
  char err[256];
  tsr_bytecode_header h;
  (void)tsr_bytecode_verify(blob.data(), blob.size(), "cpu", nullptr, err, sizeof(err));
  if (tsr_bytecode_verify_ex(blob.data(), blob.size(), nullptr, flags, &h, err, sizeof(err)) != TSR_OK) return;
  const uint64_t stride = tsr_bytecode_entry_stride(&h);
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    char name[TSR_BYTECODE_ENTRY_NAME_SIZE];
    std::memcpy(name, blob.data() + h.entry_table_offset + i * stride, sizeof(name));
    tsr_bytecode_entry e;
    if (tsr_bytecode_find_entry(blob.data(), &h, name, &e) != TSR_OK) __builtin_trap();  // verified names must be found
  }
  tsr_bytecode_entry e;
  (void)tsr_bytecode_find_entry(blob.data(), &h, "no such entry", &e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> blob(data, data + size);
  VerifyAndLookUp(blob, 0);
  VerifyAndLookUp(blob, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM);
  if (blob.size() >= sizeof(tsr_bytecode_header)) {
    const uint32_t crc = tsr_bytecode_compute_checksum(blob.data(), blob.size());
    std::memcpy(blob.data() + offsetof(tsr_bytecode_header, checksum), &crc, sizeof(crc));
    VerifyAndLookUp(blob, 0);
  }
  return 0;
}
