#include "plugins/kit/plugin_status.h"

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

}  // namespace
}  // namespace tessera::kit
