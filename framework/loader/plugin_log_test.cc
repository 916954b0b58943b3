// PluginLogSink's filter: an app's level, and the operator's
// TESSERA_LOG_LEVEL over it. The environment is read once per process, so
// each case that sets it runs in its own death-test child.
#include "framework/loader/plugin_log.h"

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

// In a child (the environment is read once per process): the operator's
// TESSERA_LOG_LEVEL=`env_level` over an app that asked for `app_level`;
// `first` and `second` are sent, and the child exits 0 when only `first`
// reached the app's handler.
void ExitZeroIfOnlyTheFirstPasses(const char* env_level, int32_t app_level, int32_t first, int32_t second) {
  ::setenv("TESSERA_LOG_LEVEL", env_level, 1);
  Capture(app_level);
  PluginLogSink(kVendor, first, "first");
  PluginLogSink(kVendor, second, "second");
  std::exit(Seen().size() == 1 && Seen()[0].text == "first" ? 0 : 1);
}

// The operator lowers the level of an app that asked for warnings only:
// an info line reaches the app's handler, a debug line still does not.
TEST(PluginLogDeathTest, TesseraLogLevelOverridesTheAppLevel) {
  EXPECT_EXIT(ExitZeroIfOnlyTheFirstPasses("info", TSR_LOG_WARNING, TSR_LOG_INFO, TSR_LOG_DEBUG),
              ::testing::ExitedWithCode(0), "");
}

// And raises it: an app that asked for everything gets errors only.
TEST(PluginLogDeathTest, TesseraLogLevelCanAlsoQuietAnApp) {
  EXPECT_EXIT(ExitZeroIfOnlyTheFirstPasses("error", TSR_LOG_DEBUG, TSR_LOG_ERROR, TSR_LOG_WARNING),
              ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tessera
