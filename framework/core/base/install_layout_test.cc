// FindSoc reads only a regular SoC file: a FIFO or a device given to --soc
// (or found under a SoC's name) is refused at once, never read.
#include "framework/core/base/install_layout.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/special_files_for_test.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;
using ::testing::Optional;

std::string FindSocStatus(const std::string& requested, const std::string& directory) {
  return FindSoc(requested, directory).status().ToString();
}

TEST(FindSoc, AFifoGivenAsASocFileIsRefusedPromptly) {
  ScratchDirectory dir;
  const std::string fifo = dir.Fifo("phone.soc");
  ASSERT_FALSE(fifo.empty());
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [&] { return FindSocStatus(fifo, "/nonexistent"); }),
              Optional(AllOf(HasSubstr("INVALID_ARGUMENT"), HasSubstr("SoC file"), HasSubstr("is a FIFO"))));
  // The same FIFO found by name in the SoC directory.
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [&] { return FindSocStatus("phone", dir.path()); }),
              Optional(HasSubstr("is a FIFO")));
}

TEST(FindSoc, DevZeroIsRefusedNotRead) {
  EXPECT_THAT(FinishesWithin(kNoHangTimeout, [] { return FindSocStatus("/dev/zero", "/nonexistent"); }),
              Optional(HasSubstr("'/dev/zero' is a character device")));
}

TEST(FindSoc, ARegularFileIsReadAndAnUnknownNameListsTheBundledOnes) {
  ScratchDirectory dir;
  std::ofstream(dir.path() + "/tiny.soc") << "name = tiny\n";
  absl::StatusOr<SocSelection> soc = FindSoc("tiny", dir.path());
  ASSERT_TRUE(soc.ok()) << soc.status();
  EXPECT_EQ(soc->name, "tiny");
  EXPECT_EQ(soc->description, "name = tiny\n");
  const absl::Status unknown = FindSoc("huge", dir.path()).status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.message(), HasSubstr("bundled: tiny"));
}

}  // namespace
}  // namespace tessera
