// The protobuf wire format, the small part of it a TensorProto needs:
// a bounds-checked reader (varints, fixed32/64, length-delimited) that
// never reads past its bytes, and the writers for tags, varints and bytes.
// Used by tensor_proto.cc instead of linking protobuf.
#ifndef TESSERA_FRAMEWORK_CORE_IO_PROTOBUF_WIRE_H_
#define TESSERA_FRAMEWORK_CORE_IO_PROTOBUF_WIRE_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace tessera::io_wire {

namespace wire_types {
enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};
}  // namespace wire_types
using namespace wire_types;

// "malformed TensorProto at byte N: what".
inline absl::Status Malformed(size_t offset, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed TensorProto at byte ", offset, ": ", what));
}

// A bounds-checked cursor over protobuf wire-format bytes.
class WireReader {
 public:
  explicit WireReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool done() const { return pos_ >= bytes_.size(); }
  size_t pos() const { return pos_; }

  absl::StatusOr<uint64_t> Varint() {
    const size_t start = pos_;
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= bytes_.size()) return Malformed(start, "truncated varint");
      const uint8_t b = bytes_[pos_++];
      if (shift == 63 && (b & 0x7e) != 0) return Malformed(start, "varint overflows 64 bits");
      value |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return value;
    }
    return Malformed(start, "varint longer than 10 bytes");
  }

  absl::StatusOr<uint32_t> Fixed32() {
    if (bytes_.size() - pos_ < 4) return Malformed(pos_, "truncated fixed32");
    uint32_t v;
    std::memcpy(&v, bytes_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }

  absl::StatusOr<uint64_t> Fixed64() {
    if (bytes_.size() - pos_ < 8) return Malformed(pos_, "truncated fixed64");
    uint64_t v;
    std::memcpy(&v, bytes_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }

  absl::StatusOr<std::span<const uint8_t>> LengthDelimited() {
    const size_t start = pos_;
    absl::StatusOr<uint64_t> len = Varint();
    if (!len.ok()) return len.status();
    if (*len > bytes_.size() - pos_)
      return Malformed(start,
                       absl::StrCat("length ", *len, " runs past the end (", bytes_.size() - pos_, " bytes left)"));
    std::span<const uint8_t> out = bytes_.subspan(pos_, static_cast<size_t>(*len));
    pos_ += static_cast<size_t>(*len);
    return out;
  }

  // Skips one field's value of `wire` type (the tag already read).
  absl::Status Skip(uint32_t wire, uint32_t field, int depth = 0) {
    switch (wire) {
      case kVarint:
        return Varint().status();
      case kFixed64:
        return Fixed64().status();
      case kFixed32:
        return Fixed32().status();
      case kLengthDelimited:
        return LengthDelimited().status();
      case kStartGroup: {
        // Deprecated groups: skip fields until the matching end-group tag.
        if (depth > 32) return Malformed(pos_, "groups nested too deeply");
        while (true) {
          if (done()) return Malformed(pos_, absl::StrCat("unterminated group (field ", field, ")"));
          const size_t at = pos_;
          absl::StatusOr<uint64_t> tag = Varint();
          if (!tag.ok()) return tag.status();
          const uint32_t inner_wire = static_cast<uint32_t>(*tag & 7);
          const uint64_t inner_field = *tag >> 3;
          if (inner_field == 0 || inner_field > 0x1fffffff) return Malformed(at, "invalid field number 0");
          if (inner_wire == kEndGroup) {
            if (inner_field != field) return Malformed(at, "end-group tag does not match its start");
            return absl::OkStatus();
          }
          absl::Status s = Skip(inner_wire, static_cast<uint32_t>(inner_field), depth + 1);
          if (!s.ok()) return s;
        }
      }
      case kEndGroup:
        return Malformed(pos_, absl::StrCat("end-group tag without a start (field ", field, ")"));
      default:
        return Malformed(pos_, absl::StrCat("invalid wire type ", wire, " (field ", field, ")"));
    }
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

void PutVarint(std::vector<uint8_t>& out, uint64_t v);
void PutTag(std::vector<uint8_t>& out, uint32_t field, uint32_t wire);
// Tag, length, bytes.
void PutBytes(std::vector<uint8_t>& out, uint32_t field, const void* data, size_t size);

}  // namespace tessera::io_wire

#endif  // TESSERA_FRAMEWORK_CORE_IO_PROTOBUF_WIRE_H_
