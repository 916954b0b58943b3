// PluginLogSink's filter: an app's level, and the operator's
// TESSERA_LOG_LEVEL over it. The environment is read once per process, so
// each case that sets it runs in its own death-test child.
#include "plugin_host/plugin_log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/common.h"

namespace tessera {
namespace {

struct Line {
  std::string vendor;
  int32_t severity;
  std::string text;
};

std::vector<Line>& Seen() {
  static std::vector<Line> lines;
  return lines;
}

void Capture(int32_t app_level) {
  Seen().clear();
  SetPluginLogHandler([](const char* v, int32_t s, const char* m) { Seen().push_back({v, s, m}); }, app_level);
}

char kVendor[] = "npu";

TEST(PluginLog, TheAppLevelFiltersWhenTheEnvironmentSaysNothing) {
  ::unsetenv("TESSERA_LOG_LEVEL");
  Capture(TSR_LOG_WARNING);
  PluginLogSink(kVendor, TSR_LOG_INFO, "tuned 3 layers");
  PluginLogSink(kVendor, TSR_LOG_ERROR, "compile failed");
  ASSERT_EQ(Seen().size(), 1u);
  EXPECT_EQ(Seen()[0].vendor, "npu");
  EXPECT_EQ(Seen()[0].severity, TSR_LOG_ERROR);
  EXPECT_EQ(Seen()[0].text, "compile failed");
  SetPluginLogHandler(nullptr, -1);
}

// The operator lowers the level of an app that asked for warnings only:
// the info line reaches the app's handler, a debug line still does not.
TEST(PluginLogDeathTest, TesseraLogLevelOverridesTheAppLevel) {
  EXPECT_EXIT(
      {
        ::setenv("TESSERA_LOG_LEVEL", "info", 1);
        Capture(TSR_LOG_WARNING);
        PluginLogSink(kVendor, TSR_LOG_INFO, "tuned 3 layers");
        PluginLogSink(kVendor, TSR_LOG_DEBUG, "candidate 7");
        std::exit(Seen().size() == 1 && Seen()[0].text == "tuned 3 layers" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// And raises it: an app that asked for everything gets errors only.
TEST(PluginLogDeathTest, TesseraLogLevelCanAlsoQuietAnApp) {
  EXPECT_EXIT(
      {
        ::setenv("TESSERA_LOG_LEVEL", "error", 1);
        Capture(TSR_LOG_DEBUG);
        PluginLogSink(kVendor, TSR_LOG_WARNING, "slow path");
        PluginLogSink(kVendor, TSR_LOG_ERROR, "compile failed");
        std::exit(Seen().size() == 1 && Seen()[0].text == "compile failed" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tessera
