#include "framework/core/base/helper_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A temporary directory holding an "attacker's" helper named kHelper that
// leaves a marker file when it runs, put first on PATH; a marker variable
// stands for the caller's environment (LD_PRELOAD and the like).
class HelperProcessTest : public ::testing::Test {
 protected:
  static constexpr char kHelper[] = "tessera_test_helper";
  void SetUp() override {
    char tmpl[] = "/tmp/tessera_helper_process_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    marker_ = dir_ + "/ran";
    const std::string helper = dir_ + "/" + kHelper;
    std::ofstream(helper) << "#!/bin/sh\ntouch '" << marker_ << "'\n";
    ASSERT_EQ(::chmod(helper.c_str(), 0755), 0);
    if (const char* old = std::getenv("PATH")) old_path_ = old;
    ASSERT_EQ(::setenv("PATH", (dir_ + ":" + old_path_).c_str(), 1), 0);
    ASSERT_EQ(::setenv("TESSERA_CALLER_SECRET", "from the caller", 1), 0);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    ::unsetenv("TESSERA_CALLER_SECRET");
    fs::remove_all(dir_);
  }
  std::string dir_, marker_, old_path_;
};

// Control: without AT_SECURE the helper is looked up on the caller's PATH
// with the caller's environment, as any tool would.
TEST_F(HelperProcessTest, WithoutAtSecurePathIsSearchedWithTheCallersEnvironment) {
  absl::StatusOr<HelperLaunch> launch = PlanHelperLaunch(kHelper, false, TrustedHelperLocations(kHelper));
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_TRUE(launch->search_path);
  EXPECT_THAT(launch->environment, Contains("TESSERA_CALLER_SECRET=from the caller"));
  absl::StatusOr<int> code = RunHelper(*launch, {});
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
  EXPECT_TRUE(fs::exists(marker_)) << "the helper on PATH ran";
}

// With AT_SECURE (simulated) PATH is never searched: the attacker's helper
// first on PATH is not found, not run, and the refusal says why.
TEST_F(HelperProcessTest, AtSecureNeverSearchesPathNorRunsTheHelperFoundThere) {
  absl::StatusOr<HelperLaunch> launch = PlanHelperLaunch(kHelper, true, TrustedHelperLocations(kHelper));
  ASSERT_FALSE(launch.ok()) << "planned " << launch->program;
  EXPECT_EQ(launch.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(launch.status().message(), HasSubstr("elevated privileges"));
  EXPECT_THAT(launch.status().message(), HasSubstr("/usr/bin/tessera_test_helper"));
  // Even named as a candidate, the attacker's file is refused: it sits under
  // /tmp, which others can write (or, run by a user, it is not root's).
  const std::vector<std::string> planted = {dir_ + "/" + kHelper};
  launch = PlanHelperLaunch(kHelper, true, planted);
  EXPECT_FALSE(launch.ok()) << "planned " << launch->program;
  EXPECT_FALSE(fs::exists(marker_));
}

// With AT_SECURE the helper gets an absolute, resolved path and nothing of
// the caller's environment: only PATH=/usr/bin:/bin. /usr/bin/sh (a
// root-owned system file) stands in for dot and reports what it was given.
TEST_F(HelperProcessTest, AtSecureTheHelperGetsACleanEnvironment) {
  absl::StatusOr<HelperLaunch> launch = PlanHelperLaunch("sh", true, TrustedHelperLocations("sh"));
  if (!launch.ok()) GTEST_SKIP() << "no root-owned /usr/bin/sh here: " << launch.status();
  EXPECT_FALSE(launch->search_path);
  EXPECT_EQ(launch->program.front(), '/');
  EXPECT_THAT(launch->environment, ElementsAre(kSecureHelperPathVariable));
  const std::string out = dir_ + "/env.txt";
  const std::string args[] = {"-c", "env > '" + out + "'"};
  absl::StatusOr<int> code = RunHelper(*launch, args);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
  std::stringstream seen;
  seen << std::ifstream(out).rdbuf();
  EXPECT_THAT(seen.str(), HasSubstr("PATH=/usr/bin:/bin\n"));
  EXPECT_THAT(seen.str(), Not(HasSubstr("TESSERA_CALLER_SECRET")));
  EXPECT_THAT(seen.str(), Not(HasSubstr(dir_ + ":"))) << "the caller's PATH leaked";
  // Nothing else but what the shell sets for itself (PWD).
  for (absl::string_view line : absl::StrSplit(seen.str(), '\n', absl::SkipEmpty()))
    EXPECT_TRUE(absl::StartsWith(line, "PATH=") || absl::StartsWith(line, "PWD=")) << line;
}

TEST_F(HelperProcessTest, UntrustedLocationsAreRefusedWithTheReason) {
  EXPECT_THAT(WhyHelperIsNotTrusted("bin/dot"), HasSubstr("not an absolute path"));
  EXPECT_THAT(WhyHelperIsNotTrusted(dir_ + "/missing"), HasSubstr("No such file"));
  const std::string writable = dir_ + "/writable";
  std::ofstream(writable) << "#!/bin/sh\n";
  ASSERT_EQ(::chmod(writable.c_str(), 0777), 0);
  EXPECT_THAT(WhyHelperIsNotTrusted(writable), Not(""));
  const std::string not_executable = dir_ + "/data";
  std::ofstream(not_executable) << "x";
  EXPECT_THAT(WhyHelperIsNotTrusted(not_executable), HasSubstr("not an executable file"));
  if (fs::exists("/usr/bin/sh")) {
    EXPECT_EQ(WhyHelperIsNotTrusted("/usr/bin/sh"), "");
  }
}

TEST_F(HelperProcessTest, AMissingProgramIsNotFoundNotACrash) {
  HelperLaunch launch{.program = dir_ + "/no_such_program", .search_path = false, .name = "x", .environment = {}};
  absl::StatusOr<int> code = RunHelper(launch, {});
  EXPECT_EQ(code.status().code(), absl::StatusCode::kNotFound) << code.status();
}

}  // namespace
}  // namespace tessera
