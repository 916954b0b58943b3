#include "model/model_loader.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "bytecode_builder.h"
#include "flatbuffers/flatbuffers.h"
#include "gmock/gmock.h"
#include "graph/graph_verifier.h"
#include "gtest/gtest.h"
#include "model/model_builder.h"
#include "model/model_writer.h"
#include "schema/model_format_version.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "tessera_model_generated.h"

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
  const int32_t y = b.Op(TSR_OP_FULLY_CONNECTED, {x, w, bias}, {{TSR_ATTR_ACTIVATION, Ints({TSR_ACTIVATION_RELU})}},
                         {.name = "y"});
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

// ---------------------------------------------------------------------------
// Semantic errors, from hand-built flatbuffers (the writer refuses to write
// invalid graphs, so these files are made directly).
// ---------------------------------------------------------------------------

struct RawTensor {
  std::string name;
  int32_t dtype = TSR_DTYPE_F32;
  std::vector<int64_t> shape;
  uint32_t buffer = 0;  // 0 = not a constant
};
struct RawOp {
  int32_t type = TSR_OP_RELU;
  std::vector<int32_t> inputs, outputs;
  uint32_t id = 0;
  int32_t attr_key = 0;  // 0 = none
  // >= 0: a DISPATCH reference to that bytecode index, at the offset and
  // size of RawModel::bytecodes[dispatch_blob] (or 0 when out of range).
  int64_t dispatch_bytecode = -1;
  size_t dispatch_blob = 0;
  std::vector<uint32_t> constant_keys;     // DispatchInfo's external constants
  std::vector<int32_t> constant_tensors;
};
struct RawBuffer {
  uint64_t offset = 0;  // relative to the data segment
  uint64_t size = 0;
  bool absolute = false;  // offset is an absolute file offset
};
struct RawModel {
  uint32_t format_version = kModelFormatVersion;
  std::vector<RawTensor> tensors;
  std::vector<RawOp> ops;
  std::vector<int32_t> inputs, outputs;
  std::vector<RawBuffer> buffers;  // the sentinel buffer 0 is added
  std::vector<RawBuffer> bytecodes;  // blobs in the data segment
  std::vector<uint8_t> data;       // the data segment
  bool no_subgraphs = false;
};

std::vector<uint8_t> Tables(const RawModel& m, uint64_t data_start) {
  flatbuffers::FlatBufferBuilder b;
  b.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const RawTensor& t : m.tensors)
    tensors.push_back(fb::CreateTensor(b, b.CreateString(t.name), t.dtype, b.CreateVector(t.shape), 0, t.buffer));
  std::vector<flatbuffers::Offset<fb::Op>> ops;
  for (const RawOp& op : m.ops) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    if (op.attr_key != 0) attrs.push_back(fb::CreateAttribute(b, op.attr_key, b.CreateVector(std::vector<int64_t>{1})));
    flatbuffers::Offset<fb::DispatchInfo> dispatch = 0;
    if (op.dispatch_bytecode >= 0) {
      const bool known = op.dispatch_blob < m.bytecodes.size();
      const RawBuffer blob = known ? m.bytecodes[op.dispatch_blob] : RawBuffer{};
      dispatch = fb::CreateDispatchInfo(b, b.CreateString("v"), b.CreateString("soc"), b.CreateString("main"),
                                        static_cast<uint32_t>(op.dispatch_bytecode),
                                        known ? data_start + blob.offset : 0, blob.size, 0,
                                        op.constant_keys.empty() ? 0 : b.CreateVector(op.constant_keys),
                                        op.constant_tensors.empty() ? 0 : b.CreateVector(op.constant_tensors));
    }
    ops.push_back(fb::CreateOp(b, op.type, b.CreateVector(op.inputs), b.CreateVector(op.outputs), b.CreateVector(attrs),
                               dispatch, op.id));
  }
  std::vector<flatbuffers::Offset<fb::Subgraph>> subgraphs;
  if (!m.no_subgraphs)
    subgraphs.push_back(fb::CreateSubgraph(b, b.CreateString("raw"), b.CreateVector(tensors), b.CreateVector(ops),
                                           b.CreateVector(m.inputs), b.CreateVector(m.outputs)));
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers{fb::CreateBuffer(b, 0, 0)};
  for (const RawBuffer& buf : m.buffers)
    buffers.push_back(fb::CreateBuffer(b, buf.absolute ? buf.offset : data_start + buf.offset, buf.size));
  std::vector<flatbuffers::Offset<fb::Bytecode>> bytecodes;
  for (const RawBuffer& blob : m.bytecodes)
    bytecodes.push_back(fb::CreateBytecode(b, b.CreateString("v"), b.CreateString("soc"), data_start + blob.offset,
                                           blob.size));
  auto model = fb::CreateModel(b, m.format_version, b.CreateString("test"), b.CreateVector(subgraphs),
                               b.CreateVector(buffers), b.CreateVector(bytecodes));
  fb::FinishSizePrefixedModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::vector<uint8_t> Serialize(const RawModel& m) {
  const uint64_t start = (Tables(m, 0).size() + 63) / 64 * 64;
  std::vector<uint8_t> out = Tables(m, start);
  EXPECT_LE(out.size(), start);
  out.resize(start, 0);
  out.insert(out.end(), m.data.begin(), m.data.end());
  return out;
}

// x -> RELU -> y, with one constant c:f32[4] in buffer 1.
RawModel ValidRaw() {
  RawModel m;
  m.tensors = {{"x", TSR_DTYPE_F32, {4}}, {"y", TSR_DTYPE_F32, {4}}, {"c", TSR_DTYPE_F32, {4}, 1}};
  m.ops = {{TSR_OP_RELU, {0}, {1}, 0}};
  m.inputs = {0};
  m.outputs = {1};
  m.buffers = {{0, 16}};
  m.data.assign(64, 0);
  return m;
}

std::string ParseError(const RawModel& m) {
  absl::StatusOr<Graph> g = ParseCopy(Serialize(m));
  return g.ok() ? std::string("(loaded)") : std::string(g.status().message());
}

TEST(ModelLoaderTest, HandBuiltValidModelLoads) {
  absl::StatusOr<Graph> g = ParseCopy(Serialize(ValidRaw()));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->tensors.size(), 3u);
  EXPECT_TRUE(g->tensors[2].is_constant);
  EXPECT_EQ(g->tensors[2].data.size(), 16u);
}

TEST(ModelLoaderTest, OutOfRangeTensorIndex) {
  RawModel m = ValidRaw();
  m.ops[0].inputs = {99};
  EXPECT_THAT(ParseError(m), HasSubstr("input index 99 out of range"));
  m = ValidRaw();
  m.ops[0].outputs = {-7};
  EXPECT_THAT(ParseError(m), HasSubstr("output index -7 out of range"));
  m = ValidRaw();
  m.outputs = {3};
  EXPECT_THAT(ParseError(m), HasSubstr("graph output index 3 out of range"));
  m = ValidRaw();
  m.inputs = {5};
  EXPECT_THAT(ParseError(m), HasSubstr("graph input index 5 out of range"));
}

TEST(ModelLoaderTest, OpReadsTensorBeforeItIsProduced) {
  RawModel m = ValidRaw();
  m.tensors.push_back({"z", TSR_DTYPE_F32, {4}});
  // op 0 reads z, which op 1 produces.
  m.ops = {{TSR_OP_ADD, {0, 3}, {1}, 0}, {TSR_OP_RELU, {0}, {3}, 1}};
  EXPECT_THAT(ParseError(m), HasSubstr("before anything produces it"));
  EXPECT_THAT(ParseError(m), HasSubstr("'z'"));
  // Two ops writing the same tensor.
  m.ops = {{TSR_OP_RELU, {0}, {1}, 0}, {TSR_OP_RELU, {0}, {1}, 1}};
  EXPECT_THAT(ParseError(m), HasSubstr("already"));
  // An output nobody produces.
  m = ValidRaw();
  m.tensors.push_back({"orphan", TSR_DTYPE_F32, {4}});
  m.outputs = {3};
  EXPECT_THAT(ParseError(m), HasSubstr("never produced"));
}

TEST(ModelLoaderTest, ConstantSizeMismatch) {
  RawModel m = ValidRaw();
  m.buffers[0].size = 8;
  EXPECT_THAT(ParseError(m), HasSubstr("constant holds 8 bytes, shape needs 16"));
  EXPECT_THAT(ParseError(m), HasSubstr("'c'"));
}

TEST(ModelLoaderTest, BufferOutsideTheDataSegment) {
  RawModel m = ValidRaw();
  m.buffers[0] = {1000, 16};
  EXPECT_THAT(ParseError(m), HasSubstr("outside the data segment"));
  m.buffers[0] = {4, 16, /*absolute=*/true};  // inside the tables
  EXPECT_THAT(ParseError(m), HasSubstr("outside the data segment"));
  m.buffers[0] = {0, ~uint64_t{0}};  // size overflow
  EXPECT_THAT(ParseError(m), HasSubstr("outside the data segment"));
  m = ValidRaw();
  m.tensors[2].buffer = 7;
  EXPECT_THAT(ParseError(m), HasSubstr("references buffer 7"));
}

// The loader's own index checks at exactly the table size (refused) and
// one below (accepted): an index equal to the count is the off-by-one a
// `>` for `>=` lets through, reading one element past the table.
TEST(ModelLoaderTest, BufferIndexAtTheBufferCount) {
  RawModel m = ValidRaw();
  m.buffers.push_back({16, 16});  // buffers: sentinel, 1, 2
  m.tensors[2].buffer = 2;        // the last one
  EXPECT_EQ(ParseError(m), "(loaded)");
  m.tensors[2].buffer = 3;        // == buffer count
  EXPECT_THAT(ParseError(m), HasSubstr("references buffer 3, but the model has 3"));
}

TEST(ModelLoaderTest, DispatchBytecodeIndexAtTheBytecodeCount) {
  RawModel m = ValidRaw();
  m.bytecodes = {{0, 16}, {64, 16}};
  m.data.assign(128, 1);
  // x -> DISPATCH(bytecode 1) -> y
  m.ops = {{TSR_OP_DISPATCH, {0}, {1}, 0, 0, /*dispatch_bytecode=*/1, /*dispatch_blob=*/1}};
  // The reference passes; the blobs (16 bytes of 0x01) then fail the
  // envelope check, the loader's last.
  EXPECT_THAT(ParseError(m), HasSubstr("bytecode 0 (vendor 'v') fails the envelope check"));
  m.ops[0].dispatch_bytecode = 2;  // == bytecode count
  EXPECT_THAT(ParseError(m), HasSubstr("DISPATCH bytecode reference (index 2"));
  // In range, but the offset does not match the table's blob.
  m.ops[0].dispatch_bytecode = 0;
  EXPECT_THAT(ParseError(m), HasSubstr("does not match the model's bytecode table"));
  // No bytecodes at all: index 0 is already the count. (A check that let
  // it through would read element 0 of an empty table, whose storage is
  // null: the failure is deterministic even without a sanitizer.)
  m.bytecodes.clear();
  EXPECT_THAT(ParseError(m), HasSubstr("DISPATCH bytecode reference (index 0"));
}

// A DISPATCH op's external constants (ABI 1.4) are bound without a copy or
// a digest, so the loader refuses any that is not one of the model's own
// constants, once per key.
TEST(ModelLoaderTest, DispatchExternalConstantReferences) {
  RawModel m = ValidRaw();
  m.bytecodes = {{0, 16}};
  m.data.assign(64, 1);
  m.ops = {{TSR_OP_DISPATCH, {0}, {1}, 0, 0, 0, 0, {5}, {2}}};  // key 5 -> c, a constant
  EXPECT_THAT(ParseError(m), HasSubstr("fails the envelope check"));  // the references passed
  m.ops[0].constant_tensors = {0};
  EXPECT_THAT(ParseError(m), HasSubstr("external constant key 5 names tensor 0 ('x'), which is not a constant"));
  m.ops[0].constant_tensors = {3};
  EXPECT_THAT(ParseError(m), HasSubstr("external constant key 5 names tensor 3, out of range (3 tensors)"));
  m.ops[0].constant_tensors = {-1};
  EXPECT_THAT(ParseError(m), HasSubstr("names tensor -1, out of range"));
  m.ops[0].constant_keys = {5, 5};
  m.ops[0].constant_tensors = {2, 2};
  EXPECT_THAT(ParseError(m), HasSubstr("external constant key 5 appears twice"));
  m.ops[0].constant_tensors = {2};
  EXPECT_THAT(ParseError(m), HasSubstr("lists 2 external constant keys but 1 tensors"));
}

TEST(ModelLoaderTest, UnknownOpType) {
  RawModel m = ValidRaw();
  m.ops[0].type = 999;
  EXPECT_THAT(ParseError(m), HasSubstr("unknown op type 999"));
  m.ops[0].type = TSR_OP_UNKNOWN;
  EXPECT_THAT(ParseError(m), HasSubstr("unknown op type 0"));
  m.ops[0].type = TSR_OP_DISPATCH;  // DISPATCH without dispatch info
  EXPECT_THAT(ParseError(m), HasSubstr("DISPATCH without dispatch info"));
  m = ValidRaw();
  m.ops[0].attr_key = 4242;
  EXPECT_THAT(ParseError(m), HasSubstr("unknown attribute key 4242"));
}

TEST(ModelLoaderTest, UnknownDType) {
  RawModel m = ValidRaw();
  m.tensors[1].dtype = 42;
  EXPECT_THAT(ParseError(m), HasSubstr("unknown dtype 42"));
  EXPECT_THAT(ParseError(m), HasSubstr("'y'"));
}

TEST(ModelLoaderTest, DynamicDimension) {
  RawModel m = ValidRaw();
  m.tensors[0].shape = {-1, 4};
  EXPECT_THAT(ParseError(m), HasSubstr("negative or dynamic dimension"));
  EXPECT_THAT(ParseError(m), HasSubstr("'x'"));
  m = ValidRaw();
  m.tensors[0].shape = std::vector<int64_t>(9, 1);
  EXPECT_THAT(ParseError(m), HasSubstr("rank 9"));
  m = ValidRaw();
  m.tensors[0].shape = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_THAT(ParseError(m), HasSubstr("dimension"));
}

TEST(ModelLoaderTest, FormatVersionAndStructure) {
  RawModel m = ValidRaw();
  m.format_version = kModelFormatVersion + 1;
  EXPECT_THAT(ParseError(m), HasSubstr("format version"));
  m.format_version = 0;
  EXPECT_THAT(ParseError(m), HasSubstr("format version 0"));
  m = ValidRaw();
  m.no_subgraphs = true;
  EXPECT_THAT(ParseError(m), HasSubstr("no subgraphs"));
  m = ValidRaw();
  m.outputs.clear();
  EXPECT_THAT(ParseError(m), HasSubstr("no outputs"));
  m = ValidRaw();
  m.inputs = {2};  // a constant as a graph input
  EXPECT_THAT(ParseError(m), HasSubstr("is a constant"));
}

// Tensor sizes are capped (kMaxTensorBytes) so a constant claiming 2^61
// i64 elements (2^64 bytes, which would wrap to 0) cannot verify against an
// empty buffer.
TEST(ModelLoaderTest, ConstantByteSizeOverflowIsRefused) {
  RawModel m = ValidRaw();
  m.tensors[2] = {"huge", TSR_DTYPE_I64, {int64_t{1} << 61}, 1};
  m.buffers[0] = {0, 0};
  EXPECT_NE(ParseError(m), "(loaded)");
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

}  // namespace
}  // namespace tessera
