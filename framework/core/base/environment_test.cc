#include "framework/core/base/environment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cli_test_util.h"
#include "testing/setuid_cli_copy_for_test.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Environment, OverridesAreIgnoredWhenAtSecure) {
  ASSERT_EQ(::setenv("TESSERA_TEST_OVERRIDE", "/some/dir", 1), 0);
  ASSERT_NE(EnvironmentOverrideFor("TESSERA_TEST_OVERRIDE", false), nullptr);
  EXPECT_STREQ(EnvironmentOverrideFor("TESSERA_TEST_OVERRIDE", false), "/some/dir");
  EXPECT_EQ(EnvironmentOverrideFor("TESSERA_TEST_OVERRIDE", true), nullptr);
  EXPECT_EQ(EnvironmentOverrideFor("TESSERA_TEST_UNSET_OVERRIDE", false), nullptr);
  // This test process runs without elevated privileges.
  EXPECT_FALSE(RunningWithElevatedPrivileges());
  EXPECT_STREQ(EnvironmentOverride("TESSERA_TEST_OVERRIDE"), "/some/dir");
  ::unsetenv("TESSERA_TEST_OVERRIDE");
}

// TMPDIR names where private temporaries go (the --svg work directory);
// with AT_SECURE (simulated) the caller's choice is ignored.
TEST(Environment, TmpdirIsIgnoredWhenAtSecure) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ASSERT_EQ(::setenv("TMPDIR", "/attacker/chosen", 1), 0);
  EXPECT_EQ(TemporaryDirectoryFor(false), "/attacker/chosen");
  EXPECT_EQ(TemporaryDirectoryFor(true), "/tmp");
  EXPECT_EQ(TemporaryDirectory(), "/attacker/chosen");  // this process is not AT_SECURE
  ASSERT_EQ(::setenv("TMPDIR", "relative/dir", 1), 0);
  EXPECT_EQ(TemporaryDirectoryFor(false), "/tmp");
  if (old != nullptr)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

// The real thing: a setuid+setgid copy of the CLI owned by another user
// (nobody), started by root, runs AT_SECURE and must not search the
// directory TESSERA_PLUGIN_PATH names. Needs root (to chown) and a file
// system that honours setuid; skipped otherwise.
TEST(Environment, SetuidCliIgnoresTesseraPluginPath) {
  if (std::string why = WhySetuidCopyIsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  const SetuidCliCopy copy("tessera_setuid_test");
  ASSERT_TRUE(copy.ok());
  const fs::path evil = copy.dir() / "evil_plugins";
  fs::create_directories(evil);
  const std::string cmd = "TESSERA_PLUGIN_PATH=" + evil.string() + " " + copy.binary().string() + " plugins --json";

  // Control: the same copy without the setuid bits honours the variable.
  const std::string plain = RunShellCommand(cmd).output;
  EXPECT_THAT(plain, HasSubstr("\"origin\":\"TESSERA_PLUGIN_PATH\"")) << plain;

  if (!copy.MakeSetuid()) GTEST_SKIP() << "the file system dropped the setuid bit";
  const std::string secure = RunShellCommand(cmd).output;
  EXPECT_THAT(secure, HasSubstr("\"directories\":")) << secure;
  EXPECT_THAT(secure, Not(HasSubstr("TESSERA_PLUGIN_PATH"))) << secure;
  EXPECT_THAT(secure, Not(HasSubstr("evil_plugins"))) << secure;
}

}  // namespace
}  // namespace tessera
