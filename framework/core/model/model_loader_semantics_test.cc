// The loader's semantic checks, on models built directly as flatbuffers:
// the writer refuses to write invalid graphs, so these files are made by
// hand (bad indices, a read before a write, sizes that do not match,
// unknown op types and dtypes, dynamic dimensions, the format version, and
// the external constant references of a DISPATCH op). model_loader_test.cc
// covers round trips and corruption of valid files.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/schema/model_format_version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "framework/core/schema/tessera_model_generated.h"

namespace tessera {
namespace {

namespace fb = ::tessera::schema;

using ::testing::HasSubstr;

absl::StatusOr<Graph> ParseCopy(const std::vector<uint8_t>& bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(bytes);
  return ParseModel(std::span<const uint8_t>(owned->data(), owned->size()), owned);
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
  std::vector<uint32_t> constant_keys;  // DispatchInfo's external constants
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
  std::vector<RawBuffer> buffers;    // the sentinel buffer 0 is added
  std::vector<RawBuffer> bytecodes;  // blobs in the data segment
  std::vector<uint8_t> data;         // the data segment
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
      dispatch =
          fb::CreateDispatchInfo(b, b.CreateString("v"), b.CreateString("soc"), b.CreateString("main"),
                                 static_cast<uint32_t>(op.dispatch_bytecode), known ? data_start + blob.offset : 0,
                                 blob.size, 0, op.constant_keys.empty() ? 0 : b.CreateVector(op.constant_keys),
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
    bytecodes.push_back(
        fb::CreateBytecode(b, b.CreateString("v"), b.CreateString("soc"), data_start + blob.offset, blob.size));
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
  m.tensors[2].buffer = 3;  // == buffer count
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
  m.ops = {{TSR_OP_DISPATCH, {0}, {1}, 0, 0, 0, 0, {5}, {2}}};        // key 5 -> c, a constant
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

}  // namespace
}  // namespace tessera
