// MappedFile copies files below the threshold (so truncating the file later
// cannot raise SIGBUS) and maps larger ones; both give the file's bytes.
#include "framework/core/model/mapped_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/special_files_for_test.h"

namespace tessera {
namespace {

std::string WriteFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / (name + std::to_string(getpid()))).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return path;
}

std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + 7);
  return v;
}

TEST(MappedFile, ASmallFileIsCopiedAndSurvivesTruncation) {
  const std::vector<uint8_t> want = Pattern(3 * 4096 + 17);
  const std::string path = WriteFile("mapped_small_", want);
  absl::StatusOr<std::shared_ptr<const MappedFile>> f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE((*f)->is_copy());
  // Another process truncates the file: a mapping would now SIGBUS on the
  // lost pages; the copy reads on.
  std::filesystem::resize_file(path, 0);
  const std::span<const uint8_t> got = (*f)->bytes();
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(got.data()) % 4096, 0u) << "page-aligned like a mapping";
  std::remove(path.c_str());
}

TEST(MappedFile, AFileAtOrAboveTheThresholdIsMapped) {
  const std::vector<uint8_t> want = Pattern(8192);
  const std::string path = WriteFile("mapped_large_", want);
  absl::StatusOr<std::shared_ptr<const MappedFile>> f = MappedFile::Open(path, /*copy_below=*/8192);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE((*f)->is_copy());
  const std::span<const uint8_t> got = (*f)->bytes();
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin()));
  std::remove(path.c_str());
}

TEST(MappedFile, EmptyFilesDirectoriesAndMissingFilesAreErrors) {
  const std::string empty = WriteFile("mapped_empty_", {});
  EXPECT_EQ(MappedFile::Open(empty).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MappedFile::Open(std::filesystem::temp_directory_path().string()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MappedFile::Open("/nonexistent/file.tsr").status().code(), absl::StatusCode::kNotFound);
  std::remove(empty.c_str());
}

TEST(MappedFile, AFifoIsRefusedPromptly) {
  // open() of a FIFO waits for a writer; MappedFile must not.
  ScratchDirectory dir;
  const std::string fifo = dir.Fifo("model.tsr");
  ASSERT_FALSE(fifo.empty());
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [&] { return MappedFile::Open(fifo).status().ToString(); }),
              ::testing::Optional(::testing::HasSubstr("is a FIFO, not a regular file")));
}

}  // namespace
}  // namespace tessera
