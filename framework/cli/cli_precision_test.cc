// The precision policy and the NaN/Inf report through the commands users
// run: --precision on run, bench, partition, compile, demo and onnx-test;
// fp32 (the default) keeps the FP16 NPU out and says why; allow-fp16 offers
// it only where calibration data proves the range; the NPU's claim flags
// agree with what its dispatch library declares at run time; and a NaN made
// from finite inputs is reported, and fails --check and --strict.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "framework/core/graph/host_tensor.h"
#include "framework/core/io/tensor_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "testing/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A directory of input_0.pb holding `values` as f32 of `shape`, removed
// with the object.
class InputSet {
 public:
  InputSet(std::vector<int64_t> shape, const std::vector<float>& values) {
    char dir[] = "/tmp/tessera_precision_test_XXXXXX";
    dir_ = ::mkdtemp(dir) != nullptr ? dir : "";
    HostTensor t{"x", TSR_DTYPE_F32, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(float))};
    std::memcpy(t.data.data(), values.data(), t.data.size());
    ok_ = WriteTensorSet({t}, dir_, "input").ok();
  }
  ~InputSet() { std::filesystem::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  bool ok() const { return ok_; }

 private:
  std::string dir_;
  bool ok_ = false;
};

// n values spread over [-scale, scale) by a fixed formula.
std::vector<float> Spread(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>((i * 37) % 200) - 100) / 100.0f;
  return v;
}

// The numerics precision of every run step of `vendor` in `run --json`.
std::vector<std::string> StepPrecisions(const std::string& json, const std::string& vendor) {
  const std::regex re("\"vendor\":\"" + vendor + "\"" +
                      R"re([^{}]*"metrics":\{[^}]*\},"metric_units":\{[^}]*\},"numerics":\{"precision":"(\w+)")re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

// The op types of every systolic_npu partition line of a text report.
std::vector<std::string> NpuPartitionLines(const std::string& text) {
  const std::regex re(R"(\n +#\d+ +systolic_npu +[^\n]*)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

class CliPrecision : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The demo CNN ([2,3,32,32] -> CONV_2D x3, pools, FC) and MLP ([16,784] -> FC x3, SOFTMAX).
    cnn_ = new TempFile();
    mlp_ = new TempFile();
    ASSERT_EQ(Tessera("demo --model cnn --accelerators cpu --save-model " + cnn_->path() + ".tsr").exit_code, 0);
    ASSERT_EQ(Tessera("demo --model mlp --accelerators cpu --save-model " + mlp_->path() + ".tsr").exit_code, 0);
  }
  static void TearDownTestSuite() {
    std::remove((cnn_->path() + ".tsr").c_str());
    std::remove((mlp_->path() + ".tsr").c_str());
    delete cnn_;
    delete mlp_;
  }
  static std::string Cnn() { return cnn_->path() + ".tsr"; }
  static std::string Mlp() { return mlp_->path() + ".tsr"; }
  // The greedy policy gives every claimed op to the NPU: what it is offered
  // is what it gets.
  static Result Greedy(const std::string& command, const std::string& flags) {
    return Tessera(command + " " + Cnn() + " --accelerators npu,cpu --soc ref-phone --policy greedy " + flags);
  }
  static TempFile* cnn_;
  static TempFile* mlp_;
};
TempFile* CliPrecision::cnn_ = nullptr;
TempFile* CliPrecision::mlp_ = nullptr;

TEST_F(CliPrecision, Fp32IsTheDefaultAndKeepsTheFp16NpuOutSayingWhy) {
  const Result text = Greedy("partition", "");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("precision: fp32\n"));
  // The NPU still takes what it computes in FP32 (pools, RELU), never a CONV_2D.
  ASSERT_FALSE(NpuPartitionLines(text.output).empty()) << text.output;
  for (const std::string& line : NpuPartitionLines(text.output)) EXPECT_THAT(line, Not(HasSubstr("CONV_2D")));
  EXPECT_THAT(text.output, HasSubstr("precision fp32: systolic_npu computes in fp16, not allowed by --precision fp32"));
  EXPECT_THAT(text.output, HasSubstr("systolic_npu: precision"));
  const Result json = Greedy("partition", "--json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"precision\":\"fp32\""));
  EXPECT_THAT(json.output,
              HasSubstr("\"precision_why\":\"systolic_npu computes in fp16, not allowed by --precision fp32\""));
  EXPECT_THAT(json.output, Not(HasSubstr("\"precision\":\"fp16\"")));
}

TEST_F(CliPrecision, AllowFp16WithoutCalibrationProvesNoRange) {
  const Result r = Greedy("partition", "--precision allow-fp16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("precision: allow-fp16\n"));
  EXPECT_THAT(r.output, HasSubstr("allowed by --precision allow-fp16, but its range is not proven"));
  for (const std::string& line : NpuPartitionLines(r.output)) EXPECT_THAT(line, Not(HasSubstr("CONV_2D")));
}

TEST_F(CliPrecision, AllowFp16WithCalibrationInRangeGivesTheNpuItsConvolutions) {
  const InputSet calibration({2, 3, 32, 32}, Spread(2 * 3 * 32 * 32, 1.0f));
  ASSERT_TRUE(calibration.ok());
  const Result r = Greedy("partition", "--precision allow-fp16 --calibration " + calibration.dir());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> npu = NpuPartitionLines(r.output);
  ASSERT_EQ(npu.size(), 1u) << r.output;  // the whole model, as greedy gave it before the policy
  EXPECT_THAT(npu[0], HasSubstr("CONV_2Dx3"));
  EXPECT_THAT(r.output, HasSubstr("precision fp16: systolic_npu computes in fp16, allowed by --precision allow-fp16; "
                                  "every range proven within FP16 on 1 input set(s) of " +
                                  calibration.dir()));
  const Result json = Greedy("partition", "--json --precision allow-fp16 --calibration " + calibration.dir());
  EXPECT_THAT(json.output, HasSubstr("\"precision\":\"allow-fp16\""));
  EXPECT_THAT(json.output, HasSubstr("\"precision\":\"fp16\""));
}

TEST_F(CliPrecision, AllowFp16RefusesAnOpWhoseCalibratedRangeCanOverflowFp16) {
  // Inputs up to 5000: beyond 65504 / 16, the bound FP16 must keep.
  const InputSet calibration({2, 3, 32, 32}, Spread(2 * 3 * 32 * 32, 5000.0f));
  ASSERT_TRUE(calibration.ok());
  const Result r = Greedy("partition", "--precision allow-fp16 --calibration " + calibration.dir());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("beyond the FP16 bound 4094 (65504 / 16 headroom)"));
  for (const std::string& line : NpuPartitionLines(r.output)) EXPECT_THAT(line, Not(HasSubstr("CONV_2D")));
}

TEST_F(CliPrecision, ClaimFlagsAgreeWithWhatTheNpuDeclaresAtRunTime) {
  // fp32: every NPU step the run executes declares FP32 (tsr_numerics).
  const Result fp32 = Greedy("run", "--json");
  ASSERT_EQ(fp32.exit_code, 0) << fp32.output;
  EXPECT_THAT(fp32.output, HasSubstr("\"precision\":\"fp32\""));
  const std::vector<std::string> kept = StepPrecisions(fp32.output, "systolic_npu");
  ASSERT_FALSE(kept.empty()) << fp32.output;
  for (const std::string& p : kept) EXPECT_EQ(p, "fp32");
  // allow-fp16: the run's own inputs (in (-1, 1)) prove the ranges.
  const Result fp16 = Greedy("run", "--json --precision allow-fp16");
  ASSERT_EQ(fp16.exit_code, 0) << fp16.output;
  EXPECT_THAT(fp16.output, HasSubstr("\"precision\":\"allow-fp16\""));
  EXPECT_EQ(StepPrecisions(fp16.output, "systolic_npu"), std::vector<std::string>{"fp16"});
}

TEST_F(CliPrecision, EveryCompilingCommandTakesTheFlagAndReportsIt) {
  TempFile out;
  const std::vector<std::pair<std::string, Result>> runs = {
      {"run", Greedy("run", "--json --precision allow-int8")},
      {"bench", Greedy("bench", "--json --reps 1 --warmup 0 --precision allow-int8")},
      {"partition", Greedy("partition", "--json --precision allow-int8")},
      {"compile", Greedy("compile", "--json --precision allow-int8 -o " + out.path())},
      {"demo", Tessera("demo --model cnn --json --precision allow-int8")}};
  for (const auto& [command, r] : runs) {
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("\"precision\":\"allow-int8\"")) << command;
  }
  for (const std::string& command :
       std::vector<std::string>{"run " + Cnn(), "bench " + Cnn(), "partition " + Cnn(),
                                "compile " + Cnn() + " -o " + out.path(), "demo", "onnx-test /nonexistent"}) {
    const Result bad = Tessera(command + " --precision fp16");
    EXPECT_EQ(bad.exit_code, 2) << command << ": " << bad.output;
    EXPECT_THAT(bad.output, HasSubstr("unknown --precision 'fp16' (want fp32, allow-fp16 or allow-int8)")) << command;
  }
  const Result stray = Tessera("partition " + Cnn() + " --calibration /tmp");
  EXPECT_EQ(stray.exit_code, 2) << stray.output;
  EXPECT_THAT(stray.output, HasSubstr("--calibration is only used with --quantize int8, or to prove FP16 ranges"));
}

TEST_F(CliPrecision, DemoAllowsFp16AndSaysSo) {
  const Result r = Tessera("demo --model cnn --policy greedy");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("precision: allow-fp16 (the demo's default: the NPU computes in FP16; "
                                  "--precision fp32 keeps it out)"));
  EXPECT_THAT(r.output, HasSubstr("precision fp16: systolic_npu computes in fp16"));
}

TEST_F(CliPrecision, NanFromFiniteInputsIsReportedAndFailsCheckAndStrict) {
  // |x| = 3e38 through FULLY_CONNECTED overflows f32; the reference kernels
  // carry the infinities on to NaN in SOFTMAX.
  std::vector<float> huge(16 * 784);
  for (size_t i = 0; i < huge.size(); ++i) huge[i] = (i * 7) % 3 != 0 ? 3e38f : -3e38f;
  const InputSet inputs({16, 784}, huge);
  ASSERT_TRUE(inputs.ok());
  const std::string run = "run " + Mlp() + " --accelerators cpu --kernels reference --inputs " + inputs.dir();
  const Result text = Tessera(run);
  EXPECT_EQ(text.exit_code, 0) << text.output;  // the default reports and exits 0
  EXPECT_THAT(text.output, HasSubstr("non-finite outputs: 'probs' holds 160 NaN and 0 Inf (every input was finite"));
  const Result json = Tessera(run + " --json");
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output,
              HasSubstr("\"nonfinite\":{\"checked\":true,\"inputs_finite\":true,\"from_finite_inputs\":true,"
                        "\"outputs\":[{\"index\":0,\"name\":\"probs\",\"nan\":160,\"inf\":0}]}"));
  for (const char* flag : {"--check", "--strict"}) {
    const Result failed = Tessera(run + " " + flag);
    EXPECT_EQ(failed.exit_code, 1) << flag << ": " << failed.output;
    EXPECT_THAT(failed.output,
                HasSubstr(std::string(flag) + ": non-finite outputs from finite inputs: 'probs' holds 160 NaN"));
  }
}

TEST_F(CliPrecision, ANanInputPassedThroughIsReportedButIsNotTheModelsFault) {
  std::vector<float> values(16 * 784, 0.5f);
  values[0] = std::nanf("");
  const InputSet inputs({16, 784}, values);
  ASSERT_TRUE(inputs.ok());
  const Result r = Tessera("run " + Mlp() + " --accelerators cpu --kernels reference --check --inputs " + inputs.dir());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("non-finite outputs: 'probs' holds 10 NaN and 0 Inf (some input was not finite)"));
  const Result clean = Tessera("run " + Mlp() + " --accelerators cpu --json");
  EXPECT_THAT(clean.output,
              HasSubstr("\"nonfinite\":{\"checked\":true,\"inputs_finite\":true,\"from_finite_inputs\":false,"
                        "\"outputs\":[]}"));
}

}  // namespace
}  // namespace tessera
