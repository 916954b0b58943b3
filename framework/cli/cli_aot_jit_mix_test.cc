// The AOT/JIT mix through the `tessera` binary: NPU AOT bytecode beside
// mock_dsp (JIT-only) JIT handles in one model of the attention demo.
// `run --mode aot` compiles each partition the way its plugin can; the
// compile cache keeps the AOT parts and recompiles the JIT parts at every
// load; `compile` leaves the DSP's ops in the file for `run` to JIT-compile;
// a background warm-up reports the verdicts of the plan it switched to.
// Every check reads `run --json` as data, and every output is compared with
// the cpu-only run of the same model on the same inputs.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "framework/core/base/json_reader.h"
#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "framework/core/io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr char kMix[] = " --accelerators npu,dsp,cpu --policy greedy";
constexpr char kInputs[] = " --random --seed 3 --json";

// The JSON report of a run (its one line starting {"model"), parsed; log
// lines on stderr share the output.
JsonValue RunJson(const Result& r) {
  const size_t at = r.output.find("{\"model\"");
  EXPECT_NE(at, std::string::npos) << r.output;
  if (at == std::string::npos) return {};
  absl::StatusOr<JsonValue> v = ParseJson(r.output.substr(at, r.output.find('\n', at) - at));
  EXPECT_TRUE(v.ok()) << v.status() << "\n" << r.output;
  return v.ok() ? *std::move(v) : JsonValue{};
}

// (vendor, mode) of every partition that ran.
std::set<std::pair<std::string, std::string>> RanAs(const JsonValue& run) {
  std::set<std::pair<std::string, std::string>> out;
  const JsonValue* partitions = run.Find("partitions");
  EXPECT_NE(partitions, nullptr);
  if (partitions == nullptr) return out;
  for (const JsonValue& p : partitions->items) out.insert({p.Find("vendor")->string, p.Find("mode")->string});
  return out;
}

std::vector<double> Values(const JsonValue& run) {
  std::vector<double> out;
  const JsonValue* outputs = run.Find("outputs");
  EXPECT_NE(outputs, nullptr);
  if (outputs == nullptr || outputs->items.empty()) return out;
  const JsonValue* values = outputs->items[0].Find("values");
  EXPECT_NE(values, nullptr);
  if (values == nullptr) return out;
  for (const JsonValue& v : values->items) out.push_back(v.number);
  return out;
}

class CliAotJitMix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    work_ = new fs::path(fs::temp_directory_path() / ("cli_aot_jit_mix_" + std::to_string(getpid())));
    fs::remove_all(*work_);
    fs::create_directories(*work_);
    model_ = (*work_ / "attention.tsr").string();
    Result r = Tessera("demo --model attention --save-model " + model_ + " --accelerators cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Result cpu = Tessera("run " + model_ + " --accelerators cpu" + kInputs);
    ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
    cpu_values_ = new std::vector<double>(Values(RunJson(cpu)));
    ASSERT_FALSE(cpu_values_->empty());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*work_);
    delete work_;
    delete cpu_values_;
  }
  // Output 0 against the cpu-only run: the NPU computes in reduced
  // precision, so within 2% of the output's range (as `tessera demo`).
  static void ExpectCpuValues(const JsonValue& run) {
    const std::vector<double> got = Values(run);
    ASSERT_EQ(got.size(), cpu_values_->size());
    double scale = 1.0;
    for (double v : *cpu_values_) scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], (*cpu_values_)[i], 2e-2 * scale) << "element " << i;
  }
  static fs::path* work_;
  static std::string model_;
  static std::vector<double>* cpu_values_;
};
fs::path* CliAotJitMix::work_ = nullptr;
std::string CliAotJitMix::model_;
std::vector<double>* CliAotJitMix::cpu_values_ = nullptr;

TEST_F(CliAotJitMix, RunModeAotPutsNpuBytecodeBesideDspJitHandles) {
  Result r = Tessera("run " + model_ + " --mode aot" + kMix + kInputs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const JsonValue run = RunJson(r);
  const auto ran = RanAs(run);
  EXPECT_TRUE(ran.count({"systolic_npu", "aot"})) << r.output;
  EXPECT_TRUE(ran.count({"mock_dsp", "jit"})) << r.output;
  EXPECT_FALSE(ran.count({"systolic_npu", "jit"})) << r.output;
  EXPECT_FALSE(ran.count({"mock_dsp", "aot"})) << r.output;
  // The plan says the same, per partition, before anything ran.
  const JsonValue* planned = run.Find("partitioning")->Find("partitions");
  ASSERT_NE(planned, nullptr);
  std::set<std::pair<std::string, std::string>> plan;
  for (const JsonValue& p : planned->items) plan.insert({p.Find("vendor")->string, p.Find("mode")->string});
  EXPECT_EQ(plan, ran);
  EXPECT_EQ(run.Find("partitioning")->Find("mode")->string, "aot");
  ExpectCpuValues(run);
}

TEST_F(CliAotJitMix, TheCacheKeepsTheAotPartsAndTheJitPartsRecompileAtEveryLoad) {
  const std::string dir = (*work_ / "cache").string();
  const std::string cmd = "run " + model_ + kMix + kInputs + " --cache-dir " + dir;
  Result first = Tessera(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("compile cache: partitions of mock_dsp (mock_dsp ops "));
  EXPECT_THAT(first.output, HasSubstr("bypass the cache: JIT compilation"));
  const JsonValue one = RunJson(first);
  const JsonValue* cache = one.Find("cache");
  ASSERT_NE(cache, nullptr);
  EXPECT_FALSE(cache->Find("hit")->boolean);
  EXPECT_EQ(cache->Find("stores")->number, 1);
  EXPECT_THAT(cache->Find("jit_bypass")->string, HasSubstr("mock_dsp"));
  // The entry holds bytecode of the NPU and the cpu, and no JIT handle.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tsr") {
      ++entries;
      Result inspect = Tessera("inspect " + e.path().string() + " --json");
      ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
      EXPECT_THAT(inspect.output, HasSubstr("\"left_for_jit\":[{\"vendor\":\"mock_dsp\""));
    }
  EXPECT_EQ(entries, 1u);

  Result second = Tessera(cmd);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_THAT(second.output, HasSubstr("compile cache: partitions of mock_dsp (mock_dsp ops "));
  const JsonValue two = RunJson(second);
  EXPECT_TRUE(two.Find("cache")->Find("hit")->boolean);
  EXPECT_EQ(two.Find("cache")->Find("hits")->number, 1);
  const auto ran = RanAs(two);
  EXPECT_TRUE(ran.count({"systolic_npu", "aot"})) << second.output;
  EXPECT_TRUE(ran.count({"mock_dsp", "jit"})) << second.output;  // compiled again, from the entry's ops
  EXPECT_EQ(ran, RanAs(one));
  EXPECT_EQ(Values(two), Values(one));
  ExpectCpuValues(two);
}

TEST_F(CliAotJitMix, CompileLeavesTheDspOpsForRunToJitCompileBesideTheStoredBytecode) {
  const std::string out = (*work_ / "attention.mix.tsr").string();
  Result c = Tessera("compile " + model_ + " -o " + out + kMix);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, HasSubstr("left for JIT: mock_dsp ops "));
  EXPECT_THAT(c.output, HasSubstr("(mock_dsp compiles only JIT, and a JIT handle cannot be written"));
  EXPECT_THAT(c.output, HasSubstr("(jit)"));  // the DSP's partitions in the plan
  Result inspect = Tessera("inspect " + out);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_THAT(inspect.output, HasSubstr("left for JIT: mock_dsp ops "));

  Result r = Tessera("run " + out + " --accelerators dsp,cpu --policy greedy" + kInputs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const JsonValue run = RunJson(r);
  EXPECT_FALSE(run.Find("precompiled")->boolean);  // its leftover ops were compiled here
  const auto ran = RanAs(run);
  EXPECT_TRUE(ran.count({"systolic_npu", "aot"})) << r.output;  // from the file's bytecode
  EXPECT_TRUE(ran.count({"mock_dsp", "jit"})) << r.output;
  ExpectCpuValues(run);
  // Without the DSP the cpu takes the ops left for it.
  Result cpu = Tessera("run " + out + " --accelerators cpu" + kInputs);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  const auto cpu_ran = RanAs(RunJson(cpu));
  EXPECT_TRUE(cpu_ran.count({"systolic_npu", "aot"})) << cpu.output;
  EXPECT_FALSE(cpu_ran.count({"mock_dsp", "jit"})) << cpu.output;
  ExpectCpuValues(RunJson(cpu));
}

TEST_F(CliAotJitMix, ABackgroundWarmupReportsTheVerdictsOfThePlanItSwitchedTo) {
  const std::string out = (*work_ / "attention.warm.tsr").string();
  ASSERT_EQ(Tessera("compile " + model_ + " -o " + out + kMix).exit_code, 0);
  Result r = Tessera("run " + out + " --accelerators dsp,cpu --policy greedy --mode jit --warmup background" + kInputs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const JsonValue run = RunJson(r);
  EXPECT_EQ(run.Find("warmup")->Find("switched_to")->string, "accelerated");
  // The NPU's stored bytecode is in both plans; its verdict is reported,
  // as a foreground run of the same file reports it.
  const JsonValue* verdicts = run.Find("compatibility");
  ASSERT_NE(verdicts, nullptr);
  ASSERT_FALSE(verdicts->items.empty()) << r.output;
  std::set<std::string> vendors;
  for (const JsonValue& v : verdicts->items) {
    vendors.insert(v.Find("vendor")->string);
    EXPECT_EQ(v.Find("verdict")->string, "optimal") << r.output;
  }
  EXPECT_TRUE(vendors.count("systolic_npu")) << r.output;
  Result foreground = Tessera("run " + out + " --accelerators dsp,cpu --policy greedy --mode jit" + kInputs);
  ASSERT_EQ(foreground.exit_code, 0) << foreground.output;
  const JsonValue foreground_run = RunJson(foreground);  // Find points into it
  const JsonValue* fg = foreground_run.Find("compatibility");
  ASSERT_NE(fg, nullptr);
  EXPECT_EQ(fg->items.size(), verdicts->items.size());
  ExpectCpuValues(run);
}

// compile --quantize int8 measures the quantized model by running it: the
// DSP's ops it leaves for JIT are JIT-compiled for that measurement, and
// the written file still holds them as ops for `run` to compile.
TEST_F(CliAotJitMix, AQuantizedCompileMeasuresWithTheOpsLeftForJitCompiled) {
  const std::string calibration = (*work_ / "calibration").string();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int s = 0; s < 3; ++s) {
    HostTensor x{"x", TSR_DTYPE_F32, {16, 64}, std::vector<uint8_t>(16 * 64 * 4)};
    std::vector<float> v(16 * 64);
    for (float& f : v) f = uniform(rng);
    std::memcpy(x.data.data(), v.data(), x.data.size());
    ASSERT_TRUE(WriteTensorSet({x}, calibration + "/test_data_set_" + std::to_string(s), "input").ok());
  }
  const std::string out = (*work_ / "attention.int8.tsr").string();
  Result c = Tessera("compile " + model_ + " --quantize int8 --calibration " + calibration + " -o " + out + kMix);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, HasSubstr("output 'o_proj' vs fp32: max |err|"));
  EXPECT_THAT(c.output, HasSubstr("left for JIT: mock_dsp ops "));
  Result r = Tessera("run " + out + " --accelerators dsp,cpu --policy greedy" + kInputs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto ran = RanAs(RunJson(r));
  EXPECT_TRUE(ran.count({"systolic_npu", "aot"})) << r.output;
  EXPECT_TRUE(ran.count({"mock_dsp", "jit"})) << r.output;
}

}  // namespace
}  // namespace tessera
