// Under AT_SECURE a caller-named path is opened only when the real user
// could open it: checked with the real ids, in-process (a child with real
// uid nobody and effective uid root, as a setuid-root program started by
// nobody) and through a setuid-root copy of the CLI.
#include "framework/core/base/caller_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

constexpr uid_t kNobody = 65534;

// A directory (0700 from mkdtemp) holding a private file (0600), both of
// the test's user, removed at the end.
struct PrivateFiles {
  PrivateFiles() {
    std::string tmpl = "/tmp/tessera_caller_access_XXXXXX";
    dir = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
    secret = dir + "/secret";
    std::ofstream(secret) << "not for the caller\n";
    ::chmod(secret.c_str(), 0600);
  }
  ~PrivateFiles() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string dir, secret;
};

TEST(CallerAccess, WithoutAtSecureNothingIsChecked) {
  EXPECT_TRUE(CheckCallerMayAccessFor("/no/such/dir/file", CallerAccess::kRead, false).ok());
  EXPECT_TRUE(CheckCallerMayAccessFor("/no/such/dir/file", CallerAccess::kWrite, false).ok());
}

TEST(CallerAccess, AtSecureAllowsWhatTheRealUserMayOpen) {
  const PrivateFiles f;
  ASSERT_FALSE(f.dir.empty());
  EXPECT_TRUE(CheckCallerMayAccessFor(f.secret, CallerAccess::kRead, true).ok());
  EXPECT_TRUE(CheckCallerMayAccessFor(f.secret, CallerAccess::kWrite, true).ok());
  EXPECT_TRUE(CheckCallerMayAccessFor(f.dir + "/new_output", CallerAccess::kWrite, true).ok());
}

// The real ids are checked, not the effective ones: a child whose real uid
// is nobody and effective uid root (a setuid-root program started by
// nobody) is refused root's private file and directory, which it could open.
TEST(CallerAccess, AtSecureChecksTheRealUidNotTheEffectiveOne) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a child with real uid nobody and effective uid root";
  const PrivateFiles f;
  ASSERT_FALSE(f.dir.empty());
  // Searchable by all, writable by root only: the new file's directory is
  // what the caller is refused, and the secret is readable by root only.
  ASSERT_EQ(::chmod(f.dir.c_str(), 0755), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setresgid(kNobody, 0, 0) != 0 || ::setresuid(kNobody, 0, 0) != 0) ::_exit(10);
    const absl::Status read = CheckCallerMayAccessFor(f.secret, CallerAccess::kRead, true);
    const absl::Status write = CheckCallerMayAccessFor(f.dir + "/new_output", CallerAccess::kWrite, true);
    const bool could_open = ::open(f.secret.c_str(), O_RDONLY) >= 0;  // the effective uid can
    const bool named = std::string(read.message()).find("uid 65534") != std::string::npos &&
                       std::string(write.message()).find("cannot create files in") != std::string::npos;
    ::_exit(could_open && absl::IsPermissionDenied(read) && absl::IsPermissionDenied(write) && named ? 0 : 11);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: could not drop the real ids; 11: a check passed or named nothing";
}

// The real thing: a setuid-root copy of the CLI started by nobody reads a
// model path naming root's private file. Without the setuid bit nobody
// cannot open it; with it, the copy could, and must refuse it just the same,
// saying why (it used to read it, here as "not a Tessera model").
TEST(CallerAccess, SetuidRootCliStartedByNobodyRefusesRootsPrivateFile) {
  if (std::string why = WhySetuidCopyIsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv to start the copy as nobody";
  const SetuidCliCopy copy("tessera_caller_access");
  ASSERT_TRUE(copy.ok());
  const std::string secret = (copy.dir() / "secret.tsr").string();
  std::ofstream(secret) << "root's private bytes\n";
  ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
  const std::string cmd =
      "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + copy.binary().string() + " inspect " + secret;
  const Result plain = RunShellCommand(cmd);
  EXPECT_THAT(plain.output, HasSubstr("Permission denied")) << plain.output;

  if (!copy.MakeSetuidRoot()) GTEST_SKIP() << "the file system dropped the setuid bit";
  const Result secure = RunShellCommand(cmd);
  EXPECT_NE(secure.exit_code, 0);
  EXPECT_THAT(secure.output, HasSubstr("elevated privileges")) << secure.output;
  EXPECT_THAT(secure.output, HasSubstr("uid 65534")) << secure.output;
  EXPECT_THAT(secure.output, Not(HasSubstr("not a Tessera model"))) << secure.output;
}

}  // namespace
}  // namespace tessera
