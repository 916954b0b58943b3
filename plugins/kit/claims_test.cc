#include "plugins/kit/claims.h"

#include <cstring>
#include <map>

#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

// A host-side sink that records what it was told.
struct RecordingSink {
  std::map<size_t, tsr_op_claim> reports;
  std::vector<std::vector<size_t>> groups;
};

tsr_status Report(tsr_claim_sink sink, size_t op, const tsr_op_claim* c) {
  auto* s = reinterpret_cast<RecordingSink*>(sink);
  if (s->reports.count(op)) return TSR_ALREADY_EXISTS;
  s->reports[op] = *c;
  return TSR_OK;
}
tsr_status Group(tsr_claim_sink sink, const size_t* ops, size_t n) {
  reinterpret_cast<RecordingSink*>(sink)->groups.emplace_back(ops, ops + n);
  return TSR_OK;
}
const tsr_claim_sink_api kSink = {
    .header = {sizeof(tsr_claim_sink_api), 1, 2}, .report_op = Report, .add_group = Group};

ClaimSet ThreeOps() {
  ClaimSet c;
  c.ops.resize(3);
  c.ops[0] = {.supported = true, .reason = TSR_REFUSAL_NONE, .estimated_time_us = 2.5, .estimated_cycles = 100};
  c.ops[1] = {.supported = false, .reason = TSR_REFUSAL_UNSUPPORTED_DTYPE, .detail = "i64"};
  c.ops[2] = {.supported = true, .reason = TSR_REFUSAL_NONE, .flags = TSR_CLAIM_FLAG_NOT_ALONE};
  c.groups = {{0, 2}};
  return c;
}

TEST(ReportClaims, ReportsEveryOpAndGroupThroughTheSink) {
  RecordingSink sink;
  ASSERT_TRUE(ReportClaims(ThreeOps(), &kSink, reinterpret_cast<tsr_claim_sink>(&sink)).ok());
  ASSERT_EQ(sink.reports.size(), 3u);
  EXPECT_EQ(sink.reports[0].header.struct_size, sizeof(tsr_op_claim));
  EXPECT_EQ(sink.reports[0].supported, 1u);
  EXPECT_EQ(sink.reports[0].estimated_cycles, 100u);
  EXPECT_EQ(sink.reports[1].supported, 0u);
  EXPECT_EQ(sink.reports[1].reason, TSR_REFUSAL_UNSUPPORTED_DTYPE);
  EXPECT_EQ(sink.reports[2].flags, TSR_CLAIM_FLAG_NOT_ALONE);
  ASSERT_EQ(sink.groups.size(), 1u);
  EXPECT_EQ(sink.groups[0], (std::vector<size_t>{0, 2}));
}

// The legacy path writes 40-byte entries at a 40-byte stride, and never
// past the host's struct_size: bytes after a short entry stay as they were.
TEST(WriteLegacySupport, WritesFortyByteEntriesWithinStructSize) {
  static_assert(sizeof(tsr_op_support) == 40);
  std::vector<tsr_op_support> out(3);
  for (tsr_op_support& s : out) {
    std::memset(&s, 0xAB, sizeof(s));
    s.header = {sizeof(tsr_op_support), 1, 1};
  }
  out[2].header.struct_size = offsetof(tsr_op_support, reason_detail);  // a host that knows only two members
  std::vector<std::string> texts;
  ASSERT_TRUE(WriteLegacySupport(ThreeOps(), out.data(), &texts).ok());
  EXPECT_EQ(out[0].supported, 1u);
  EXPECT_EQ(out[0].estimated_time_us, 2.5);
  EXPECT_EQ(out[1].supported, 0u);
  EXPECT_STREQ(out[1].reason_detail, "i64");
  EXPECT_EQ(out[2].supported, 1u);
  EXPECT_EQ(out[2].reason, TSR_REFUSAL_NONE);
  const unsigned char* tail = reinterpret_cast<const unsigned char*>(&out[2]) + offsetof(tsr_op_support, reason_detail);
  for (size_t i = 0; i < sizeof(tsr_op_support) - offsetof(tsr_op_support, reason_detail); ++i)
    EXPECT_EQ(tail[i], 0xAB) << "byte " << i << " past struct_size was written";
}

}  // namespace
}  // namespace tessera::kit
