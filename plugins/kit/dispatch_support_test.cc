#include "plugins/kit/dispatch_support.h"

#include <cstring>

#include "plugins/kit/bytecode_builder.h"
#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

std::vector<uint8_t> Blob(const char* vendor, const char* soc, uint32_t format) {
  absl::StatusOr<std::vector<uint8_t>> b =
      BuildBytecode({.vendor = vendor, .soc_model = soc, .vendor_format_version = format}, {{.name = "p0", .body = {1}}});
  EXPECT_TRUE(b.ok());
  return *b;
}

int32_t Verdict(const std::vector<uint8_t>& blob, std::string_view context_soc, const char* compat) {
  const char* socs[] = {"npu-a", "npu-b"};
  int32_t v = -1;
  EXPECT_EQ(CheckBlobCompatibility(blob.data(), blob.size(), "acme", 3, socs, context_soc, compat, "b1", &v), TSR_OK);
  return v;
}

TEST(CheckBlobCompatibility, JudgesVendorFormatSocAndBuild) {
  EXPECT_EQ(Verdict(Blob("acme", "npu-a", 3), "npu-a", nullptr), TSR_COMPATIBILITY_OPTIMAL);
  EXPECT_EQ(Verdict(Blob("other", "npu-a", 3), "npu-a", nullptr), TSR_COMPATIBILITY_UNSUPPORTED);
  EXPECT_EQ(Verdict(Blob("acme", "npu-a", 4), "npu-a", nullptr), TSR_COMPATIBILITY_UNSUPPORTED);
  EXPECT_EQ(Verdict(Blob("acme", "npu-z", 3), "npu-a", nullptr), TSR_COMPATIBILITY_UNSUPPORTED);
  EXPECT_EQ(Verdict(Blob("acme", "npu-b", 3), "npu-a", nullptr), TSR_COMPATIBILITY_PREFER_RECOMPILE);
  EXPECT_EQ(Verdict(Blob("acme", "npu-a", 3), "npu-a", "vendor=acme;build=b1;soc=npu-a"), TSR_COMPATIBILITY_OPTIMAL);
  EXPECT_EQ(Verdict(Blob("acme", "npu-a", 3), "npu-a", "vendor=acme;build=b0;soc=npu-a"),
            TSR_COMPATIBILITY_PREFER_RECOMPILE);
}

TEST(CheckBlobCompatibility, NotAnEnvelopeIsAnErrorAndLeavesTheOutputAlone) {
  const uint8_t junk[200] = {};
  int32_t v = 77;
  EXPECT_EQ(CheckBlobCompatibility(junk, sizeof(junk), "acme", 3, {}, "", nullptr, nullptr, &v), TSR_BYTECODE_INVALID);
  EXPECT_EQ(v, 77);
}

TEST(FillTiming, HonoursStructSize) {
  tsr_invocation_timing t{};
  t.header.struct_size = offsetof(tsr_invocation_timing, device_time_us);  // too small for the last member
  EXPECT_EQ(FillTiming(1, 2, 3.0, &t), TSR_INVALID_ARGUMENT);
  t.header.struct_size = sizeof(t);
  EXPECT_EQ(FillTiming(1, 2, 3.0, &t), TSR_OK);
  EXPECT_EQ(t.end_ns, 2u);
}

TEST(FillMetric, ChecksTheIndexAndTheStruct) {
  constexpr MetricDescriptor table[] = {{"cycles", "cycles"}, {"time_us", "us"}};
  tsr_metric m{};
  m.header.struct_size = sizeof(m);
  ASSERT_EQ(FillMetric(table, 1, 2.5, &m), TSR_OK);
  EXPECT_STREQ(m.name, "time_us");
  EXPECT_STREQ(m.unit, "us");
  EXPECT_EQ(m.value, 2.5);
  EXPECT_EQ(FillMetric(table, 2, 0, &m), TSR_OUT_OF_RANGE);
  EXPECT_EQ(FillMetric(table, 0, 0, nullptr), TSR_INVALID_ARGUMENT);
}

TEST(DetachSlot, ClearsOneSlotInRange) {
  tsr_buffer fake = reinterpret_cast<tsr_buffer>(&fake);
  std::vector<tsr_buffer> slots = {fake, fake};
  EXPECT_EQ(DetachSlot(slots, 1), TSR_OK);
  EXPECT_EQ(slots[0], fake);
  EXPECT_EQ(slots[1], nullptr);
  EXPECT_EQ(DetachSlot(slots, 2), TSR_OUT_OF_RANGE);
}

}  // namespace
}  // namespace tessera::kit
