// RegularFile and ReadRegularFile refuse what is not a regular file (a
// FIFO without waiting for a writer, a device without reading it) and
// bound what they read.
#include "framework/core/base/regular_file.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/special_files_for_test.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;
using ::testing::Optional;

TEST(RegularFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  ScratchDirectory dir;
  const std::string fifo = dir.Fifo("model.tsr");
  ASSERT_FALSE(fifo.empty());
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [&] { return RegularFile::Open(fifo).status().ToString(); }),
              Optional(AllOf(HasSubstr("INVALID_ARGUMENT"), HasSubstr(fifo), HasSubstr("is a FIFO"))));
  EXPECT_THAT(CheckIsRegularFile(fifo).message(), HasSubstr("is a FIFO"));
}

TEST(RegularFile, ADeviceIsRefusedNotRead) {
  // /dev/zero never ends: reading it would fill memory.
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [] { return ReadRegularFile("/dev/zero", 1 << 20).status().ToString(); }),
              Optional(HasSubstr("'/dev/zero' is a character device, not a regular file")));
  EXPECT_THAT(CheckIsRegularFile("/dev/null").message(), HasSubstr("character device"));
}

TEST(RegularFile, ADirectoryAndAMissingFileAreRefused) {
  ScratchDirectory dir;
  EXPECT_THAT(RegularFile::Open(dir.path()).status().message(), HasSubstr("is a directory"));
  EXPECT_EQ(RegularFile::Open(dir.path() + "/missing").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(CheckIsRegularFile(dir.path() + "/missing").code(), absl::StatusCode::kNotFound);
}

TEST(RegularFile, ReadsARegularFileWithinItsBudgetOnly) {
  ScratchDirectory dir;
  const std::string path = dir.path() + "/ten";
  std::ofstream(path) << "0123456789";
  EXPECT_TRUE(CheckIsRegularFile(path).ok());
  const absl::StatusOr<std::string> all = ReadRegularFile(path, 10);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, "0123456789");
  const absl::StatusOr<std::string> over = ReadRegularFile(path, 9);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(), HasSubstr("10 bytes; at most 9"));
}

}  // namespace
}  // namespace tessera
