// The NIST FIPS 180-4 example vectors (csrc.nist.gov, "SHA256.pdf",
// "SHA2_Additional.pdf"), plus chunked updates that must match one update.
#include "framework/core/base/sha256.h"

#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(Sha256, NistOneBlockMessage) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, NistEmptyMessage) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, NistTwoBlockMessage) {
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, NistMillionAs) {
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, NistFourBlockMessage) {
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                      "mnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, ThePortableRoundsGiveTheSameDigests) {
  // Where the CPU has SHA extensions the vectors above ran on them; these
  // run the portable rounds on the same messages.
  for (const std::string& text : {std::string("abc"), std::string(1000000, 'a'), std::string(127, 'x')}) {
    Sha256 portable = Sha256::Portable();
    portable.Update(text);
    EXPECT_EQ(Sha256::Hex(portable.Finish()), Sha256Hex(text));
  }
  Sha256 p = Sha256::Portable();
  p.Update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  EXPECT_EQ(Sha256::Hex(p.Finish()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, ChunkedUpdatesEqualOneUpdate) {
  std::string text;
  for (int i = 0; i < 300; ++i) text.push_back(static_cast<char>('a' + i % 26));
  for (size_t step : {1u, 7u, 63u, 64u, 65u, 200u}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += step) h.Update(std::string_view(text).substr(at, step));
    EXPECT_EQ(Sha256::Hex(h.Finish()), Sha256Hex(text)) << "step " << step;
  }
}

TEST(Sha256, AnEmptyUpdateWithANullPointerChangesNothing) {
  // An empty std::vector's data() may be null; with bytes buffered, the old
  // Update passed that null to memcpy (UBSan: nonnull argument).
  Sha256 h;
  h.Update("ab");
  h.Update(std::span<const uint8_t>(static_cast<const uint8_t*>(nullptr), 0));
  h.Update("c");
  EXPECT_EQ(Sha256::Hex(h.Finish()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace tessera
