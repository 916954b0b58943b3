// The checksum footer: its bytes (v2 and the v1 it replaced), that the
// loader catches an edited byte through it at the level asked for, and that
// files written before it (or with v1) still load.
#include "framework/core/model/model_footer.h"

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/kit/bytecode_builder.h"
#include "tessera/bytecode.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// The v1 footer's layout with the standard CRC-32 check value: CRC-32 of
// "123456789" is 0xCBF43926 (the catalogue value of CRC-32/ISO-HDLC).
TEST(ModelFooter, V1LayoutIsLengthCrcMagic) {
  const std::string text = "123456789";
  std::vector<uint8_t> file(text.begin(), text.end());
  AppendModelFooterV1(file);
  const std::vector<uint8_t> expected = {'1',  '2',  '3',  '4',  '5', '6', '7', '8', '9',
                                         9,    0,    0,    0,    0,   0,   0,   0,  // covered length
                                         0x26, 0x39, 0xF4, 0xCB,                    // CRC-32, little-endian
                                         'T',  'C',  'R',  'C'};
  EXPECT_EQ(file, expected);
  EXPECT_EQ(FindModelFooter(file), ModelFooterKind::kWholeFileV1);
  absl::StatusOr<CheckedModelFile> checked = CheckModelFooter(file, /*check_data=*/false);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->body.size(), 9u);
  EXPECT_TRUE(checked->data_checked);  // v1 checks everything, whatever was asked
}

// v2 with the catalogue values: the whole text as tables (data CRC of
// nothing is 0), then the whole text as data.
TEST(ModelFooter, V2LayoutIsTablesEndLengthTwoCrcsMagic) {
  const std::string text = "123456789";
  std::vector<uint8_t> all_tables(text.begin(), text.end());
  AppendModelFooter(all_tables, 9);
  const std::vector<uint8_t> expected = {'1',  '2',  '3',  '4',  '5', '6', '7', '8', '9',
                                         9,    0,    0,    0,    0,   0,   0,   0,  // tables end
                                         9,    0,    0,    0,    0,   0,   0,   0,  // covered length
                                         0x26, 0x39, 0xF4, 0xCB,                    // tables CRC-32
                                         0,    0,    0,    0,                       // data CRC-32 of no bytes
                                         'T',  'C',  'R',  '2'};
  EXPECT_EQ(all_tables, expected);
  EXPECT_EQ(all_tables.size(), 9 + kModelFooterBytes);
  EXPECT_EQ(FindModelFooter(all_tables), ModelFooterKind::kSplitV2);

  std::vector<uint8_t> all_data(text.begin(), text.end());
  AppendModelFooter(all_data, 0);
  EXPECT_EQ(std::vector<uint8_t>(all_data.begin() + 25, all_data.begin() + 33),
            (std::vector<uint8_t>{0, 0, 0, 0, 0x26, 0x39, 0xF4, 0xCB}));
  absl::StatusOr<CheckedModelFile> checked = CheckModelFooter(all_data, /*check_data=*/true);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->body.size(), 9u);
  EXPECT_TRUE(checked->data_checked);
  // At structure the data is not read: a flipped data byte passes, at full not.
  all_data[4] ^= 0x10;
  EXPECT_TRUE(CheckModelFooter(all_data, false).ok());
  EXPECT_EQ(CheckModelFooter(all_data, true).status().code(), absl::StatusCode::kDataLoss);
}

// A tables end beyond the covered length is no footer (a mangled one).
TEST(ModelFooter, AV2FooterWhoseTablesEndPassesTheEndIsNone) {
  std::vector<uint8_t> file(10, 7);
  AppendModelFooter(file, 10);
  file[file.size() - kModelFooterBytes] = 11;  // tables end 11 > 10
  EXPECT_EQ(FindModelFooter(file), ModelFooterKind::kNone);
}

Graph SmallModel() {
  ModelBuilder b("small");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t w = b.Constant<float>("w", {4}, std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f});
  b.Output(b.Op(TSR_OP_ADD, {x, w}));
  return *std::move(b).Build();
}

// One DISPATCH op whose blob (a real envelope) holds `marker` in its body.
Graph CompiledGraph(float marker) {
  Graph g;
  g.name = "compiled";
  std::vector<uint8_t> body(256, 0);
  std::memcpy(body.data() + 64, &marker, sizeof(marker));
  absl::StatusOr<std::vector<uint8_t>> blob = kit::BuildBytecode({"cpu", "any"}, {{"p0", body, 1, 1}});
  EXPECT_TRUE(blob.ok()) << blob.status();
  g.bytecodes.push_back({"cpu", "any", g.AdoptBytes(*std::move(blob))});
  g.tensors.push_back(Tensor{"x", TSR_DTYPE_F32, {4}});
  g.tensors.push_back(Tensor{"y", TSR_DTYPE_F32, {4}});
  Op op;
  op.type = TSR_OP_DISPATCH;
  op.inputs = {0};
  op.outputs = {1};
  op.dispatch = DispatchRef{"cpu", "any", "p0", 0, -1, {0}};
  g.ops.push_back(std::move(op));
  g.inputs = {0};
  g.outputs = {1};
  return g;
}

absl::StatusOr<Graph> Parse(const std::vector<uint8_t>& bytes, VerifyLevel level = VerifyLevel::kStructure) {
  auto owned = std::make_shared<std::vector<uint8_t>>(bytes);
  return ParseModel(*owned, owned, {}, level);
}

size_t OffsetOf(const std::vector<uint8_t>& file, float value) {
  for (size_t i = 0; i + sizeof(value) <= file.size(); ++i)
    if (std::memcmp(file.data() + i, &value, sizeof(value)) == 0) return i;
  return file.size();
}

// The two CRCs over the regions the footer names, computed here over the
// bytes the writer produced.
TEST(ModelFooter, TheWriterEndsAFileWithAV2FooterOverItsTablesAndData) {
  const std::vector<uint8_t> file = *SerializeModel(SmallModel());
  ASSERT_EQ(FindModelFooter(file), ModelFooterKind::kSplitV2);
  const uint8_t* footer = file.data() + file.size() - kModelFooterBytes;
  uint64_t tables_end = 0, covered = 0;
  uint32_t tables_crc = 0, data_crc = 0;
  std::memcpy(&tables_end, footer, 8);  // little-endian host
  std::memcpy(&covered, footer + 8, 8);
  std::memcpy(&tables_crc, footer + 16, 4);
  std::memcpy(&data_crc, footer + 20, 4);
  EXPECT_EQ(covered, file.size() - kModelFooterBytes);
  EXPECT_EQ(tables_end % 64, 0u);                // the data segment starts 64-aligned
  EXPECT_EQ(OffsetOf(file, 0.25f), tables_end);  // the first (only) constant starts the data
  EXPECT_EQ(tables_crc, tsr_crc32_update(0, file.data(), tables_end));
  EXPECT_EQ(data_crc, tsr_crc32_update(0, file.data() + tables_end, covered - tables_end));
}

// The issue-13 contract: a flipped weight loads at structure (no weight is
// read) and is refused at full, naming both CRCs.
TEST(ModelFooter, AFlippedWeightLoadsAtStructureAndIsRefusedAtFull) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  const size_t at = OffsetOf(file, 0.75f);
  ASSERT_LT(at, file.size());
  file[at] ^= 0x01;
  absl::StatusOr<Graph> structure = Parse(file, VerifyLevel::kStructure);
  ASSERT_TRUE(structure.ok()) << structure.status();
  EXPECT_EQ(structure->verified, VerifyLevel::kStructure);
  absl::StatusOr<Graph> full = Parse(file, VerifyLevel::kFull);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(full.status().message(), HasSubstr("model checksum mismatch"));
  EXPECT_THAT(full.status().message(), HasSubstr("data segment"));
  uint64_t tables_end = 0;
  uint32_t stored = 0;
  std::memcpy(&tables_end, file.data() + file.size() - kModelFooterBytes, 8);
  std::memcpy(&stored, file.data() + file.size() - 8, 4);
  const uint32_t actual = tsr_crc32_update(0, file.data() + tables_end, file.size() - kModelFooterBytes - tables_end);
  EXPECT_THAT(full.status().message(), HasSubstr(absl::StrFormat("%08x", stored)));
  EXPECT_THAT(full.status().message(), HasSubstr(absl::StrFormat("%08x", actual)));
  // Unflipped, full passes and says so.
  file[at] ^= 0x01;
  absl::StatusOr<Graph> good = Parse(file, VerifyLevel::kFull);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->verified, VerifyLevel::kFull);
  EXPECT_TRUE(good->checksum_footer);
}

// Every byte of the tables region is checked at structure: a flipped one
// (the model's name here, which no verifier would catch) is refused.
TEST(ModelFooter, AFlippedTableByteIsRefusedAtStructure) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  const std::string name = "small";
  const auto it = std::search(file.begin(), file.end(), name.begin(), name.end());
  ASSERT_NE(it, file.end());
  *it ^= 0x20;  // 's' -> 'S': still a valid flatbuffer
  absl::StatusOr<Graph> g = Parse(file, VerifyLevel::kStructure);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("tables region"));
}

// A footer whose tables region stops before the tables end would leave
// table bytes unchecked: refused, even with its CRCs recomputed.
TEST(ModelFooter, AFooterThatDoesNotCoverTheTablesIsRefused) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  file.resize(file.size() - kModelFooterBytes);
  AppendModelFooter(file, 16);
  absl::StatusOr<Graph> g = Parse(file);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("tables region ends at byte 16"));
}

// Files written with the v1 footer: checked whole at either level, as before.
TEST(ModelFooter, AV1FileLoadsCheckedWholeAndAFlippedWeightIsRefused) {
  std::vector<uint8_t> file = *SerializeModel(SmallModel(), {.whole_file_footer_v1 = true});
  ASSERT_EQ(FindModelFooter(file), ModelFooterKind::kWholeFileV1);
  absl::StatusOr<Graph> g = Parse(file);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->verified, VerifyLevel::kFull);
  const size_t at = OffsetOf(file, 0.75f);
  file[at] ^= 0x01;
  for (VerifyLevel level : {VerifyLevel::kStructure, VerifyLevel::kFull}) {
    absl::StatusOr<Graph> flipped = Parse(file, level);
    ASSERT_FALSE(flipped.ok());
    EXPECT_EQ(flipped.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(flipped.status().message(), HasSubstr("model checksum mismatch"));
  }
}

// A file as written before the footer existed: no footer, no flag in the
// tables. It loads, unchecked, with the same graph.
TEST(ModelFooter, AFileWithoutTheFooterStillLoads) {
  const std::vector<uint8_t> with = *SerializeModel(SmallModel());
  const std::vector<uint8_t> old = *SerializeModel(SmallModel(), {.checksum_footer = false});
  EXPECT_FALSE(HasModelFooter(old));
  for (VerifyLevel level : {VerifyLevel::kStructure, VerifyLevel::kFull}) {
    absl::StatusOr<Graph> g = Parse(old, level);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->tensors.size(), 3u);
    EXPECT_EQ(g->verified, VerifyLevel::kStructure);  // no CRC covered the weights
    EXPECT_FALSE(g->checksum_footer);
  }
  // The old file ends with its last constant, as the format said (a
  // 16-byte constant, 64-aligned, ends the file).
  EXPECT_EQ(OffsetOf(old, 0.25f) + 16, old.size());
  EXPECT_EQ(with.size(), old.size() + kModelFooterBytes);
}

// The tables say a footer follows: cutting it off is an error, not a
// silent fall back to an unchecked load; so is every other cut, of either
// footer version, at either level.
TEST(ModelFooter, EveryTruncationIsRefused) {
  for (bool v1 : {false, true}) {
    const std::vector<uint8_t> file = *SerializeModel(CompiledGraph(0.5f), {.whole_file_footer_v1 = v1});
    for (VerifyLevel level : {VerifyLevel::kStructure, VerifyLevel::kFull})
      for (size_t len = 0; len < file.size(); ++len) {
        absl::StatusOr<Graph> g = Parse(std::vector<uint8_t>(file.begin(), file.begin() + len), level);
        ASSERT_FALSE(g.ok()) << "v1 " << v1 << " length " << len;
      }
  }
  std::vector<uint8_t> file = *SerializeModel(SmallModel());
  file.resize(file.size() - 1);
  absl::StatusOr<Graph> g = Parse(file);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("declare a checksum footer"));
}

// What the loader tells the runtime about each blob: verified only when the
// loader checked the blob's own envelope CRC (at full, whatever the footer
// covered); a footer's CRC alone does not vouch for a blob, so at
// structure the dispatch library checks it, v1 footer or not.
TEST(ModelFooter, ABlobIsMarkedVerifiedOnlyWhenItsOwnCrcWasChecked) {
  const Graph compiled = CompiledGraph(0.5f);
  struct Case {
    ModelWriteOptions write;
    VerifyLevel level;
    BlobCrc expected;
  };
  const Case cases[] = {
      {{}, VerifyLevel::kStructure, BlobCrc::kDeferred},
      {{}, VerifyLevel::kFull, BlobCrc::kVerified},
      {{.whole_file_footer_v1 = true}, VerifyLevel::kStructure, BlobCrc::kDeferred},
      {{.whole_file_footer_v1 = true}, VerifyLevel::kFull, BlobCrc::kVerified},
      {{.checksum_footer = false}, VerifyLevel::kStructure, BlobCrc::kDeferred},
      {{.checksum_footer = false}, VerifyLevel::kFull, BlobCrc::kVerified},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Graph> g = Parse(*SerializeModel(compiled, c.write), c.level);
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->bytecodes.size(), 1u);
    EXPECT_EQ(g->bytecodes[0].crc, c.expected)
        << c.write.checksum_footer << c.write.whole_file_footer_v1 << static_cast<int>(c.level);
  }
}

// Without a footer, full still reads the blob whole: its envelope CRC.
TEST(ModelFooter, WithoutAFooterFullChecksEachBlobsEnvelopeCrc) {
  std::vector<uint8_t> file = *SerializeModel(CompiledGraph(0.5f), {.checksum_footer = false});
  const size_t at = OffsetOf(file, 0.5f);
  ASSERT_LT(at, file.size());
  file[at] ^= 0x01;
  EXPECT_TRUE(Parse(file, VerifyLevel::kStructure).ok());
  absl::StatusOr<Graph> g = Parse(file, VerifyLevel::kFull);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(g.status().message(), HasSubstr("envelope check"));
}

// A blob whose envelope header is damaged is refused at structure too
// (the header and entry table are read; the body is not).
TEST(ModelFooter, ABrokenEnvelopeIsRefusedAtStructure) {
  std::vector<uint8_t> file = *SerializeModel(CompiledGraph(0.5f), {.checksum_footer = false});
  const std::string magic = "TSRB";  // TSR_BYTECODE_MAGIC_0..3
  const auto it = std::search(file.begin(), file.end(), magic.begin(), magic.end());
  ASSERT_NE(it, file.end());
  *it ^= 0x01;
  absl::StatusOr<Graph> g = Parse(file, VerifyLevel::kStructure);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("envelope check"));
}

// WriteModelFile streams the pieces (no whole-file buffer): the file it
// writes is byte for byte what SerializeModel returns, for both footers and
// for none, with constants and a bytecode blob.
TEST(ModelFooter, WriteModelFileWritesWhatSerializeModelReturns) {
  char dir[] = "/tmp/tessera_footer_test_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/m.tsr";
  Graph both = CompiledGraph(0.5f);
  const int32_t w = static_cast<int32_t>(both.tensors.size());
  both.tensors.push_back(Tensor{"w", TSR_DTYPE_F32, {3}});
  both.tensors.back().is_constant = true;
  both.tensors.back().data = both.AdoptBytes(std::vector<uint8_t>(12, 0x5a));
  (void)w;
  for (const Graph& g : {SmallModel(), CompiledGraph(0.5f), both})
    for (const ModelWriteOptions& options : {ModelWriteOptions{}, ModelWriteOptions{.whole_file_footer_v1 = true},
                                             ModelWriteOptions{.checksum_footer = false}}) {
      ASSERT_TRUE(WriteModelFile(g, path, options).ok());
      std::ifstream in(path, std::ios::binary);
      const std::vector<uint8_t> written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_EQ(written, *SerializeModel(g, options));
      EXPECT_TRUE(Parse(written, VerifyLevel::kFull).ok());
    }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tessera
