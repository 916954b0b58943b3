#include "framework/core/base/atomic_file.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Our own symlink to a regular file (a "latest" link, /dev/stdout
// redirected to a file): the file it names is replaced atomically and the
// link stays a link.
TEST_F(AtomicFileTest, OurSymlinkToAFileReplacesThatFileAndStaysALink) {
  const std::string real = dir_ + "/real.tsr";
  Write(real, "old");
  const std::string path = dir_ + "/out.tsr";
  ASSERT_EQ(::symlink(real.c_str(), path.c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("model")).ok());
  EXPECT_TRUE(fs::is_symlink(path));
  EXPECT_EQ(Read(real), "model");
  EXPECT_EQ(EntryCount(), 2u) << "no temporary left";
}

// A link planted by another user is not followed: it is replaced itself,
// and the file it aims at is untouched. Making a link owned by someone
// else needs root (lchown).
TEST_F(AtomicFileTest, ASymlinkOwnedBySomeoneElseIsReplacedNotFollowed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the link another owner (lchown)";
  const std::string victim = dir_ + "/victim";
  Write(victim, "precious");
  const std::string path = dir_ + "/out.tsr";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  ASSERT_EQ(::lchown(path.c_str(), 65534, 65534), 0);
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("model")).ok());
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(Read(path), "model");
}

// A dangling link is replaced, never used to create a file where it points.
TEST_F(AtomicFileTest, ADanglingSymlinkIsReplacedNotFollowed) {
  const std::string aimed = dir_ + "/would_be_created";
  const std::string path = dir_ + "/out.tsr";
  ASSERT_EQ(::symlink(aimed.c_str(), path.c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("model")).ok());
  EXPECT_FALSE(fs::exists(aimed));
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(Read(path), "model");
}

// The type of a node, not following a symlink.
mode_t NodeType(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

// `tessera compile M -o /dev/null` as root used to rename a regular file
// over /dev/null. A device is written in place and stays a device.
TEST_F(AtomicFileTest, DevNullStaysACharacterDevice) {
  ASSERT_EQ(NodeType("/dev/null"), S_IFCHR);
  EXPECT_TRUE(WriteFileAtomically("/dev/null", Bytes("discarded")).ok());
  EXPECT_EQ(NodeType("/dev/null"), S_IFCHR);
  // Run as root, a regression would leave every other process on the
  // machine without /dev/null: put it back.
  if (NodeType("/dev/null") != S_IFCHR && ::geteuid() == 0) {
    ::unlink("/dev/null");
    ::mknod("/dev/null", S_IFCHR | 0666, ::makedev(1, 3));
    ::chmod("/dev/null", 0666);  // mknod's mode is masked by the umask
  }
  // Nothing was created beside it either.
  for (const fs::directory_entry& e : fs::directory_iterator("/dev"))
    EXPECT_EQ(e.path().filename().string().rfind("null.tmp.", 0), std::string::npos) << e.path();
}

// A private null device: mknod needs root (CAP_MKNOD).
TEST_F(AtomicFileTest, APrivateDeviceNodeStaysADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a character device needs root";
  const std::string dev = dir_ + "/null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod refused here (" << std::strerror(errno) << "), e.g. a container without CAP_MKNOD";
  const std::string link = dir_ + "/out";
  ASSERT_EQ(::symlink(dev.c_str(), link.c_str()), 0);
  EXPECT_TRUE(WriteFileAtomically(dev, Bytes("x")).ok());
  EXPECT_TRUE(WriteFileAtomically(link, Bytes("y")).ok());
  EXPECT_EQ(NodeType(dev), S_IFCHR);
  EXPECT_EQ(NodeType(link), S_IFLNK);
  EXPECT_EQ(EntryCount(), 2u) << "no temporary left";
}

// `--html /dev/stdout` with stdout a pipe: a symlink to a FIFO. The bytes
// reach the reader; the FIFO stays a FIFO and the link a link.
TEST_F(AtomicFileTest, ASymlinkToAFifoDeliversTheBytesAndBothStay) {
  const std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string link = dir_ + "/stdout";
  ASSERT_EQ(::symlink(fifo.c_str(), link.c_str()), 0);
  // The reader end is open before the write (non-blocking, so opening it
  // needs no writer yet): the writer's open then finds a reader at once,
  // and the few bytes fit in the pipe's buffer. Were the write to go
  // elsewhere, the read below finds nothing instead of waiting forever.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  absl::Status s = WriteFileAtomically(link, Bytes("through the pipe"));
  std::string received;
  char buf[256];
  ssize_t n;
  while ((n = ::read(reader, buf, sizeof(buf))) > 0) received.append(buf, static_cast<size_t>(n));
  ::close(reader);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(received, "through the pipe");
  EXPECT_EQ(NodeType(fifo), S_IFIFO);
  EXPECT_EQ(NodeType(link), S_IFLNK);
  EXPECT_EQ(EntryCount(), 2u) << "no temporary left";
}

// A socket cannot be opened for writing (ENXIO): a clear error, and the
// socket is not replaced by a file.
TEST_F(AtomicFileTest, ASocketIsNotReplaced) {
  const std::string sock = dir_ + "/sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  absl::Status s = WriteFileAtomically(sock, Bytes("x"));
  ::close(fd);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(NodeType(sock), S_IFSOCK);
  EXPECT_EQ(EntryCount(), 1u) << "no temporary left";
}

// A block device is never written or replaced.
TEST_F(AtomicFileTest, ABlockDeviceIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of a block device needs root";
  const std::string dev = dir_ + "/block";
  if (::mknod(dev.c_str(), S_IFBLK | 0600, ::makedev(7, 200)) != 0)
    GTEST_SKIP() << "mknod refused here (" << std::strerror(errno) << ")";
  absl::Status s = WriteFileAtomically(dev, Bytes("x"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(NodeType(dev), S_IFBLK);
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
