// SHA-256 (FIPS 180-4), written in-tree so that compile-cache keys are the
// same on every build, toolchain and machine (std::hash promises none of
// that). Checked against the NIST example vectors in sha256_test.cc.
// Portable C++, or the x86-64 SHA extensions where the CPU has them.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_SHA256_H_
#define TESSERA_FRAMEWORK_CORE_BASE_SHA256_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  // Tests: the portable rounds even where the CPU has SHA extensions.
  static Sha256 Portable() {
    Sha256 h;
    h.force_portable_ = true;
    return h;
  }
  void Update(std::span<const uint8_t> bytes);
  void Update(std::string_view text);
  // Ends the message; the object must not be updated afterwards.
  Digest Finish();

  static std::string Hex(const Digest& digest);

 private:
  void Block(const uint8_t* block);
  void Blocks(const uint8_t* blocks, size_t count);  // SHA extensions when the CPU has them

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
  bool force_portable_ = false;
};

// The lowercase hex SHA-256 of `text`.
std::string Sha256Hex(std::string_view text);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_SHA256_H_
