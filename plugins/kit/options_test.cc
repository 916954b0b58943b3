#include "plugins/kit/options.h"

#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

const std::map<std::string, std::set<std::string>> kAllowed = {
    {"dataflow", {"ws", "os"}}, {"threads", {}}};

TEST(VendorOptions, KeepsOwnStripsPrefixIgnoresOthers) {
  tsr_key_value kv[] = {{"npu.dataflow", "os"}, {"dsp.faults", "3"}, {"npu.threads", "4"}};
  auto parsed = ParseVendorOptions(kv, 3, "npu", kAllowed);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->size(), 2u);
  EXPECT_EQ(parsed->at("dataflow"), "os");
  EXPECT_EQ(parsed->at("threads"), "4");
}

TEST(VendorOptions, RejectsUnknownNameAndBadValue) {
  tsr_key_value unknown[] = {{"npu.speed", "fast"}};
  auto a = ParseVendorOptions(unknown, 1, "npu", kAllowed);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("npu.dataflow"), std::string::npos);
  tsr_key_value bad[] = {{"npu.dataflow", "diagonal"}};
  EXPECT_FALSE(ParseVendorOptions(bad, 1, "npu", kAllowed).ok());
  tsr_key_value null_value[] = {{"npu.dataflow", nullptr}};
  EXPECT_FALSE(ParseVendorOptions(null_value, 1, "npu", kAllowed).ok());
}

}  // namespace
}  // namespace tessera::kit
