#include "dispatch_support.h"

#include <cstring>

#include "bytecode_builder.h"
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

}  // namespace
}  // namespace tessera::kit
