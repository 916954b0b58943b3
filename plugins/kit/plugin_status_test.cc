#include "plugins/kit/plugin_status.h"

#include "plugins/kit/entry_point.h"

#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

constexpr tsr_version kOwn{1, 2};
constexpr tsr_version kFloor{1, 0};

tsr_version Negotiated(tsr_version host, tsr_status* code) {
  tsr_version out{0xEEEE, 0xEEEE};
  *code = NegotiateVersion(host, kOwn, kFloor, &out);
  return out;
}

// The Vulkan loader's rule, worked by hand: the answer is the highest
// version this plugin speaks (1.0..1.2) that is not above the host's.
TEST(NegotiateVersion, AnswersTheHighestSpokenVersionNotAboveTheHost) {
  tsr_status code;
  tsr_version v = Negotiated({1, 2}, &code);
  EXPECT_EQ(code, TSR_OK);
  EXPECT_EQ(v.major, 1);
  EXPECT_EQ(v.minor, 2);
  v = Negotiated({1, 1}, &code);
  EXPECT_EQ(code, TSR_OK);
  EXPECT_EQ(v.minor, 1);
  v = Negotiated({1, 7}, &code);
  EXPECT_EQ(code, TSR_OK);
  EXPECT_EQ(v.minor, 2);
}

// 1.1's kit refused any host of another major; a 2.x host must get the
// plugin's own 1.2 and decide itself.
TEST(NegotiateVersion, ANewerMajorHostGetsThePluginsVersion) {
  tsr_status code;
  tsr_version v = Negotiated({2, 0}, &code);
  EXPECT_EQ(code, TSR_OK);
  EXPECT_EQ(v.major, 1);
  EXPECT_EQ(v.minor, 2);
}

TEST(NegotiateVersion, AHostBelowTheFloorIsRefusedAndOutputsUntouched) {
  tsr_status code;
  tsr_version v = Negotiated({0, 9}, &code);
  EXPECT_EQ(code, TSR_VERSION_UNSUPPORTED);
  EXPECT_EQ(v.major, 0xEEEE);
  EXPECT_EQ(v.minor, 0xEEEE);
  EXPECT_NE(std::string(LastErrorMessage()), "");
}

// The entry helper answers what the vendor implements, not the headers it
// was built against: a plugin built against the 1.4 headers that implements
// 1.2 answers 1.2 to a 1.4 host (the first cut answered 1.4, so the host
// stopped gating 1.3/1.4 ops for it), and its own floor, not the host's.
TEST(AnswerNegotiation, AnswersTheImplementedVersionAndFloor) {
  struct Table {
    int unused;
  };
  static const Table table{0};
  const ImplementedAbi abi{.newest = {1, 2}, .oldest = {1, 2}};
  tsr_version v{0xEEEE, 0xEEEE};
  const Table* api = nullptr;
  EXPECT_EQ(AnswerNegotiation<Table>({1, 4}, abi, &v, &api, &table), TSR_OK);
  EXPECT_EQ(v.major, 1);
  EXPECT_EQ(v.minor, 2);
  EXPECT_EQ(api, &table);
  v = {0xEEEE, 0xEEEE};
  api = nullptr;
  EXPECT_EQ(AnswerNegotiation<Table>({1, 1}, abi, &v, &api, &table), TSR_VERSION_UNSUPPORTED);
  EXPECT_EQ(v.major, 0xEEEE);
  EXPECT_EQ(api, nullptr);
  // A range the headers cannot describe, or an inverted one, is the
  // plugin's own defect.
  EXPECT_EQ(AnswerNegotiation<Table>({1, 4}, {.newest = {1, 9}, .oldest = {1, 0}}, &v, &api, &table), TSR_INTERNAL);
  EXPECT_EQ(AnswerNegotiation<Table>({1, 4}, {.newest = {1, 2}, .oldest = {1, 3}}, &v, &api, &table), TSR_INTERNAL);
}

}  // namespace
}  // namespace tessera::kit
