// The whole-file checksum footer: its bytes, that the loader catches an
// edited byte through it, and that files written before it still load.
#include "model/model_footer.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/model_builder.h"
#include "model/model_loader.h"
#include "model/model_writer.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// The footer's layout with the standard CRC-32 check value: CRC-32 of
// "123456789" is 0xCBF43926 (the catalogue value of CRC-32/ISO-HDLC).
TEST(ModelFooter, LayoutIsLengthCrcMagic) {
  const std::string text = "123456789";
  std::vector<uint8_t> file(text.begin(), text.end());
  AppendModelFooter(file);
  const std::vector<uint8_t> expected = {'1', '2', '3', '4', '5', '6', '7', '8', '9',
                                         9,   0,   0,   0,   0,   0,   0,   0,         // covered length
                                         0x26, 0x39, 0xF4, 0xCB,                       // CRC-32, little-endian
                                         'T', 'C', 'R', 'C'};
  EXPECT_EQ(file, expected);
  EXPECT_TRUE(HasModelFooter(file));
  absl::StatusOr<std::span<const uint8_t>> body = CheckModelFooter(file);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->size(), 9u);
}

Graph SmallModel() {
  ModelBuilder b("small");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t w = b.Constant<float>("w", {4}, std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f});
  b.Output(b.Op(TSR_OP_ADD, {x, w}));
  return *std::move(b).Build();
}

absl::StatusOr<Graph> Parse(const std::vector<uint8_t>& bytes) {
  auto owned = std::make_shared<std::vector<uint8_t>>(bytes);
  return ParseModel(*owned, owned);
}

size_t OffsetOf(const std::vector<uint8_t>& file, float value) {
  for (size_t i = 0; i + sizeof(value) <= file.size(); ++i)
    if (std::memcmp(file.data() + i, &value, sizeof(value)) == 0) return i;
  return file.size();
}

TEST(ModelFooter, AFlippedByteInAConstantFailsTheLoadWithAChecksumMessage) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  ASSERT_TRUE(Parse(file).ok());
  const size_t at = OffsetOf(file, 0.75f);
  ASSERT_LT(at, file.size());
  file[at] ^= 0x01;
  absl::StatusOr<Graph> g = Parse(file);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("model checksum mismatch"));
}

// A file as written before the footer existed: no footer, no flag in the
// tables. It loads, unchecked, with the same graph.
TEST(ModelFooter, AFileWithoutTheFooterStillLoads) {
  const std::vector<uint8_t> with = *SerializeModel(SmallModel());
  const std::vector<uint8_t> old = *SerializeModel(SmallModel(), {.checksum_footer = false});
  EXPECT_FALSE(HasModelFooter(old));
  absl::StatusOr<Graph> g = Parse(old);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->tensors.size(), 3u);
  // The old file ends with its last constant, as the format said (a
  // 16-byte constant, 64-aligned, ends the file).
  EXPECT_EQ(OffsetOf(old, 0.25f) + 16, old.size());
  EXPECT_EQ(with.size(), old.size() + kModelFooterBytes);
}

// The tables say a footer follows: cutting it off is an error, not a
// silent fall back to an unchecked load.
TEST(ModelFooter, ACutFooterIsAnErrorWhenTheTablesDeclareOne) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  file.resize(file.size() - 1);
  absl::StatusOr<Graph> g = Parse(file);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("declare a checksum footer"));
}

}  // namespace
}  // namespace tessera
