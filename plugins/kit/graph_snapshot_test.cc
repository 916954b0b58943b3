#include "plugins/kit/graph_snapshot.h"

#include <cstring>
#include <random>

#include "plugins/kit/bytecode_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera::kit {
namespace {

GraphSnapshot SmallGraph(std::vector<uint8_t>& weights) {
  GraphSnapshot g;
  SnapshotTensor x{.name = "x", .dtype = TSR_DTYPE_F32, .shape = {2, 3}};
  SnapshotTensor w{.name = "w", .dtype = TSR_DTYPE_F32, .shape = {4, 3}};
  weights.resize(4 * 3 * 4);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i);
  w.is_constant = true;
  w.constant = weights;
  SnapshotTensor y{.name = "y", .dtype = TSR_DTYPE_I8, .shape = {2, 4}};
  y.quant = {.scales = {0.5f}, .zero_points = {3}, .axis = -1};
  g.tensors = {x, w, y};
  SnapshotOp fc{.type = TSR_OP_FULLY_CONNECTED, .id = 7, .inputs = {0, 1, TSR_NO_TENSOR}, .outputs = {2}};
  fc.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
  fc.attrs[TSR_ATTR_CLIP_MAX].floats = {6.0f};
  g.ops = {fc};
  g.inputs = {0};
  g.outputs = {2};
  return g;
}

TEST(GraphSnapshot, EncodeDecodeRoundTrip) {
  std::vector<uint8_t> weights;
  GraphSnapshot g = SmallGraph(weights);
  std::vector<uint8_t> bytes = EncodeSnapshot(g);
  absl::StatusOr<GraphSnapshot> back = DecodeSnapshot(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->tensors.size(), 3u);
  EXPECT_EQ(back->tensors[0].name, "x");
  EXPECT_EQ(back->tensors[1].shape, (std::vector<int64_t>{4, 3}));
  ASSERT_TRUE(back->tensors[1].is_constant);
  EXPECT_TRUE(std::equal(weights.begin(), weights.end(), back->tensors[1].constant.begin()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(back->tensors[1].constant.data()) % 16,
            reinterpret_cast<uintptr_t>(bytes.data()) % 16);
  EXPECT_EQ(back->tensors[2].quant.zero_points, (std::vector<int64_t>{3}));
  ASSERT_EQ(back->ops.size(), 1u);
  EXPECT_EQ(back->ops[0].id, 7u);
  EXPECT_EQ(back->ops[0].inputs, (std::vector<int32_t>{0, 1, TSR_NO_TENSOR}));
  EXPECT_EQ(back->ops[0].attrs.at(TSR_ATTR_ACTIVATION).ints, (std::vector<int64_t>{TSR_ACTIVATION_RELU}));
  EXPECT_EQ(back->ops[0].attrs.at(TSR_ATTR_CLIP_MAX).floats, (std::vector<float>{6.0f}));
}

TEST(GraphSnapshot, RejectsEveryTruncation) {
  std::vector<uint8_t> weights;
  std::vector<uint8_t> bytes = EncodeSnapshot(SmallGraph(weights));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::span<const uint8_t> cut(bytes.data(), n);
    EXPECT_FALSE(DecodeSnapshot(cut).ok()) << "accepted a prefix of " << n << " bytes";
  }
}

TEST(GraphSnapshot, BitFlipsNeverCrash) {
  std::vector<uint8_t> weights;
  const std::vector<uint8_t> bytes = EncodeSnapshot(SmallGraph(weights));
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<uint8_t> bad = bytes;
    bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    if (!DecodeSnapshot(bad).ok()) ++rejected;
  }
  // Flips inside weights or float attributes are legal data; flips in the
  // structure must be rejected. Both kinds occur, so some but not all fail.
  EXPECT_GT(rejected, 0);
}

TEST(GraphSnapshot, RejectsOutOfRangeTensorIndex) {
  std::vector<uint8_t> weights;
  GraphSnapshot g = SmallGraph(weights);
  g.ops[0].outputs = {9};
  EXPECT_FALSE(DecodeSnapshot(EncodeSnapshot(g)).ok());
}

// 2^62 int64 elements are 2^65 bytes, which wraps to 0 in a size_t: an
// empty constant then passed the size check while kernels read 2^62
// elements from it.
TEST(GraphSnapshot, RejectsConstantWhoseByteSizeWraps) {
  GraphSnapshot g;
  SnapshotTensor c{.name = "c", .dtype = TSR_DTYPE_I64, .shape = {int64_t{1} << 62}};
  c.is_constant = true;  // 0 bytes of payload
  SnapshotTensor y{.name = "y", .dtype = TSR_DTYPE_I64, .shape = {int64_t{1} << 62}};
  g.tensors = {c, y};
  g.ops = {SnapshotOp{.type = TSR_OP_NEG, .id = 1, .inputs = {0}, .outputs = {1}}};
  g.outputs = {1};
  absl::StatusOr<GraphSnapshot> back = DecodeSnapshot(EncodeSnapshot(g));
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("tensor 0"), std::string::npos) << back.status();
}

// The same for a non-constant tensor: its wrapped size is what the runtime
// allocates and checks attached buffers against.
TEST(GraphSnapshot, RejectsTensorWhoseByteSizeWrapsOrIsAboveTheLimit) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{int64_t{1} << 62}, std::vector<int64_t>{int64_t{1} << 31, int64_t{1} << 31, 4},
                                     std::vector<int64_t>{(int64_t{1} << 45) + 1}}) {
    GraphSnapshot g;
    g.tensors = {SnapshotTensor{.name = "x", .dtype = TSR_DTYPE_I64, .shape = shape},
                 SnapshotTensor{.name = "y", .dtype = TSR_DTYPE_I64, .shape = shape}};
    g.ops = {SnapshotOp{.type = TSR_OP_NEG, .id = 1, .inputs = {0}, .outputs = {1}}};
    g.inputs = {0};
    g.outputs = {1};
    EXPECT_FALSE(DecodeSnapshot(EncodeSnapshot(g)).ok()) << shape[0];
  }
  // At the limit (2^45 int64 = 2^48 bytes) the shape itself is accepted.
  GraphSnapshot g;
  g.tensors = {SnapshotTensor{.name = "x", .dtype = TSR_DTYPE_I64, .shape = {int64_t{1} << 45}}};
  g.inputs = {0};
  g.outputs = {0};
  EXPECT_TRUE(DecodeSnapshot(EncodeSnapshot(g)).ok());
}

// The "TSG1" layout written out by hand, field by field, for one constant
// tensor: an expectation derived from the format, not from the encoder.
TEST(GraphSnapshot, EncodesTheDocumentedLayout) {
  const std::vector<uint8_t> payload = {0xA1, 0xB2, 0xC3, 0xD4};
  GraphSnapshot g;
  SnapshotTensor c{.name = "c", .dtype = TSR_DTYPE_F32, .shape = {1}};
  c.is_constant = true;
  c.constant = payload;
  g.tensors = {c};
  g.outputs = {0};
  std::vector<uint8_t> want;
  auto le = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) want.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  want.insert(want.end(), {'T', 'S', 'G', '1'});
  le(1, 4);                                // version
  le(1, 4);                                // tensors
  le(0, 4);                                // ops
  le(0, 4);                                // inputs: none
  le(1, 4), le(0, 4);                      // outputs: {0}
  le(1, 4), want.push_back('c');           // name
  le(static_cast<uint32_t>(TSR_DTYPE_F32), 4);
  le(1, 4), le(1, 8);                      // shape {1}
  le(0, 4), le(0, 4);                      // no scales, no zero points
  le(0xFFFFFFFFu, 4);                      // axis -1
  le(1, 4);                                // constant
  le(4, 8);                                // its size; now at byte 73
  want.resize(80, 0);                      // payload 16-byte aligned
  want.insert(want.end(), payload.begin(), payload.end());

  EXPECT_EQ(EncodedSnapshotSize(g), want.size());
  EXPECT_EQ(EncodeSnapshot(g), want);
  std::vector<uint8_t> into(want.size(), 0);
  ASSERT_TRUE(EncodeSnapshotInto(g, into));
  EXPECT_EQ(into, want);
  std::vector<uint8_t> short_buffer(want.size() - 1, 0);
  EXPECT_FALSE(EncodeSnapshotInto(g, short_buffer));
}

// The one-pass path (the body encoded in its envelope slot) gives the
// bytes of the two-step path it replaced (EncodeSnapshot into a vector,
// then BuildBytecode copying it). The sizes and CRC-32s were recorded from
// the two-step code at c91708f, before the one-pass encoder existed.
TEST(GraphSnapshot, OnePassEnvelopeMatchesTheTwoStepBytes) {
  std::vector<uint8_t> weights;
  const GraphSnapshot g = SmallGraph(weights);
  const std::vector<uint8_t> body = EncodeSnapshot(g);
  ASSERT_EQ(body.size(), 321u);
  EXPECT_EQ(tsr_bytecode_compute_checksum(body.data(), body.size()), 0x1cc1a9ddu);

  std::vector<BytecodeEntry> one_pass(2);
  one_pass[0] = {.name = "b_entry", .input_count = 1, .output_count = 1, .body_writer = SnapshotBodyWriter(g)};
  one_pass[1] = {.name = "a_entry", .body = {1, 2, 3}, .input_count = 2, .output_count = 2};
  absl::StatusOr<std::vector<uint8_t>> blob = BuildBytecode({"cpu", "any", 1}, one_pass);
  ASSERT_TRUE(blob.ok()) << blob.status();
  ASSERT_EQ(blob->size(), 705u);
  tsr_bytecode_header h{};
  std::memcpy(&h, blob->data(), sizeof(h));
  EXPECT_EQ(h.checksum, 0x5836dcdfu);  // CRC over the whole blob: every byte agrees
  absl::StatusOr<std::vector<uint8_t>> two_step =
      BuildBytecode({"cpu", "any", 1}, {{"b_entry", body, 1, 1}, {"a_entry", {1, 2, 3}, 2, 2}});
  ASSERT_TRUE(two_step.ok()) << two_step.status();
  EXPECT_EQ(*blob, *two_step);
}

TEST(GraphSnapshot, BuildBytecodeRefusesAWriterThatMisreportsItsSize) {
  std::vector<uint8_t> weights;
  BodyWriter lying = SnapshotBodyWriter(SmallGraph(weights));
  lying.size -= 1;
  EXPECT_FALSE(BuildBytecode({"cpu", "any", 1}, {{.name = "p", .body_writer = lying}}).ok());
  BodyWriter both = SnapshotBodyWriter(SmallGraph(weights));
  EXPECT_FALSE(BuildBytecode({"cpu", "any", 1}, {{.name = "p", .body = {1}, .body_writer = both}}).ok());
}

TEST(ElementCount, HandlesOverflowAndNegatives) {
  EXPECT_EQ(ElementCount(std::vector<int64_t>{2, 3, 4}), 24);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{}), 1);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{-1, 2}), -1);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{INT64_MAX, 2}), -1);
}

}  // namespace
}  // namespace tessera::kit
