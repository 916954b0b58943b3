#include "plugins/kit/compiled_result.h"

#include "gtest/gtest.h"
#include "plugins/kit/host_buffers.h"

namespace tessera::kit {
namespace {

std::vector<PartitionCode> TwoPartitions() {
  return {{"p0", {1, 2, 3}, 1, 1}, {"p1", {4, 5}, 2, 1}};
}

// compile and compatibility_info share one mode check: exactly one of AOT
// and JIT, in options large enough to hold `mode`.
TEST(CompiledResult, CompileModeOfAcceptsExactlyOneMode) {
  tsr_compile_options o{};
  o.header = {sizeof(o), 1, 2};
  for (uint32_t mode : {TSR_COMPILE_MODE_AOT, TSR_COMPILE_MODE_JIT}) {
    o.mode = mode;
    absl::StatusOr<uint32_t> m = CompileModeOf(&o, "compile");
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(*m, mode);
  }
  for (uint32_t mode : {0u, TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT, 1u << 7}) {
    o.mode = mode;
    EXPECT_EQ(CompileModeOf(&o, "compile").status().code(), absl::StatusCode::kInvalidArgument) << mode;
  }
  o.mode = TSR_COMPILE_MODE_AOT;
  o.header.struct_size = offsetof(tsr_compile_options, mode);  // ends before `mode`
  EXPECT_FALSE(CompileModeOf(&o, "compile").ok());
  EXPECT_FALSE(CompileModeOf(nullptr, "compile").ok());
}

TEST(CompiledResult, AotHasOneVerifiableBlobAndNoHandles) {
  auto c = MakeCompiledResult(TSR_COMPILE_MODE_AOT, {"acme", "chip", 2}, 0xABCD, TwoPartitions());
  ASSERT_TRUE(c.ok()) << c.status();
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(CompiledBytecode(*c, &data, &size), TSR_OK);
  tsr_status code = TSR_OK;
  auto entry = VerifyAndFindEntry({static_cast<const uint8_t*>(data), size}, "acme", "p1", &code);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(std::vector<uint8_t>(entry->body.begin(), entry->body.end()), (std::vector<uint8_t>{4, 5}));
  const char* name = nullptr;
  ASSERT_EQ(CompiledEntryPoint(*c, 1, &name), TSR_OK);
  EXPECT_STREQ(name, "p1");
  EXPECT_EQ(CompiledEntryPoint(*c, 2, &name), TSR_OUT_OF_RANGE);
  tsr_jit_handle h = nullptr;
  EXPECT_EQ(CompiledJitHandle(*c, 0, &h), TSR_NOT_FOUND);
  ReleaseCompiled(*c);
  ReleaseCompiled(nullptr);
}

// A written-in-place body lands in the AOT blob's entry and in the JIT
// payload with the bytes its writer produces.
BodyWriter Writes(std::vector<uint8_t> bytes) {
  const size_t size = bytes.size();
  return {size, [bytes](std::span<uint8_t> out) {
            if (out.size() != bytes.size()) return false;
            std::copy(bytes.begin(), bytes.end(), out.begin());
            return true;
          }};
}

TEST(CompiledResult, BodyWritersFillTheBlobAndThePayload) {
  auto partitions = [] {
    std::vector<PartitionCode> p(1);
    p[0] = {.entry_point = "w0", .input_count = 1, .output_count = 1, .body_writer = Writes({7, 8, 9})};
    return p;
  };
  auto aot = MakeCompiledResult(TSR_COMPILE_MODE_AOT, {"acme", "chip", 2}, 0xABCD, partitions());
  ASSERT_TRUE(aot.ok()) << aot.status();
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(CompiledBytecode(*aot, &data, &size), TSR_OK);
  tsr_status code = TSR_OK;
  auto entry = VerifyAndFindEntry({static_cast<const uint8_t*>(data), size}, "acme", "w0", &code);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(std::vector<uint8_t>(entry->body.begin(), entry->body.end()), (std::vector<uint8_t>{7, 8, 9}));
  ReleaseCompiled(*aot);

  auto jit = MakeCompiledResult(TSR_COMPILE_MODE_JIT, {"acme", "chip", 2}, 0xABCD, partitions());
  ASSERT_TRUE(jit.ok()) << jit.status();
  tsr_jit_handle h = nullptr;
  ASSERT_EQ(CompiledJitHandle(*jit, 0, &h), TSR_OK);
  auto payload = JitPayloadFromHandle(h, 0xABCD, 2);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ(std::vector<uint8_t>((*payload)->body, (*payload)->body + (*payload)->body_size),
            (std::vector<uint8_t>{7, 8, 9}));
  ReleaseCompiled(*jit);
}

TEST(CompiledResult, JitHandlesCarryThePayloadAndRejectStrangers) {
  auto c = MakeCompiledResult(TSR_COMPILE_MODE_JIT, {"acme", "chip", 2}, 0xABCD, TwoPartitions());
  ASSERT_TRUE(c.ok()) << c.status();
  const void* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(CompiledBytecode(*c, &data, &size), TSR_NOT_FOUND);
  tsr_jit_handle h = nullptr;
  ASSERT_EQ(CompiledJitHandle(*c, 1, &h), TSR_OK);
  auto payload = JitPayloadFromHandle(h, 0xABCD, 2);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ((*payload)->body_size, 2u);
  EXPECT_EQ((*payload)->body[0], 4);
  EXPECT_EQ((*payload)->input_count, 2u);
  EXPECT_FALSE(JitPayloadFromHandle(h, 0x1234, 2).ok());  // another vendor
  EXPECT_FALSE(JitPayloadFromHandle(h, 0xABCD, 3).ok());  // another version
  EXPECT_FALSE(JitPayloadFromHandle(nullptr, 0xABCD, 2).ok());
  ReleaseCompiled(*c);
}

TEST(HostBuffers, AllocateRegisterMapAndRefuseForeignTypes) {
  tsr_buffer_desc desc{};
  desc.header = {sizeof(desc), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  desc.buffer_type = TSR_BUFFER_TYPE_HOST;
  desc.size_bytes = 100;
  desc.alignment = 128;
  tsr_buffer b = nullptr;
  ASSERT_EQ(AllocateHostBuffer(&desc, {TSR_BUFFER_TYPE_HOST}, 64, &b), TSR_OK);
  void* p = nullptr;
  ASSERT_EQ(MapHostBuffer(b, &p), TSR_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u);
  EXPECT_EQ(UnmapHostBuffer(b), TSR_OK);
  ReleaseHostBuffer(b);
  desc.buffer_type = TSR_BUFFER_TYPE_DEVICE_DRAM;
  EXPECT_EQ(AllocateHostBuffer(&desc, {TSR_BUFFER_TYPE_HOST}, 64, &b), TSR_UNIMPLEMENTED);
  uint8_t memory[16];
  desc.host_address = memory;
  desc.size_bytes = sizeof(memory);
  ASSERT_EQ(RegisterHostBuffer(&desc, {TSR_BUFFER_TYPE_DEVICE_DRAM, TSR_BUFFER_TYPE_HOST}, &b), TSR_OK);
  ASSERT_EQ(MapHostBuffer(b, &p), TSR_OK);
  EXPECT_EQ(p, memory);
  ReleaseHostBuffer(b);  // registered memory is not freed
  desc.host_address = nullptr;
  EXPECT_EQ(RegisterHostBuffer(&desc, {TSR_BUFFER_TYPE_DEVICE_DRAM}, &b), TSR_INVALID_ARGUMENT);
  ReleaseHostBuffer(nullptr);
}

}  // namespace
}  // namespace tessera::kit
