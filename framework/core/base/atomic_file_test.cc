#include "framework/core/base/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tessera_atomic_file_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  static std::vector<uint8_t> Bytes(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }
  size_t EntryCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }

  std::string dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWholeFilesAndLeavesNoTemporary) {
  const std::string path = dir_ + "/out.bin";
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("first")).ok());
  EXPECT_EQ(Read(path), "first");
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("second, longer")).ok());
  EXPECT_EQ(Read(path), "second, longer");
  ASSERT_TRUE(WriteFileAtomically(path, {}).ok());
  EXPECT_EQ(Read(path), "");
  EXPECT_EQ(EntryCount(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

// The old tensor writer opened "<path>.tmp.<pid>" with O_TRUNC: a symlink
// planted there let another user overwrite any file the victim can write.
TEST_F(AtomicFileTest, APlantedSymlinkAtThePredictableTemporaryNameIsNotFollowed) {
  const std::string victim = dir_ + "/victim";
  Write(victim, "precious");
  const std::string path = dir_ + "/out.pb";
  const std::string predictable = absl::StrCat(path, ".tmp.", ::getpid());
  ASSERT_EQ(::symlink(victim.c_str(), predictable.c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("payload")).ok());
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_EQ(Read(path), "payload");
  EXPECT_TRUE(fs::is_symlink(predictable));  // left alone, not used
  EXPECT_FALSE(fs::is_symlink(path));
}

// A symlink at the target itself is replaced by the new file; its target
// is not written through.
TEST_F(AtomicFileTest, ASymlinkAtTheTargetIsReplacedNotFollowed) {
  const std::string victim = dir_ + "/victim";
  Write(victim, "precious");
  const std::string path = dir_ + "/out.tsr";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("model")).ok());
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(Read(path), "model");
}

TEST_F(AtomicFileTest, FailuresLeaveTheTargetAndNoTemporary) {
  EXPECT_FALSE(WriteFileAtomically(dir_ + "/missing/out.bin", Bytes("x")).ok());
  EXPECT_FALSE(WriteFileAtomically(dir_ + "/", Bytes("x")).ok());
  // Renaming onto a directory fails after the temporary was written.
  const std::string sub = dir_ + "/a_directory";
  fs::create_directory(sub);
  Write(sub + "/keep", "x");
  absl::Status s = WriteFileAtomically(sub, Bytes("x"));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(fs::is_directory(sub));
  EXPECT_EQ(EntryCount(), 1u) << "the temporary was removed";
}

}  // namespace
}  // namespace tessera
