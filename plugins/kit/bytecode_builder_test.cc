#include "bytecode_builder.h"

#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

std::vector<uint8_t> TwoEntryBlob() {
  BytecodeIdentity id{.vendor = "acme", .soc_model = "acme-1", .vendor_format_version = 3};
  std::vector<BytecodeEntry> entries = {
      {.name = "p0", .body = {1, 2, 3}, .input_count = 1, .output_count = 1},
      {.name = "p1", .body = {9, 8, 7, 6, 5}, .input_count = 2, .output_count = 1}};
  absl::StatusOr<std::vector<uint8_t>> blob = BuildBytecode(id, entries);
  EXPECT_TRUE(blob.ok()) << blob.status();
  return *blob;
}

TEST(BytecodeBuilder, BuildsAVerifiableEnvelope) {
  std::vector<uint8_t> blob = TwoEntryBlob();
  tsr_status code = TSR_OK;
  absl::StatusOr<VerifiedEntry> e = VerifyAndFindEntry(blob, "acme", "p1", &code);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->header.vendor_format_version, 3u);
  EXPECT_EQ(std::string(e->header.soc_model), "acme-1");
  EXPECT_EQ(e->entry.input_count, 2u);
  EXPECT_EQ(std::vector<uint8_t>(e->body.begin(), e->body.end()), (std::vector<uint8_t>{9, 8, 7, 6, 5}));
  EXPECT_EQ((e->header.body_offset + e->entry.offset) % 64, 0u);
}

TEST(BytecodeBuilder, RejectsWrongVendorAndMissingEntry) {
  std::vector<uint8_t> blob = TwoEntryBlob();
  tsr_status code = TSR_OK;
  EXPECT_FALSE(VerifyAndFindEntry(blob, "other", "p0", &code).ok());
  EXPECT_EQ(code, TSR_BYTECODE_INCOMPATIBLE);
  EXPECT_FALSE(VerifyAndFindEntry(blob, "acme", "p7", &code).ok());
  EXPECT_EQ(code, TSR_NOT_FOUND);
}

TEST(BytecodeBuilder, EveryBitFlipIsCaught) {
  const std::vector<uint8_t> blob = TwoEntryBlob();
  for (size_t byte = 0; byte < blob.size(); ++byte) {
    std::vector<uint8_t> bad = blob;
    bad[byte] ^= 0x10;
    tsr_status code = TSR_OK;
    EXPECT_FALSE(VerifyAndFindEntry(bad, "acme", "p0", &code).ok()) << "flip at " << byte;
    EXPECT_NE(code, TSR_OK);
  }
}

TEST(BytecodeBuilder, EveryTruncationIsCaught) {
  const std::vector<uint8_t> blob = TwoEntryBlob();
  for (size_t n = 0; n < blob.size(); ++n) {
    tsr_status code = TSR_OK;
    EXPECT_FALSE(VerifyAndFindEntry(std::span(blob.data(), n), "acme", "p0", &code).ok());
    EXPECT_EQ(code, TSR_BYTECODE_INVALID);
  }
}

TEST(BytecodeBuilder, RejectsOverlongNames) {
  EXPECT_FALSE(BuildBytecode({.vendor = std::string(40, 'v')}, {}).ok());
  EXPECT_FALSE(BuildBytecode({.vendor = "v"}, {{.name = std::string(70, 'e')}}).ok());
}

}  // namespace
}  // namespace tessera::kit
