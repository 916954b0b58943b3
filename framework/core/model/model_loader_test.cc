// The model loader on valid files and their corruptions: round trips
// (with and without DISPATCH bytecode), every truncation, random bit flips,
// files that are no model, and what the writer refuses. The semantic checks
// on hand-built flatbuffers are in model_loader_semantics_test.cc.
#include "framework/core/model/model_loader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "flatbuffers/flatbuffers.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_writer.h"
#include "framework/core/schema/model_format_version.h"
#include "framework/core/schema/tessera_model_generated.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/kit/bytecode_builder.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/special_files_for_test.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
namespace fb = ::tessera::schema;

using ::testing::HasSubstr;

// x:f32[1,4] -> FC(w f32[3,4], b f32[3], relu) -> y:f32[1,3]
// x -> QUANTIZE(i8, per-tensor) -> FC(qw i8[3,4] per-channel axis 0) -> yq
Graph SmallModel() {
  ModelBuilder b("small");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 4});
  const int32_t w = b.Constant<float>("w", {3, 4}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const int32_t bias = b.Constant<float>("b", {3}, std::vector<float>{0.5f, -0.5f, 0.25f});
  const int32_t y =
      b.Op(TSR_OP_FULLY_CONNECTED, {x, w, bias}, {{TSR_ATTR_ACTIVATION, Ints({TSR_ACTIVATION_RELU})}}, {.name = "y"});
  const int32_t qw = b.Constant<int8_t>("qw", {3, 4}, std::vector<int8_t>{-128, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 127},
                                        Quantization{{0.5f, 0.25f, 0.125f}, {0, 1, -1}, 0});
  const int32_t xq = b.Op(TSR_OP_QUANTIZE, {x}, {},
                          {.name = "xq", .output_dtype = TSR_DTYPE_I8, .output_quant = Quantization{{0.05f}, {3}, -1}});
  const int32_t yq = b.Op(TSR_OP_FULLY_CONNECTED, {xq, qw}, {{TSR_ATTR_CLIP_MIN, Floats({-1.5f})}},
                          {.name = "yq", .output_dtype = TSR_DTYPE_I32});
  b.Output(y);
  b.Output(yq);
  b.Metadata("author", "model_loader_test");
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// Without the checksum footer: these tests corrupt bytes to reach the
// structural checks, which is what a crafted file (one with a recomputed
// checksum, or none) meets. model_footer_test.cc covers the footer.
constexpr ModelWriteOptions kNoFooter{.checksum_footer = false};

std::vector<uint8_t> SmallModelBytes() {
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(SmallModel(), kNoFooter);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

// A blob in the standard envelope (the loader checks each envelope): one
// entry point with a 200-byte body.
std::vector<uint8_t> EnvelopedBlob() {
  std::vector<uint8_t> body(200);
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>(i * 7);
  absl::StatusOr<std::vector<uint8_t>> blob =
      kit::BuildBytecode({"cpu", "any"}, {{"cpu_partition_0", std::move(body), 1, 1}});
  EXPECT_TRUE(blob.ok()) << blob.status();
  return blob.ok() ? *std::move(blob) : std::vector<uint8_t>{};
}

// SmallModel plus a DISPATCH op running an AOT bytecode blob, so the
// bytecode table and dispatch references are exercised too.
Graph DispatchModel() {
  Graph g = SmallModel();
  g.bytecodes.push_back({"cpu", "any", g.AdoptBytes(EnvelopedBlob())});
  g.tensors.push_back(Tensor{"dispatched", TSR_DTYPE_F32, {1, 3}});
  Op op;
  op.type = TSR_OP_DISPATCH;
  op.inputs = {0};
  op.outputs = {static_cast<int32_t>(g.tensors.size() - 1)};
  op.id = g.NextOpId();
  op.dispatch = DispatchRef{"cpu", "any", "cpu_partition_0", 0, -1, {0, 1}};
  g.ops.push_back(std::move(op));
  g.outputs.push_back(static_cast<int32_t>(g.tensors.size() - 1));
  EXPECT_TRUE(VerifyGraph(g).ok()) << VerifyGraph(g);
  return g;
}

absl::StatusOr<Graph> ParseCopy(const std::vector<uint8_t>& bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(bytes);
  return ParseModel(std::span<const uint8_t>(owned->data(), owned->size()), owned);
}

void ExpectSameGraph(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const Tensor &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name) << i;
    EXPECT_EQ(x.dtype, y.dtype) << i;
    EXPECT_EQ(x.shape, y.shape) << i;
    EXPECT_EQ(x.is_constant, y.is_constant) << i;
    EXPECT_EQ(x.quant.scales, y.quant.scales) << i;
    EXPECT_EQ(x.quant.zero_points, y.quant.zero_points) << i;
    if (x.quant.quantized()) {
      EXPECT_EQ(x.quant.axis, y.quant.axis) << i;
    }
    ASSERT_EQ(x.data.size(), y.data.size()) << i;
    if (!x.data.empty()) {
      EXPECT_EQ(std::memcmp(x.data.data(), y.data.data(), x.data.size()), 0) << i;
    }
  }
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].type, b.ops[i].type) << i;
    EXPECT_EQ(a.ops[i].id, b.ops[i].id) << i;
    EXPECT_EQ(a.ops[i].inputs, b.ops[i].inputs) << i;
    EXPECT_EQ(a.ops[i].outputs, b.ops[i].outputs) << i;
    ASSERT_EQ(a.ops[i].attrs.size(), b.ops[i].attrs.size()) << i;
    for (const auto& [key, value] : a.ops[i].attrs) {
      const Attribute* other = b.ops[i].FindAttr(key);
      ASSERT_NE(other, nullptr) << "op " << i << " key " << key;
      EXPECT_EQ(value.ints, other->ints);
      EXPECT_EQ(value.floats, other->floats);
    }
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.metadata, b.metadata);
}

// Every constant lies inside `file`, 64-byte aligned relative to its start.
void ExpectConstantsInPlace(const Graph& g, std::span<const uint8_t> file) {
  size_t constants = 0;
  for (const Tensor& t : g.tensors) {
    if (!t.is_constant) continue;
    ++constants;
    ASSERT_GE(t.data.data(), file.data()) << t.name << " was copied out of the buffer";
    ASSERT_LE(t.data.data() + t.data.size(), file.data() + file.size()) << t.name;
    EXPECT_EQ((t.data.data() - file.data()) % 64, 0) << t.name << " is not 64-byte aligned";
  }
  EXPECT_GT(constants, 0u);
}

TEST(ModelLoaderTest, SerializeParseRoundTrip) {
  const Graph original = SmallModel();
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(original);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(LooksLikeTsr(*bytes));
  auto owned = std::make_shared<const std::vector<uint8_t>>(*bytes);
  const std::span<const uint8_t> file(owned->data(), owned->size());
  absl::StatusOr<Graph> parsed = ParseModel(file, owned);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameGraph(original, *parsed);
  ExpectConstantsInPlace(*parsed, file);

  // Spot checks on what the builder made.
  const Tensor& qw = parsed->tensors[4];
  EXPECT_EQ(qw.name, "qw");
  EXPECT_EQ(qw.dtype, TSR_DTYPE_I8);
  EXPECT_EQ(qw.quant.axis, 0);
  EXPECT_EQ(qw.quant.scales, (std::vector<float>{0.5f, 0.25f, 0.125f}));
  EXPECT_EQ(qw.quant.zero_points, (std::vector<int64_t>{0, 1, -1}));
  EXPECT_EQ(static_cast<int8_t>(qw.data[0]), -128);
  EXPECT_EQ(static_cast<int8_t>(qw.data[11]), 127);
  const Tensor& xq = parsed->tensors[5];
  EXPECT_EQ(xq.dtype, TSR_DTYPE_I8);
  EXPECT_EQ(xq.quant.zero_points, (std::vector<int64_t>{3}));
  EXPECT_EQ(parsed->tensors[3].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(parsed->ops[0].FindAttr(TSR_ATTR_ACTIVATION)->ints, (std::vector<int64_t>{TSR_ACTIVATION_RELU}));
  EXPECT_EQ(parsed->ops[2].FindAttr(TSR_ATTR_CLIP_MIN)->floats, (std::vector<float>{-1.5f}));
  EXPECT_EQ(parsed->FindMetadata("author"), "model_loader_test");

  // The parsed graph keeps the buffer alive on its own.
  const uint8_t* w_data = parsed->tensors[1].data.data();
  owned.reset();
  Graph copy = *parsed;
  parsed = absl::InternalError("dropped");
  EXPECT_EQ(copy.tensors[1].data.data(), w_data);
  float w0;
  std::memcpy(&w0, copy.tensors[1].data.data(), 4);
  EXPECT_EQ(w0, 1.0f);

  // Serializing the parsed graph again gives the same bytes.
  absl::StatusOr<std::vector<uint8_t>> again = SerializeModel(copy);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *bytes);
}

TEST(ModelLoaderTest, DispatchModelRoundTrip) {
  const Graph original = DispatchModel();
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(original);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto owned = std::make_shared<const std::vector<uint8_t>>(*bytes);
  const std::span<const uint8_t> file(owned->data(), owned->size());
  absl::StatusOr<Graph> parsed = ParseModel(file, owned);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameGraph(original, *parsed);
  ASSERT_EQ(parsed->bytecodes.size(), 1u);
  const BytecodeBlob& blob = parsed->bytecodes[0];
  EXPECT_EQ(blob.vendor, "cpu");
  EXPECT_EQ(blob.soc_model, "any");
  ASSERT_EQ(blob.bytes.size(), original.bytecodes[0].bytes.size());
  EXPECT_EQ(std::memcmp(blob.bytes.data(), original.bytecodes[0].bytes.data(), blob.bytes.size()), 0);
  EXPECT_GE(blob.bytes.data(), file.data());
  EXPECT_EQ((blob.bytes.data() - file.data()) % 64, 0);
  const Op& d = parsed->ops.back();
  ASSERT_TRUE(d.dispatch.has_value());
  EXPECT_EQ(d.dispatch->entry_point, "cpu_partition_0");
  EXPECT_EQ(d.dispatch->bytecode, 0);
  EXPECT_EQ(d.dispatch->jit_slot, -1);
  EXPECT_EQ(d.dispatch->source_op_ids, (std::vector<uint32_t>{0, 1}));
}

// A blob whose own envelope CRC is stale, in a file whose footer was
// refreshed over it: the footer vouches for the file, not for the blob.
// --verify full checks the blob's own CRC once, whatever the footer says
// (it used to mark the blob verified and the dispatch library skipped it).
TEST(ModelLoaderTest, VerifyFullChecksEachBlobsOwnCrcWhateverTheFooterCovers) {
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(DispatchModel());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(HasModelFooter(*bytes));
  // The body's bytes are i * 7 (EnvelopedBlob); byte 100 is 700 mod 256.
  const std::vector<uint8_t> run = {static_cast<uint8_t>(100 * 7), static_cast<uint8_t>(101 * 7),
                                    static_cast<uint8_t>(102 * 7), static_cast<uint8_t>(103 * 7)};
  auto at = std::search(bytes->begin(), bytes->end(), run.begin(), run.end());
  ASSERT_NE(at, bytes->end());
  *at ^= 0x01;
  RefreshModelFooter(*bytes);
  absl::StatusOr<Graph> full = ParseModel(*bytes, nullptr, {}, VerifyLevel::kFull);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().code(), absl::StatusCode::kDataLoss) << full.status();
  EXPECT_THAT(std::string(full.status().message()), ::testing::HasSubstr("bytecode 0"));
  // At kStructure the envelope's layout passes and the CRC is deferred to
  // the dispatch library, which is then not told it was checked.
  absl::StatusOr<Graph> structure = ParseModel(*bytes, nullptr, {}, VerifyLevel::kStructure);
  ASSERT_TRUE(structure.ok()) << structure.status();
  EXPECT_EQ(structure->bytecodes[0].crc, BlobCrc::kDeferred);
  // The intact file at kFull: the blob's CRC was checked here.
  absl::StatusOr<std::vector<uint8_t>> intact = SerializeModel(DispatchModel());
  absl::StatusOr<Graph> ok = ParseModel(*intact, nullptr, {}, VerifyLevel::kFull);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->bytecodes[0].crc, BlobCrc::kVerified);
}

TEST(ModelLoaderTest, WriteAndLoadFile) {
  const fs::path dir = fs::temp_directory_path() / ("tessera_model_loader_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "small.tsr").string();
  const Graph original = SmallModel();
  ASSERT_TRUE(WriteModelFile(original, path).ok());
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  absl::StatusOr<Graph> loaded = LoadModelFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameGraph(original, *loaded);
  // Constants point into the page-aligned mapping, so absolute addresses
  // are 64-byte aligned too.
  for (const Tensor& t : loaded->tensors)
    if (t.is_constant) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data.data()) % 64, 0u) << t.name;
    }

  // Errors name the file.
  absl::StatusOr<Graph> missing = LoadModelFile((dir / "missing.tsr").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("missing.tsr"));
  {
    std::ofstream f((dir / "junk.tsr").string(), std::ios::binary);
    f << "this is not a model at all";
  }
  absl::StatusOr<Graph> junk = LoadModelFile((dir / "junk.tsr").string());
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(std::string(junk.status().message()), HasSubstr("junk.tsr"));
  EXPECT_THAT(std::string(junk.status().message()), HasSubstr("TSR1"));
  { std::ofstream f((dir / "empty.tsr").string(), std::ios::binary); }
  EXPECT_FALSE(LoadModelFile((dir / "empty.tsr").string()).ok());
  EXPECT_FALSE(LoadModelFile(dir.string()).ok());  // a directory
  // Writing into a missing directory fails cleanly.
  EXPECT_FALSE(WriteModelFile(original, (dir / "no" / "such" / "m.tsr").string()).ok());
  fs::remove_all(dir);
}

// Every possible truncation either fails or (when only trailing padding is
// cut) still yields a verified graph with the same constants.
TEST(ModelLoaderTest, EveryTruncationFailsCleanly) {
  const std::vector<uint8_t> bytes = SmallModelBytes();
  ASSERT_FALSE(bytes.empty());
  const Graph original = SmallModel();
  size_t failures = 0;
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto owned = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.begin() + len);
    absl::StatusOr<Graph> g = ParseModel(std::span<const uint8_t>(owned->data(), owned->size()), owned);
    if (!g.ok()) {
      ++failures;
      EXPECT_FALSE(g.status().message().empty());
      continue;
    }
    EXPECT_TRUE(VerifyGraph(*g).ok()) << "length " << len;
    ExpectSameGraph(original, *g);
  }
  // All but the trailing padding must fail.
  std::printf("%zu of %zu truncations refused\n", failures, bytes.size());
  EXPECT_GT(failures, bytes.size() - 64);
}

TEST(ModelLoaderTest, EveryTruncationOfADispatchModelFailsCleanly) {
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(DispatchModel());
  ASSERT_TRUE(bytes.ok());
  size_t failures = 0;
  for (size_t len = 0; len < bytes->size(); ++len) {
    auto owned = std::make_shared<const std::vector<uint8_t>>(bytes->begin(), bytes->begin() + len);
    absl::StatusOr<Graph> g = ParseModel(std::span<const uint8_t>(owned->data(), owned->size()), owned);
    if (!g.ok()) {
      ++failures;
      continue;
    }
    ASSERT_TRUE(VerifyGraph(*g).ok()) << "length " << len;
    ASSERT_EQ(g->bytecodes.size(), 1u);
    EXPECT_EQ(g->bytecodes[0].bytes.size(), EnvelopedBlob().size());
  }
  EXPECT_GT(failures, bytes->size() - 64);
}

TEST(ModelLoaderTest, RandomBitFlipsNeverCrash) {
  absl::StatusOr<std::vector<uint8_t>> with_dispatch = SerializeModel(DispatchModel(), kNoFooter);
  ASSERT_TRUE(with_dispatch.ok()) << with_dispatch.status();
  std::mt19937 rng(20240607);
  size_t ok = 0, failed = 0;
  // A fixed number of flips bounds the work; how long it takes is not a
  // property of the loader a test can judge (no wall-clock assertions).
  const std::vector<std::vector<uint8_t>> models{SmallModelBytes(), *with_dispatch};
  for (const std::vector<uint8_t>& bytes : models) {
    for (int iter = 0; iter < 3000; ++iter) {
      auto owned = std::make_shared<std::vector<uint8_t>>(bytes);
      const size_t bit = rng() % (bytes.size() * 8);
      (*owned)[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const std::span<const uint8_t> file(owned->data(), owned->size());
      absl::StatusOr<Graph> g = ParseModel(file, owned);
      if (!g.ok()) {
        ++failed;
        EXPECT_FALSE(g.status().message().empty());
        continue;
      }
      ++ok;
      ASSERT_TRUE(VerifyGraph(*g).ok()) << "flip of bit " << bit << " loaded an unverified graph";
      // Whatever loaded must be safe to read in full.
      uint64_t sum = 0;
      for (const Tensor& t : g->tensors) {
        if (!t.is_constant) continue;
        ASSERT_GE(t.data.data(), file.data());
        ASSERT_LE(t.data.data() + t.data.size(), file.data() + file.size());
        for (uint8_t b : t.data) sum += b;
      }
      for (const Op& op : g->ops)
        for (int32_t t : op.inputs) ASSERT_LT(t, static_cast<int32_t>(g->tensors.size()));
      for (const BytecodeBlob& b : g->bytecodes) {
        ASSERT_GE(b.bytes.data(), file.data());
        ASSERT_LE(b.bytes.data() + b.bytes.size(), file.data() + file.size());
        for (uint8_t x : b.bytes) sum += x;
      }
      (void)sum;
    }
  }
  EXPECT_GT(failed, 0u);
  EXPECT_GT(ok, 0u);  // flips in names, padding and constant bytes load
}

TEST(ModelLoaderTest, NotAModel) {
  EXPECT_THAT(std::string(ParseCopy({}).status().message()), HasSubstr("shorter than the header"));
  std::vector<uint8_t> junk(100, 0xab);
  EXPECT_THAT(std::string(ParseCopy(junk).status().message()), HasSubstr("TSR1"));
  EXPECT_FALSE(LooksLikeTsr(junk));
  // Right identifier, absurd size prefix.
  std::vector<uint8_t> bytes = SmallModelBytes();
  bytes[0] = 0xff;
  bytes[1] = 0xff;
  bytes[2] = 0xff;
  bytes[3] = 0x7f;
  EXPECT_THAT(std::string(ParseCopy(bytes).status().message()), HasSubstr("truncated"));
}

TEST(ModelLoaderTest, WriterRefusesInvalidGraphs) {
  Graph g = SmallModel();
  g.ops[0].inputs[0] = 77;
  EXPECT_FALSE(SerializeModel(g).ok());
  Graph jit = SmallModel();
  Op dispatch;
  dispatch.type = TSR_OP_DISPATCH;
  dispatch.inputs = {0};
  dispatch.id = 100;
  Tensor out{"d", TSR_DTYPE_F32, {1, 3}};
  jit.tensors.push_back(out);
  dispatch.outputs = {static_cast<int32_t>(jit.tensors.size() - 1)};
  dispatch.dispatch = DispatchRef{"cpu", "any", "cpu_partition_0", -1, 0, {0}};
  jit.ops.push_back(dispatch);
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(jit);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()), HasSubstr("JIT"));
}

TEST(ModelLoaderTest, AFifoAsAModelIsAnErrorNotAHang) {
  ScratchDirectory dir;
  const std::string fifo = dir.Fifo("model.tsr");
  ASSERT_FALSE(fifo.empty());
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [&] { return LoadModelFile(fifo).status().ToString(); }),
              ::testing::Optional(
                  ::testing::AllOf(::testing::HasSubstr("INVALID_ARGUMENT"), ::testing::HasSubstr("is a FIFO"))));
}

}  // namespace
}  // namespace tessera
