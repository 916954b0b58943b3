// Wrong-SoC refusal, on graphs with hand-made blob descriptors (the check
// reads only the model's own record of the SoC each blob was compiled for).
#include "framework/core/model/compiled_target.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;

Graph WithBlobs(std::vector<std::pair<std::string, std::string>> vendor_soc) {
  Graph g;
  for (auto& [vendor, soc] : vendor_soc) g.bytecodes.push_back({vendor, soc, {}});
  return g;
}

TEST(CompiledTarget, ASocSpecificBlobIsRefusedForAnotherSocWithWhatToDo) {
  const absl::Status s = CheckCompiledTarget(WithBlobs({{"cpu", "any"}, {"systolic_npu", "ref-server"}}), "ref-phone");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("systolic_npu bytecode was compiled for SoC 'ref-server'"));
  EXPECT_THAT(s.message(), HasSubstr("run it with --soc ref-server"));
}

TEST(CompiledTarget, TheSameSocAnyAndUnnamedPass) {
  EXPECT_TRUE(CheckCompiledTarget(WithBlobs({{"systolic_npu", "ref-server"}}), "ref-server").ok());
  EXPECT_TRUE(CheckCompiledTarget(WithBlobs({{"cpu", "any"}, {"cpu", ""}}), "ref-phone").ok());
  EXPECT_TRUE(CheckCompiledTarget(WithBlobs({{"systolic_npu", "ref-server"}}), "").ok());
}

TEST(CompiledTarget, TheModelsSoc) {
  EXPECT_EQ(CompiledSoc(WithBlobs({{"cpu", "any"}, {"systolic_npu", "ref-edge"}})), "ref-edge");
  EXPECT_EQ(CompiledSoc(WithBlobs({{"cpu", "any"}})), std::nullopt);
  EXPECT_EQ(CompiledSoc(WithBlobs({{"a", "ref-edge"}, {"b", "ref-phone"}})), std::nullopt);
}

}  // namespace
}  // namespace tessera
