#include "framework/core/base/environment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

// The real thing: a setuid+setgid copy of the CLI owned by another user
// (nobody), started by root, runs AT_SECURE and must not search the
// directory TESSERA_PLUGIN_PATH names. Needs root (to chown) and a file
// system that honours setuid; skipped otherwise.
TEST(Environment, SetuidCliIgnoresTesseraPluginPath) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a setuid copy owned by another user";
#if defined(__SANITIZE_ADDRESS__)
  // ASan's runtime refuses to start a setuid binary run by another user.
  GTEST_SKIP() << "an ASan build cannot run as setuid";
#endif
  const char* build = std::getenv("TESSERA_BUILD_DIR");
  ASSERT_NE(build, nullptr);
  char tmpl[] = "/tmp/tessera_setuid_test_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;
  const fs::path evil = dir / "evil_plugins";
  fs::create_directories(dir / "bin");
  fs::create_directories(evil);
  const fs::path copy = dir / "bin" / "tessera";
  fs::copy_file(fs::path(build) / "bin" / "tessera", copy);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((dir / "bin").c_str(), 0755), 0);
  const std::string env = "TESSERA_PLUGIN_PATH=" + evil.string() + " ";

  // Control: the same copy without the setuid bits honours the variable.
  const std::string plain = Shell(env + copy.string() + " plugins --json");
  EXPECT_THAT(plain, HasSubstr("\"origin\":\"TESSERA_PLUGIN_PATH\"")) << plain;

  ASSERT_EQ(::chown(copy.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(copy.c_str(), 06755), 0);
  struct stat st {};
  ASSERT_EQ(::stat(copy.c_str(), &st), 0);
  if ((st.st_mode & S_ISUID) == 0) GTEST_SKIP() << "the file system dropped the setuid bit";
  const std::string secure = Shell(env + copy.string() + " plugins --json");
  fs::remove_all(dir);
  EXPECT_THAT(secure, HasSubstr("\"directories\":")) << secure;
  EXPECT_THAT(secure, Not(HasSubstr("TESSERA_PLUGIN_PATH"))) << secure;
  EXPECT_THAT(secure, Not(HasSubstr("evil_plugins"))) << secure;
}

}  // namespace
}  // namespace tessera
