#include "plugins/kit/bytecode_builder.h"

#include <cstring>

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

TEST(BytecodeBuilder, WritesEntriesSortedAndFindsThemByName) {
  // Given out of order, as a compiler numbering partitions 0..10 would.
  BytecodeIdentity id{.vendor = "acme", .soc_model = "acme-1"};
  std::vector<BytecodeEntry> entries = {{.name = "p_2", .body = {2}}, {.name = "p_10", .body = {10}},
                                        {.name = "p_1", .body = {1}}};
  absl::StatusOr<std::vector<uint8_t>> blob = BuildBytecode(id, entries);
  ASSERT_TRUE(blob.ok()) << blob.status();
  tsr_bytecode_header h;
  std::memcpy(&h, blob->data(), sizeof(h));
  EXPECT_EQ(h.flags & TSR_BYTECODE_FLAG_SORTED_ENTRIES, TSR_BYTECODE_FLAG_SORTED_ENTRIES);
  EXPECT_EQ(h.entry_size, 88u);
  // Byte order: "p_1" < "p_10" < "p_2".
  const char* expected[] = {"p_1", "p_10", "p_2"};
  for (uint32_t i = 0; i < 3; ++i) {
    tsr_bytecode_entry e;
    std::memcpy(&e, blob->data() + h.entry_table_offset + i * 88, sizeof(e));
    EXPECT_STREQ(e.name, expected[i]);
  }
  for (const auto& [name, byte] : std::vector<std::pair<const char*, uint8_t>>{{"p_1", 1}, {"p_10", 10}, {"p_2", 2}}) {
    tsr_status code = TSR_OK;
    absl::StatusOr<VerifiedEntry> e = VerifyAndFindEntry(*blob, "acme", name, &code);
    ASSERT_TRUE(e.ok()) << name << ": " << e.status();
    ASSERT_EQ(e->body.size(), 1u);
    EXPECT_EQ(e->body[0], byte) << name;
  }
}

TEST(BytecodeBuilder, RefusesDuplicateEntryNames) {
  BytecodeIdentity id{.vendor = "acme", .soc_model = "acme-1"};
  absl::StatusOr<std::vector<uint8_t>> blob =
      BuildBytecode(id, {{.name = "same", .body = {1}}, {.name = "same", .body = {2}}});
  ASSERT_FALSE(blob.ok());
  EXPECT_NE(blob.status().message().find("duplicate"), std::string::npos);
}

TEST(BytecodeBuilder, EnvelopeVerifiedSourceFlagSkipsOnlyTheChecksum) {
  std::vector<uint8_t> blob = TwoEntryBlob();
  tsr_bytecode_header h;
  std::memcpy(&h, blob.data(), sizeof(h));
  blob[h.body_offset] ^= 0x01;  // a body byte: only the CRC covers it
  tsr_status code = TSR_OK;
  EXPECT_FALSE(VerifyAndFindEntry(blob, "acme", "p0", &code).ok());
  EXPECT_EQ(code, TSR_BYTECODE_CHECKSUM);
  EXPECT_TRUE(VerifyAndFindEntry(blob, "acme", "p0", &code, TSR_SOURCE_FLAG_ENVELOPE_VERIFIED).ok());
  // Bounds are still checked with the flag: a truncated table is refused.
  std::vector<uint8_t> cut(blob.begin(), blob.begin() + 150);
  EXPECT_FALSE(VerifyAndFindEntry(cut, "acme", "p0", &code, TSR_SOURCE_FLAG_ENVELOPE_VERIFIED).ok());
}

}  // namespace
}  // namespace tessera::kit
