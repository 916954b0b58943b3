#include "plugins/mock_dsp/dispatch/fault_injector.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::mock_dsp {
namespace {

using ::testing::HasSubstr;

TEST(FaultInjector, NothingByDefault) {
  FaultInjector f(DspOptions{});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(f.BeforeInvoke().ok());
  EXPECT_TRUE(f.AfterInvoke().ok());
  EXPECT_EQ(f.invokes(), 5);
}

TEST(FaultInjector, FailInvokeHitsOnlyTheNth) {
  FaultInjector f(DspOptions{.fail_invoke = 2});
  EXPECT_TRUE(f.BeforeInvoke().ok());
  const Fault second = f.BeforeInvoke();
  EXPECT_EQ(second.code, TSR_UNAVAILABLE);
  EXPECT_THAT(second.message, HasSubstr("invoke 2 failed"));
  EXPECT_TRUE(f.BeforeInvoke().ok());
}

TEST(FaultInjector, FailAfterHitsEveryLaterInvoke) {
  FaultInjector f(DspOptions{.fail_after = 1});
  EXPECT_TRUE(f.BeforeInvoke().ok());
  EXPECT_EQ(f.BeforeInvoke().code, TSR_UNAVAILABLE);
  EXPECT_EQ(f.BeforeInvoke().code, TSR_UNAVAILABLE);
}

TEST(FaultInjector, DeviceLostIsForGood) {
  FaultInjector f(DspOptions{.device_lost_after = 1});
  EXPECT_TRUE(f.BeforeInvoke().ok());
  EXPECT_FALSE(f.device_lost());
  EXPECT_EQ(f.BeforeInvoke().code, TSR_DEVICE_LOST);
  EXPECT_TRUE(f.device_lost());
  EXPECT_EQ(f.BeforeInvoke().code, TSR_DEVICE_LOST);
  EXPECT_EQ(f.LostFault("load_executable").code, TSR_DEVICE_LOST);
}

TEST(FaultInjector, CorruptAndHangReportTheirCodes) {
  EXPECT_EQ(FaultInjector(DspOptions{.corrupt = true}).AfterInvoke().code, TSR_DATA_LOSS);
  FaultInjector hang(DspOptions{.hang_invoke = 1, .hang_ms = 1});
  const Fault h = hang.BeforeInvoke();
  EXPECT_EQ(h.code, TSR_DEADLINE_EXCEEDED);
  EXPECT_THAT(h.message, HasSubstr("hung for 1 ms"));
}

// A hold says it began (PATH.held) and ends when PATH exists; unreleased,
// it fails after hang_ms, naming the file.
TEST(FaultInjector, AHoldWaitsForItsFile) {
  const std::string path = (std::filesystem::temp_directory_path() / ("dsp_hold_" + std::to_string(getpid()))).string();
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".held");
  FaultInjector unreleased(DspOptions{.hang_ms = 1, .hold_invoke = 1, .hold_file = path});
  const Fault f = unreleased.BeforeInvoke();
  EXPECT_EQ(f.code, TSR_DEADLINE_EXCEEDED);
  EXPECT_THAT(f.message, HasSubstr("never released"));
  EXPECT_THAT(f.message, HasSubstr(path));
  EXPECT_TRUE(std::filesystem::exists(path + ".held"));
  std::ofstream(path).flush();
  FaultInjector released(DspOptions{.hang_ms = 1, .hold_invoke = 1, .hold_file = path});
  EXPECT_TRUE(released.BeforeInvoke().ok());
  EXPECT_TRUE(released.BeforeInvoke().ok());  // only the Nth holds
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".held");
}

}  // namespace
}  // namespace tessera::mock_dsp
