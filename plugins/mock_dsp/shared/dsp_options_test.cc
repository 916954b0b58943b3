#include "plugins/mock_dsp/shared/dsp_options.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<DspOptions> Parse(std::vector<tsr_key_value> kv) { return ParseDspOptions(kv.data(), kv.size()); }

TEST(DspOptions, DefaultsInjectNothing) {
  absl::StatusOr<DspOptions> o = Parse({{"cpu.kernels", "fast"}});  // another vendor's key is ignored
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->refuse_load);
  EXPECT_EQ(o->fail_compile_op, 0);
  EXPECT_EQ(o->fail_invoke, 0);
  EXPECT_EQ(o->fail_after, -1);
  EXPECT_EQ(o->device_lost_after, -1);
  EXPECT_FALSE(o->corrupt);
}

TEST(DspOptions, ParsesEveryKnob) {
  absl::StatusOr<DspOptions> o = Parse({{"mock_dsp.refuse_load", "1"},
                                        {"mock_dsp.fail_compile_op", "SIN"},
                                        {"mock_dsp.fail_invoke", "3"},
                                        {"mock_dsp.fail_after", "0"},
                                        {"mock_dsp.latency_us", "250"},
                                        {"mock_dsp.corrupt", "1"},
                                        {"mock_dsp.device_lost_after", "2"},
                                        {"mock_dsp.hang_invoke", "1"},
                                        {"mock_dsp.hang_ms", "50"}});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->refuse_load);
  EXPECT_EQ(o->fail_compile_op, TSR_OP_SIN);
  EXPECT_EQ(o->fail_invoke, 3);
  EXPECT_EQ(o->fail_after, 0);
  EXPECT_EQ(o->latency_us, 250);
  EXPECT_TRUE(o->corrupt);
  EXPECT_EQ(o->device_lost_after, 2);
  EXPECT_EQ(o->hang_invoke, 1);
  EXPECT_EQ(o->hang_ms, 50);
}

TEST(DspOptions, BadValuesNameTheOption) {
  EXPECT_THAT(Parse({{"mock_dsp.fail_invoke", "-1"}}).status().message(), HasSubstr("mock_dsp.fail_invoke"));
  EXPECT_THAT(Parse({{"mock_dsp.fail_invoke", "x"}}).status().message(), HasSubstr("expected an integer"));
  EXPECT_THAT(Parse({{"mock_dsp.hang_ms", "60000"}}).status().message(), HasSubstr("[0, 10000]"));
  EXPECT_THAT(Parse({{"mock_dsp.fail_compile_op", "sine"}}).status().message(), HasSubstr("expected an op name"));
  EXPECT_THAT(Parse({{"mock_dsp.corrupt", "yes"}}).status().message(), HasSubstr("allowed: 0, 1"));
  EXPECT_THAT(Parse({{"mock_dsp.nope", "1"}}).status().message(), HasSubstr("unknown option 'mock_dsp.nope'"));
}

TEST(DspOptions, AHoldNeedsTheFileThatReleasesIt) {
  absl::StatusOr<DspOptions> o = Parse({{"mock_dsp.hold_invoke", "2"}, {"mock_dsp.hold_file", "/tmp/release"}});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->hold_invoke, 2);
  EXPECT_EQ(o->hold_file, "/tmp/release");
  EXPECT_THAT(Parse({{"mock_dsp.hold_invoke", "1"}}).status().message(), HasSubstr("needs 'mock_dsp.hold_file'"));
  absl::StatusOr<DspOptions> c = Parse({{"mock_dsp.hold_compile", "1"}, {"mock_dsp.hold_file", "/tmp/release"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->hold_compile);
  EXPECT_THAT(Parse({{"mock_dsp.hold_compile", "1"}}).status().message(),
              HasSubstr("option 'mock_dsp.hold_compile' needs 'mock_dsp.hold_file'"));
  EXPECT_FALSE(Parse({{"mock_dsp.hold_compile", "2"}, {"mock_dsp.hold_file", "/tmp/release"}}).ok());
}

}  // namespace
}  // namespace tessera::mock_dsp
