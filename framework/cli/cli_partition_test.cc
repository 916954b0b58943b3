// `tessera partition` as an engineer chasing a slow accelerated model runs
// it: the policies side by side on the attention demo (a graph the NPU
// fragments), the report's cost fields, grouped fallbacks, and --strict.
#include <cstdlib>
#include <regex>
#include <string>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// The first number after "key": in a JSON text (the report's top-level
// fields come after the nested arrays, so search from the end).
double Number(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\":(-?[0-9.eE+-]+)");
  double last = std::nan("");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator(); ++it)
    last = std::strtod((*it)[1].str().c_str(), nullptr);
  return last;
}

class CliPartition : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new TempFile();
    const Result saved = Tessera("demo --model attention --accelerators cpu --save-model " + model_->path() + ".tsr");
    ASSERT_EQ(saved.exit_code, 0) << saved.output;
    path_ = model_->path() + ".tsr";
  }
  static void TearDownTestSuite() {
    std::remove(path_.c_str());
    delete model_;
  }
  static Result Partition(const std::string& flags) {
    return Tessera("partition " + path_ + " --accelerators npu,cpu --soc ref-phone " + flags);
  }
  static TempFile* model_;
  static std::string path_;
};
TempFile* CliPartition::model_ = nullptr;
std::string CliPartition::path_;

TEST_F(CliPartition, CostBeatsGreedyOnAFragmentingGraphAndIsNoWorseThanTheCpu) {
  const Result greedy = Partition("--policy greedy --json");
  const Result cost = Partition("--json");  // cost is the default
  const Result cpu = Partition("--policy cpu --json");
  ASSERT_EQ(greedy.exit_code, 0) << greedy.output;
  ASSERT_EQ(cost.exit_code, 0) << cost.output;
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_THAT(cost.output, HasSubstr("\"policy\":\"cost\""));
  EXPECT_THAT(greedy.output, HasSubstr("\"policy\":\"greedy\""));
  const double g = Number(greedy.output, "modeled_latency_us"), c = Number(cost.output, "modeled_latency_us"),
               p = Number(cpu.output, "modeled_latency_us");
  EXPECT_LE(c, std::min(g, p) + 1e-9);
  EXPECT_GE(g / c, 1.5) << "greedy " << g << " us, cost " << c << " us";
  // Each run reports the other two as baselines, with the same figures.
  EXPECT_DOUBLE_EQ(Number(cost.output, "modeled_latency_us_greedy"), g);
  EXPECT_DOUBLE_EQ(Number(cost.output, "modeled_latency_us_cpu_only"), p);
  // The greedy plan's figures add up: latency = compute + dispatch +
  // transfer, and the transfer is the conversions' sum.
  const double sum = Number(greedy.output, "compute_us") + Number(greedy.output, "dispatch_us") +
                     Number(greedy.output, "transfer_us");
  EXPECT_NEAR(g, sum, 1e-6 * g);
  const std::regex us_re("\"to_memory\":\"[a-z_]+\",\"bytes\":[0-9]+,\"us\":([0-9.eE+-]+)");
  double conversions = 0;
  for (auto it = std::sregex_iterator(greedy.output.begin(), greedy.output.end(), us_re); it != std::sregex_iterator();
       ++it)
    conversions += std::strtod((*it)[1].str().c_str(), nullptr);
  EXPECT_GT(conversions, 0);
  EXPECT_NEAR(Number(greedy.output, "transfer_us"), conversions, 1e-3);
}

TEST_F(CliPartition, JsonHasTheCostFieldsAndTimings) {
  const Result r = Partition("--json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* field : {"\"modeled_latency_us\":", "\"modeled_latency_us_cpu_only\":",
                            "\"modeled_latency_us_greedy\":", "\"transfer_us\":", "\"conversions\":[",
                            "\"fallback_groups\":[", "\"timings_ms\":{\"load\":", "\"claims\":", "\"partition\":",
                            "\"partition_count\":", "\"cuts\":[", "\"fallbacks\":["})
    EXPECT_THAT(r.output, HasSubstr(field));
  // Ops the cost model gave back say so, machine-readably.
  EXPECT_THAT(r.output, HasSubstr("\"reason\":\"not_profitable\""));
}

TEST_F(CliPartition, TextGroupsFallbacksByOpTypeAndReason) {
  const Result r = Partition("--policy greedy");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("grouped by op type and reason"));
  // The attention block has several SLICEs the NPU refuses: one line, counted.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n +[2-9]x SLICE +-> cpu +systolic_npu: unsupported_op)")))
      << r.output;
  EXPECT_THAT(r.output, HasSubstr("modelled latency (policy greedy):"));
  EXPECT_THAT(r.output, HasSubstr("baselines: cpu only"));
}

TEST_F(CliPartition, StrictTurnsAnyFallbackIntoExitOne) {
  const Result r = Partition("--strict");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--strict:"));
  EXPECT_THAT(r.output, HasSubstr("ops fell back"));
  // Nothing falls back on the cpu alone.
  const Result cpu = Tessera("partition " + path_ + " --accelerators cpu --strict");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  // compile --strict writes nothing.
  TempFile out;
  std::remove(out.path().c_str());
  const Result c = Tessera("compile " + path_ + " --accelerators npu,cpu --strict -o " + out.path());
  EXPECT_EQ(c.exit_code, 1) << c.output;
  EXPECT_NE(std::system(("test -e " + out.path()).c_str()), 0) << "compile --strict wrote " << out.path();
}

TEST_F(CliPartition, BadPolicyFlagsAreUsageErrors) {
  for (const char* flags : {"--policy fast", "--min-ops 0", "--max-partitions x", "--min-ops -3"}) {
    const Result r = Partition(flags);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
  }
  EXPECT_THAT(Partition("--policy fast").output, HasSubstr("want cost, greedy or cpu"));
}

TEST_F(CliPartition, LimitsHoldOnTheCommandLine) {
  const Result r = Partition("--policy greedy --max-partitions 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LE(Number(r.output, "partition_count"), 3);
  EXPECT_THAT(r.output, HasSubstr("over --max-partitions 3"));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(CliRunLatency, MeasuredModelledLatencyMatchesTheEstimateOnTheDemoModels) {
  // Device time from the NPU's cycle metrics against the partitioner's
  // whole-partition estimate, on both study SoCs: within 10%.
  for (const char* model : {"attention", "cnn", "mlp"}) {
    TempFile file;
    const std::string path = file.path() + ".tsr";
    ASSERT_EQ(Tessera(std::string("demo --model ") + model + " --accelerators cpu --save-model " + path).exit_code, 0);
    for (const char* soc : {"ref-phone", "ref-edge"}) {
      const Result r = Tessera("run " + path + " --accelerators npu,cpu --policy greedy --random --json --soc " + soc);
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const double estimated = Number(r.output, "estimated_us"), measured = Number(r.output, "measured_us");
      EXPECT_GT(Number(r.output, "steps_with_device_time"), 0) << model << " " << soc;
      EXPECT_NEAR(measured, estimated, 0.1 * estimated) << model << " on " << soc;
    }
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(CliCompileRecovery, AFailedCompileMovesOnlyTheCulpritOps) {
  // The mock DSP fails to compile any partition holding a SIN, and names
  // the SIN as the culprit (compiled_partition_culprits): only that op
  // moves to the cpu; the rest of its partition and the DSP's other
  // partition stay on the DSP.
  TempFile file;
  const std::string path = file.path() + ".tsr";
  ASSERT_EQ(Tessera("demo --model attention --accelerators cpu --save-model " + path).exit_code, 0);
  const std::string base = "partition " + path + " --accelerators dsp,cpu --policy greedy --mode jit --json";
  const Result good = Tessera(base);
  const Result bad = Tessera(base + " --option mock_dsp.fail_compile_op=SIN");
  std::remove(path.c_str());
  ASSERT_EQ(good.exit_code, 0) << good.output;
  ASSERT_EQ(bad.exit_code, 0) << bad.output;
  const std::regex note(R"(\{"vendor":"mock_dsp","reason":"compile failed: [^"]*SIN[^"]*","op_ids":\[([0-9,]*)\]\})");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(bad.output, m, note)) << bad.output;
  EXPECT_EQ(m[1].str(), "2");  // the SIN alone (op id 2 of the demo graph)
  // Every other op the DSP ran before still runs there.
  auto dsp_ops = [](const std::string& json) {
    const std::regex part(R"("vendor":"mock_dsp","op_ids":\[([0-9,]*)\])");
    size_t n = 0;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), part); it != std::sregex_iterator(); ++it)
    {
      const std::string ids = (*it)[1].str();
      n += static_cast<size_t>(std::count(ids.begin(), ids.end(), ',')) + 1;
    }
    return n;
  };
  EXPECT_EQ(dsp_ops(bad.output), dsp_ops(good.output) - 1);
  EXPECT_THAT(bad.output, HasSubstr("\"reason\":\"compile_failed\""));
}

}  // namespace
}  // namespace tessera
