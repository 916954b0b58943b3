#include "framework/core/io/protobuf_wire.h"

namespace tessera::io_wire {

void PutVarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

void PutTag(std::vector<uint8_t>& out, uint32_t field, uint32_t wire) { PutVarint(out, (uint64_t{field} << 3) | wire); }

void PutBytes(std::vector<uint8_t>& out, uint32_t field, const void* data, size_t size) {
  PutTag(out, field, kLengthDelimited);
  PutVarint(out, size);
  const uint8_t* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + size);
}

}  // namespace tessera::io_wire
