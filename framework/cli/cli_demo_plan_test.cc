// `tessera demo` with no flags is the SDK's showcase: on ref-phone, with
// FP16 allowed (its default, and it says so), `auto` puts the wide MLP's
// GEMMs on the NPU and wins against cpu-only. The plan (which ops go to the
// NPU) is pinned here, so a change to the cost model, the NPU's claims or
// the demo model that takes the NPU out of the demo fails a test instead of
// silently showing a cpu-only run.
#include <string>
#include <vector>

#include "framework/core/base/json_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const JsonValue& At(const JsonValue& object, const char* key) {
  static const JsonValue kMissing;
  const JsonValue* v = object.Find(key);
  EXPECT_NE(v, nullptr) << key;
  return v != nullptr ? *v : kMissing;
}

std::vector<std::string> Strings(const JsonValue& array) {
  std::vector<std::string> out;
  for (const JsonValue& v : array.items) out.push_back(v.string);
  return out;
}

TEST(CliDemoPlan, TheDefaultDemoPutsTheGemmsOnTheNpuInFp16AndWins) {
  const Result r = Tessera("demo --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  absl::StatusOr<JsonValue> parsed = ParseJson(r.output);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << r.output.substr(0, 2000);
  const JsonValue& demo = *parsed;
  EXPECT_EQ(At(demo, "model").string, "mlp_wide");
  EXPECT_EQ(At(demo, "precision").string, "allow-fp16");
  EXPECT_TRUE(At(demo, "ok").boolean);

  // The pinned plan: the four FULLY_CONNECTED layers and the three RELUs
  // between them in one NPU partition, in FP16; the last RELU, an edge op
  // whose transfer costs more than it saves, on the cpu.
  const JsonValue& plan = At(demo, "partitioning");
  EXPECT_EQ(At(plan, "soc").string, "ref-phone");
  EXPECT_EQ(At(plan, "policy").string, "cost");
  const std::vector<JsonValue>& partitions = At(plan, "partitions").items;
  ASSERT_EQ(partitions.size(), 2u) << r.output.substr(0, 4000);
  EXPECT_EQ(At(partitions[0], "vendor").string, "systolic_npu");
  EXPECT_EQ(At(partitions[0], "precision").string, "fp16");
  EXPECT_THAT(Strings(At(partitions[0], "op_types")), ElementsAre("FULLY_CONNECTED", "RELU", "FULLY_CONNECTED", "RELU",
                                                                  "FULLY_CONNECTED", "RELU", "FULLY_CONNECTED"));
  EXPECT_EQ(At(partitions[1], "vendor").string, "cpu");
  EXPECT_THAT(Strings(At(partitions[1], "op_types")), ElementsAre("RELU"));

  // The speed-ups are the report's own latencies divided, and the win
  // is at least 2x: a showcase that barely beats the cpu shows nothing.
  const double plan_us = At(plan, "modeled_latency_us").number;
  const double cpu_only_us = At(plan, "modeled_latency_us_cpu_only").number;
  const double greedy_us = At(plan, "modeled_latency_us_greedy").number;
  ASSERT_GT(plan_us, 0);
  // (JSON keeps about 9 significant digits.)
  EXPECT_NEAR(At(demo, "modeled_speedup_vs_cpu_only").number, cpu_only_us / plan_us, 1e-6 * cpu_only_us / plan_us);
  EXPECT_NEAR(At(demo, "modeled_speedup_vs_greedy").number, greedy_us / plan_us, 1e-6 * greedy_us / plan_us);
  EXPECT_GE(cpu_only_us / plan_us, 2.0);
  // The cost policy never keeps a plan slower than greedy's.
  EXPECT_GE(greedy_us, plan_us);
}

TEST(CliDemoPlan, TheTextSaysFp16IsAllowedAndPrintsTheSpeedup) {
  const Result r = Tessera("demo");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("precision: allow-fp16 (the demo's default: the NPU computes in FP16; "
                                  "--precision fp32 keeps it out)"));
  EXPECT_THAT(r.output, testing::ContainsRegex("modelled speed-up on SoC ref-phone \\(policy cost, [0-9.]+ us\\): "
                                               "[0-9.]+x vs cpu only \\([0-9.]+ us\\), [0-9.]+x vs greedy"));
  EXPECT_THAT(r.output, HasSubstr("result: outputs agree with the cpu reference"));
}

TEST(CliDemoPlan, Fp32KeepsTheNpuOutAndTheSpeedupSaysSo) {
  // --precision fp32: the FP16 NPU is not offered the ops, so the plan is
  // the cpu-only one and the speed-up over it is exactly 1.
  const Result r = Tessera("demo --json --precision fp32");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  absl::StatusOr<JsonValue> parsed = ParseJson(r.output);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  for (const JsonValue& p : At(At(*parsed, "partitioning"), "partitions").items)
    EXPECT_EQ(At(p, "vendor").string, "cpu");
  EXPECT_NEAR(At(*parsed, "modeled_speedup_vs_cpu_only").number, 1.0, 1e-9);
}

}  // namespace
}  // namespace tessera
