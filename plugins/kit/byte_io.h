// Little-endian byte writers (a counting pass and a writing pass into a
// buffer of the counted size) and a bounds-checked reader for untrusted
// bytes. Every Read returns false instead of reading past the end.
#ifndef TESSERA_PLUGINS_KIT_BYTE_IO_H_
#define TESSERA_PLUGINS_KIT_BYTE_IO_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace tessera::kit {

// The encoding calls every writer shares, over the writer's Raw(p, n) and
// size(): one field-by-field encoder then serves both a counting pass and
// a writing pass, so the two cannot disagree about the layout.
template <typename Writer>
class ByteEncoder {
 public:
  void U32(uint32_t v) { self().Raw(&v, 4); }
  void I32(int32_t v) { self().Raw(&v, 4); }
  void U64(uint64_t v) { self().Raw(&v, 8); }
  void I64(int64_t v) { self().Raw(&v, 8); }
  void F32(float v) { self().Raw(&v, 4); }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    self().Raw(s.data(), s.size());
  }
  void Bytes(std::span<const uint8_t> b) { self().Raw(b.data(), b.size()); }
  void I32Array(std::span<const int32_t> v) { Array(v); }
  void I64Array(std::span<const int64_t> v) { Array(v); }
  void F32Array(std::span<const float> v) { Array(v); }
  // Zero padding up to a multiple of `alignment` (at most 64), measured
  // from the start of the encoding.
  void AlignTo(size_t alignment) {
    static constexpr uint8_t kZeros[64] = {};
    self().Raw(kZeros, (alignment - self().size() % alignment) % alignment);
  }

 private:
  Writer& self() { return static_cast<Writer&>(*this); }
  template <typename T>
  void Array(std::span<const T> v) {
    U32(static_cast<uint32_t>(v.size()));
    self().Raw(v.data(), v.size() * sizeof(T));
  }
};

// The size pass: counts what a write would produce, copies nothing.
class ByteCounter : public ByteEncoder<ByteCounter> {
 public:
  void Raw(const void*, size_t n) { size_ += n; }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

// The write pass, into memory allocated once at the counted size (the
// final buffer itself, e.g. an entry's slot in a bytecode envelope). A
// write past the end is dropped and remembered (overflowed()), never made.
class SpanByteWriter : public ByteEncoder<SpanByteWriter> {
 public:
  explicit SpanByteWriter(std::span<uint8_t> out) : out_(out) {}
  void Raw(const void* p, size_t n) {
    if (n > out_.size() - pos_) {
      overflowed_ = true;
      return;
    }
    if (n > 0) std::memcpy(out_.data() + pos_, p, n);
    pos_ += n;
  }
  size_t size() const { return pos_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::span<uint8_t> out_;
  size_t pos_ = 0;
  bool overflowed_ = false;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool U32(uint32_t& v) { return Raw(&v, 4); }
  bool I32(int32_t& v) { return Raw(&v, 4); }
  bool U64(uint64_t& v) { return Raw(&v, 8); }
  bool I64(int64_t& v) { return Raw(&v, 8); }
  bool F32(float& v) { return Raw(&v, 4); }
  bool String(std::string& s) {
    uint32_t n = 0;
    if (!U32(n) || n > remaining()) return false;
    s.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  bool Span(uint64_t n, std::span<const uint8_t>& out) {
    if (n > remaining()) return false;
    out = bytes_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  bool I32Array(std::vector<int32_t>& v) { return Array(v); }
  bool I64Array(std::vector<int64_t>& v) { return Array(v); }
  bool F32Array(std::vector<float>& v) { return Array(v); }
  bool AlignTo(size_t alignment) {
    size_t aligned = (pos_ + alignment - 1) / alignment * alignment;
    if (aligned > bytes_.size()) return false;
    pos_ = aligned;
    return true;
  }
  bool Raw(void* p, size_t n) {
    if (n > remaining()) return false;
    if (n == 0) return true;  // p may be null (an empty vector's data())
    std::memcpy(p, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }
  absl::Status Fail(std::string_view what) const {
    return absl::InvalidArgumentError(std::string(what) + " (at byte " +
                                      std::to_string(pos_) + ")");
  }

 private:
  template <typename T>
  bool Array(std::vector<T>& v) {
    uint32_t n = 0;
    if (!U32(n) || n > remaining() / sizeof(T)) return false;
    v.resize(n);
    return Raw(v.data(), n * sizeof(T));
  }
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_BYTE_IO_H_
