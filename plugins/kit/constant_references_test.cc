#include "plugins/kit/constant_references.h"

#include <cstring>

#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera::kit {
namespace {

// x[2,3] -> FC with w[4,3] f32 (48 bytes) and bias b[4] f32 (16 bytes) -> y.
GraphSnapshot Fc(std::vector<uint8_t>& w, std::vector<uint8_t>& b) {
  w.resize(48);
  b.resize(16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(i + 1);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(200 + i);
  GraphSnapshot g;
  SnapshotTensor x{.name = "x", .dtype = TSR_DTYPE_F32, .shape = {2, 3}};
  SnapshotTensor wt{.name = "w", .dtype = TSR_DTYPE_F32, .shape = {4, 3}, .is_constant = true, .constant = w};
  SnapshotTensor bt{.name = "b", .dtype = TSR_DTYPE_F32, .shape = {4}, .is_constant = true, .constant = b};
  SnapshotTensor y{.name = "y", .dtype = TSR_DTYPE_F32, .shape = {2, 4}};
  g.tensors = {x, wt, bt, y};
  g.ops = {SnapshotOp{.type = TSR_OP_FULLY_CONNECTED, .id = 1, .inputs = {0, 1, 2}, .outputs = {3}}};
  g.inputs = {0};
  g.outputs = {3};
  return g;
}

// A 1.4 binding as a host fills it.
tsr_constant_binding Binding(uint32_t key, const void* data, uint64_t size) {
  return {.header = {sizeof(tsr_constant_binding), 1, 4},
          .key = key,
          .flags = 0,
          .data = data,
          .size_bytes = size,
          .file_offset = 0,
          .fd = -1,
          .reserved0 = 0};
}

// The host hands constants TSR_CONSTANT_ALIGNMENT-aligned (dispatch.h).
struct alignas(64) Aligned {
  uint8_t bytes[64];
};

uint32_t VersionField(const std::vector<uint8_t>& bytes) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + 4, 4);  // after the magic
  return v;
}

// Fc with w external (17 bytes is above b's 16, below w's 48), encoded into
// `bytes` and decoded from them.
absl::StatusOr<GraphSnapshot> RoundTrip(std::vector<uint8_t>& w, std::vector<uint8_t>& b, std::vector<uint8_t>& bytes) {
  GraphSnapshot g = Fc(w, b);
  ExternalizeConstants(g, 17);
  bytes = EncodeSnapshot(g);
  return DecodeSnapshot(bytes);
}

TEST(ConstantReferences, OnlyConstantsAtTheThresholdBecomeReferences) {
  std::vector<uint8_t> w, b;
  GraphSnapshot g = Fc(w, b);
  const size_t inline_size = EncodedSnapshotSize(g);
  std::vector<tsr_constant_reference> refs = ExternalizeConstants(g, 17);  // w (48) yes, b (16) no
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].tensor, 1);
  EXPECT_EQ(refs[0].key, 1u);
  EXPECT_EQ(refs[0].size_bytes, 48u);
  EXPECT_TRUE(g.tensors[1].constant.empty());
  ASSERT_FALSE(g.tensors[2].external_key.has_value());
  // The payload (48 bytes, 16-aligned) left the encoding; a key (4) came in.
  EXPECT_LT(EncodedSnapshotSize(g) + 40, inline_size);
}

TEST(ConstantReferences, AnEncodingWithReferencesIsVersionTwoAndWithoutIsOne) {
  std::vector<uint8_t> w, b;
  GraphSnapshot g = Fc(w, b);
  EXPECT_EQ(VersionField(EncodeSnapshot(g)), 1u);  // decoders already shipped read it
  ExternalizeConstants(g, 17);
  EXPECT_EQ(VersionField(EncodeSnapshot(g)), 2u);  // ... and refuse this one ("unknown version")
}

TEST(ConstantReferences, DecodeThenBindRestoresTheWeights) {
  std::vector<uint8_t> w, b, bytes;
  absl::StatusOr<GraphSnapshot> back = RoundTrip(w, b, bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->tensors[1].external_key, 1u);
  EXPECT_TRUE(back->tensors[1].is_constant);
  EXPECT_TRUE(back->tensors[1].constant.empty());
  // The bias stayed inline, byte for byte.
  ASSERT_EQ(back->tensors[2].constant.size(), 16u);
  EXPECT_EQ(back->tensors[2].constant[0], 200);
  Aligned a;
  std::memcpy(a.bytes, w.data(), 48);
  const tsr_constant_binding binding = Binding(1, a.bytes, 48);
  ASSERT_TRUE(ResolveConstantReferences(*back, {&binding, 1}).ok());
  EXPECT_EQ(back->tensors[1].constant.data(), a.bytes);  // bound in place, not copied
  EXPECT_EQ(back->tensors[1].constant.size(), 48u);
}

TEST(ConstantReferences, AMissingBindingIsRefusedByKeyTensorAndSize) {
  std::vector<uint8_t> w, b, bytes;
  absl::StatusOr<GraphSnapshot> back = RoundTrip(w, b, bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  absl::Status s = ResolveConstantReferences(*back, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("key 1 (tensor 1 'w', 48 bytes) has no binding"), std::string::npos) << s;
}

TEST(ConstantReferences, AWrongSizeOrRepeatedBindingIsRefused) {
  std::vector<uint8_t> w, b, bytes;
  absl::StatusOr<GraphSnapshot> back = RoundTrip(w, b, bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  Aligned a;
  const tsr_constant_binding short_one = Binding(1, a.bytes, 44);
  absl::Status s = ResolveConstantReferences(*back, {&short_one, 1});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("key 1 (tensor 1 'w') needs 48 bytes, its binding has 44"), std::string::npos) << s;
  const tsr_constant_binding twice[2] = {Binding(1, a.bytes, 48), Binding(1, a.bytes, 48)};
  EXPECT_FALSE(ResolveConstantReferences(*back, twice).ok());
  // Data below the promised alignment is refused, not handed to kernels.
  const tsr_constant_binding unaligned = Binding(1, a.bytes + 16, 48);
  s = ResolveConstantReferences(*back, {&unaligned, 1});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not 64-byte aligned"), std::string::npos) << s;
}

TEST(ConstantReferences, EveryTruncationOfAVersionTwoEncodingIsRefused) {
  std::vector<uint8_t> w, b;
  GraphSnapshot g = Fc(w, b);
  ExternalizeConstants(g, 17);
  std::vector<uint8_t> bytes = EncodeSnapshot(g);
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(DecodeSnapshot({bytes.data(), n}).ok()) << "accepted a prefix of " << n << " bytes";
}

TEST(ConstantReferences, AVersionOneEncodingCannotCarryAReference) {
  std::vector<uint8_t> w, b;
  GraphSnapshot g = Fc(w, b);
  ExternalizeConstants(g, 17);
  std::vector<uint8_t> bytes = EncodeSnapshot(g);
  const uint32_t one = 1;
  std::memcpy(bytes.data() + 4, &one, 4);  // relabel as version 1
  absl::StatusOr<GraphSnapshot> back = DecodeSnapshot(bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("unknown constant kind 2"), std::string::npos) << back.status();
}

TEST(ConstantReferences, ASourceFromBeforeOnePointFourHasNoBindings) {
  const tsr_constant_binding binding = Binding(1, nullptr, 0);
  tsr_executable_source src{};
  src.constants = &binding;
  src.constant_count = 1;
  src.header.struct_size = offsetof(tsr_executable_source, constants);  // a 1.2 host's struct
  EXPECT_TRUE(BindingsOf(&src)->empty());
  src.header.struct_size = sizeof(src);
  EXPECT_EQ(BindingsOf(&src)->size(), 1u);
  EXPECT_TRUE(BindingsOf(nullptr)->empty());
}

// A newer host whose binding grew one member: the library steps by the
// host's struct_size. Reading with its own sizeof (the 1.4 first cut's
// header-less array) takes binding 1 from the middle of binding 0.
TEST(ConstantReferences, BindingsAreReadWithTheHostsStride) {
  struct Future {
    tsr_constant_binding v14;
    uint64_t appended;
  };
  Aligned a, b;
  Future arr[2] = {{Binding(3, a.bytes, 64), 0x1111}, {Binding(4096, b.bytes, 16), 0x2222}};
  arr[0].v14.header.struct_size = arr[1].v14.header.struct_size = sizeof(Future);
  tsr_executable_source src{};
  src.header.struct_size = sizeof(src);
  src.constants = &arr[0].v14;
  src.constant_count = 2;
  absl::StatusOr<std::vector<tsr_constant_binding>> got = BindingsOf(&src);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[1].key, 4096u);
  EXPECT_EQ((*got)[1].data, b.bytes);
  EXPECT_EQ((*got)[1].size_bytes, 16u);
  // Mixed element sizes are refused by name.
  arr[1].v14.header.struct_size = sizeof(tsr_constant_binding);
  got = BindingsOf(&src);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("not a headed array"), std::string::npos) << got.status();
}

TEST(ConstantReferences, ReferencesCarryTheirHeader) {
  std::vector<uint8_t> w, b;
  GraphSnapshot g = Fc(w, b);
  std::vector<tsr_constant_reference> refs = ExternalizeConstants(g, 17);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].header.struct_size, 24u);  // the stride the host steps by
}

}  // namespace
}  // namespace tessera::kit
