// The tessera binary as users and scripts see it: exit codes, clear errors
// for malformed model files, and the JSON that scripts parse.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "framework/core/base/json_reader.h"
#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "framework/core/io/tensor_proto.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> SmallModelBytes() {
  ModelBuilder b("cli");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t w = b.Constant<float>("w", {4, 3}, std::vector<float>(12, 0.5f));
  b.Output(b.Op(TSR_OP_SIGMOID, {b.Op(TSR_OP_FULLY_CONNECTED, {x, w})}));
  return *SerializeModel(*std::move(b).Build());
}

TEST(Cli, PluginsJsonListsTheCpuPlugin) {
  Result r = Tessera("plugins --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"vendor\":\"cpu\""));
  EXPECT_THAT(r.output, HasSubstr("\"compilers\":["));
  EXPECT_THAT(r.output, HasSubstr("\"skipped\":["));
}

// x [2,3] into the small model; its output by the formula: every w is
// 0.5, so y[i][j] = sigmoid(0.5 * (x[i][0] + x[i][1] + x[i][2])).
std::string WriteSmallModelInputs(const std::string& dir) {
  const std::vector<float> x = {1, 2, 3, -1, 0, -2};
  HostTensor t{"x", TSR_DTYPE_F32, {2, 3}, std::vector<uint8_t>(x.size() * 4)};
  std::memcpy(t.data.data(), x.data(), t.data.size());
  EXPECT_TRUE(WriteTensorSet({t}, dir, "input").ok());
  return dir;
}

std::vector<double> SmallModelExpected() {
  std::vector<double> y;
  for (double sum : {6.0, -3.0})
    for (int j = 0; j < 4; ++j) y.push_back(1 / (1 + std::exp(-0.5 * sum)));
  return y;
}

// The run's JSON as data: every partition ran on `vendor`, and output 0
// holds `want` within `tolerance`.
void ExpectRunOutputs(const std::string& json, const std::string& vendor, const std::vector<double>& want,
                      double tolerance) {
  absl::StatusOr<JsonValue> run = ParseJson(json);
  ASSERT_TRUE(run.ok()) << run.status() << "\n" << json;
  const JsonValue* partitions = run->Find("partitions");
  ASSERT_NE(partitions, nullptr);
  ASSERT_FALSE(partitions->items.empty());
  for (const JsonValue& p : partitions->items) {
    ASSERT_NE(p.Find("vendor"), nullptr);
    EXPECT_EQ(p.Find("vendor")->string, vendor);
  }
  const JsonValue* outputs = run->Find("outputs");
  ASSERT_NE(outputs, nullptr);
  ASSERT_EQ(outputs->items.size(), 1u);
  const JsonValue* values = outputs->items[0].Find("values");
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(values->items.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(values->items[i].number, want[i], tolerance) << "element " << i;
}

TEST(Cli, RunsAGoodModelOnTheCpu) {
  TempFile f, inputs;
  f.Write(SmallModelBytes());
  const std::string dir = WriteSmallModelInputs(inputs.path() + ".d");
  Result r = Tessera("run " + f.path() + " --accelerators cpu --inputs " + dir + " --json");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ExpectRunOutputs(r.output, "cpu", SmallModelExpected(), 1e-6);
}

TEST(Cli, TruncatedModelsFailCleanlyWithExitCode1) {
  const std::vector<uint8_t> good = SmallModelBytes();
  TempFile f;
  // A spread of cut points: header, tables, data segment.
  for (size_t cut : {size_t{0}, size_t{3}, size_t{11}, good.size() / 4, good.size() / 2, good.size() - 1}) {
    f.Write(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<long>(cut)));
    Result r = Tessera("run " + f.path() + " --accelerators cpu --random");
    EXPECT_EQ(r.exit_code, 1) << "cut at " << cut << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("tessera: error:")) << "cut at " << cut;
  }
}

TEST(Cli, BitFlippedModelsNeverCrash) {
  const std::vector<uint8_t> good = SmallModelBytes();
  TempFile f;
  std::mt19937 rng(5);
  int failures = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<uint8_t> bad = good;
    bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    f.Write(bad);
    Result r = Tessera("run " + f.path() + " --accelerators cpu --random");
    // A flip inside weight bytes is still a valid model; anything else must
    // be reported, never crash.
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "exit " << r.exit_code << ": " << r.output;
    if (r.exit_code == 1) {
      ++failures;
      EXPECT_THAT(r.output, HasSubstr("tessera: error:"));
    }
  }
  EXPECT_GT(failures, 0);
}

TEST(Cli, MissingFileAndBadFlagsHaveDistinctExitCodes) {
  Result missing = Tessera("run /nonexistent/model.tsr --accelerators cpu");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("cannot open"));
  Result bad_flag = Tessera("run --frobnicate");
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_THAT(bad_flag.output, HasSubstr("unknown option '--frobnicate'"));
  Result unknown_acc = Tessera("demo --accelerators warp");
  EXPECT_EQ(unknown_acc.exit_code, 1);
  EXPECT_THAT(unknown_acc.output, HasSubstr("'warp'"));
}

TEST(Cli, CompileWritesAnAotModelThatRunsAndInspects) {
  TempFile model, compiled;
  model.Write(SmallModelBytes());
  Result c = Tessera("compile " + model.path() + " -o " + compiled.path() + " --accelerators cpu");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  Result i = Tessera("inspect " + compiled.path() + " --json");
  ASSERT_EQ(i.exit_code, 0) << i.output;
  EXPECT_THAT(i.output, HasSubstr("\"type\":\"DISPATCH\""));
  EXPECT_THAT(i.output, HasSubstr("\"verified\":\"structure\""));
  Result full = Tessera("inspect " + compiled.path() + " --json --verify full");
  ASSERT_EQ(full.exit_code, 0) << full.output;
  EXPECT_THAT(full.output, HasSubstr("\"verified\":\"full\""));
  TempFile inputs;
  const std::string dir = WriteSmallModelInputs(inputs.path() + ".d");
  // Both levels run: at structure the dispatch library checks the blob's
  // CRC itself, at full the host did and tells it so.
  for (const char* verify : {"structure", "full"}) {
    Result r = Tessera("run " + compiled.path() + " --inputs " + dir + " --json --verify " + verify);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("\"precompiled\":true"));
    ExpectRunOutputs(r.output, "cpu", SmallModelExpected(), 1e-6);
  }
  std::filesystem::remove_all(dir);
  Result jit = Tessera("compile " + model.path() + " -o " + compiled.path() + " --mode jit");
  EXPECT_EQ(jit.exit_code, 1);
  EXPECT_THAT(jit.output, HasSubstr("never serialized"));
}

// Running a compiled model opens dispatch libraries only: a compiler
// library that aborts as soon as it is loaded, in a named plugin directory,
// does not affect `run` or `bench` of a .tsr. (Compiling would load it.)
TEST(Cli, ACompiledModelRunsBesideACompilerThatCrashesOnLoad) {
  TempFile model, compiled;
  model.Write(SmallModelBytes());
  Result c = Tessera("compile " + model.path() + " -o " + compiled.path() + " --accelerators cpu");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  const std::string crashing = std::string(dir ? dir : ".") + "/test_plugins/crashing_compiler";
  Result r = Tessera("run " + compiled.path() + " --random --json --plugin-dir " + crashing);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"precompiled\":true"));
  Result b = Tessera("bench " + compiled.path() + " --reps 3 --warmup 1 --json --plugin-dir " + crashing);
  EXPECT_EQ(b.exit_code, 0) << b.output;
}

// A compiler that aborts in its ELF constructor cannot be survived
// in-process (dlopen runs it first): `plugins` dies of it. `plugins --probe`
// loads every library in a child first and reports that one as crashed.
TEST(Cli, PluginsProbeReportsALibraryThatCrashesOnLoad) {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  const std::string crashing = std::string(dir ? dir : ".") + "/test_plugins/crashing_compiler";
  Result unprobed = Tessera("plugins --json --plugin-dir " + crashing);
  EXPECT_NE(unprobed.exit_code, 0) << "the crash is in-process without --probe: " << unprobed.output;
  Result probed = Tessera("plugins --json --probe --plugin-dir " + crashing);
  ASSERT_EQ(probed.exit_code, 0) << probed.output;
  EXPECT_THAT(probed.output, HasSubstr("libtessera_compiler_crashing.so"));
  EXPECT_THAT(probed.output, HasSubstr("crashed the process while loading (signal 6"));
  EXPECT_THAT(probed.output, HasSubstr("\"vendor\":\"cpu\""));  // the good ones still load
}

// `bench --concurrency N`: N threads over one compiled model, each with its
// own context; every output equals the single-threaded run's.
TEST(Cli, BenchConcurrencyReportsThroughputAndThatOutputsMatch) {
  TempFile model;
  model.Write(SmallModelBytes());
  Result b = Tessera("bench " + model.path() + " --accelerators cpu --reps 20 --warmup 2 --concurrency 4 --json");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_THAT(b.output, HasSubstr("\"concurrency\":4"));
  EXPECT_THAT(b.output, HasSubstr("\"outputs_match\":true"));
  EXPECT_THAT(b.output, HasSubstr("\"runs_per_second\":"));
  Result bad = Tessera("bench " + model.path() + " --concurrency 0");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

// Bad input gives a clear usage error (exit 2), never a crash: --seed is a
// uint32 (20 digits used to abort in std::stoul).
TEST(Cli, SeedOutOfRangeIsAUsageError) {
  TempFile model;
  model.Write(SmallModelBytes());
  for (const char* seed : {"99999999999999999999", "4294967296", "-1", "12abc"}) {
    Result r = Tessera("run " + model.path() + " --accelerators cpu --random --seed " + seed);
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("--seed must be an integer in [0, 4294967295]")) << seed;
    EXPECT_THAT(r.output, HasSubstr("usage: tessera run")) << seed;
  }
  Result max = Tessera("run " + model.path() + " --accelerators cpu --random --seed 4294967295");
  EXPECT_EQ(max.exit_code, 0) << max.output;
}

TEST(Cli, PluginsRejectsPositionals) {
  Result r = Tessera("plugins extra");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("plugins takes no positional arguments"));
  EXPECT_THAT(r.output, HasSubstr("usage: tessera plugins"));
}

// Bad values of the compile flags are usage errors (exit 2) in every command
// that takes them, like unknown flags.
TEST(Cli, BadCompileFlagValuesAreUsageErrors) {
  TempFile model, out;
  model.Write(SmallModelBytes());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--mode xyz", "--mode must be aot or jit"},
      {"--kernels slow", "--kernels must be reference or fast"},
      {"--option noequals", "--option wants KEY=VALUE"},
      {"--accelerators ,", "--accelerators is empty"},
      {"--soc no-such-soc", "unknown SoC 'no-such-soc'"},
  };
  const std::vector<std::string> commands = {"partition " + model.path(), "compile " + model.path() + " -o " + out.path(),
                                             "run " + model.path(), "bench " + model.path() + " --reps 1 --warmup 0",
                                             "demo", "onnx-test /nonexistent"};
  for (const std::string& command : commands) {
    for (const auto& [flag, message] : bad) {
      Result r = Tessera(command + " " + flag);
      EXPECT_EQ(r.exit_code, 2) << command << " " << flag << ": " << r.output;
      EXPECT_THAT(r.output, HasSubstr(message)) << command << " " << flag;
      EXPECT_THAT(r.output, HasSubstr("usage: tessera ")) << command << " " << flag;
    }
  }
}

TEST(Cli, TopLevelUsageListsEveryCommand) {
  Result help = Tessera("help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  for (const char* command : {"plugins", "inspect", "partition", "compile", "run", "demo", "bench", "import",
                              "onnx-test", "help"})
    EXPECT_THAT(help.output, HasSubstr(std::string("\n  ") + command + " ")) << command;
  for (const char* flag : {"--seed N", "--plugin-dir DIR", "--save-model FILE", "--warmup N", "--input-shape",
                           "--expect-pass", "--require-vendor NAME", "--kernels reference|fast", "--soc NAME|FILE", "--mode aot|jit"})
    EXPECT_THAT(help.output, HasSubstr(flag)) << flag;
  Result bare = Tessera("");
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_THAT(bare.output, HasSubstr("usage: tessera <command>"));
  Result unknown = Tessera("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("unknown command 'frobnicate'"));
}

TEST(Cli, InputsDirectoryWithTooFewFilesNamesTheModelInputs) {
  TempFile model;
  model.Write(SmallModelBytes());
  char dir[] = "/tmp/tessera_cli_test_inputs_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  Result r = Tessera("run " + model.path() + " --accelerators cpu --inputs " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has 0 input_K.pb file(s); the model takes 1 (x), matched by position"));
  ::rmdir(dir);
}

TEST(Cli, BenchSeedIsCheckedLikeRunSeed) {
  TempFile model;
  model.Write(SmallModelBytes());
  Result ok = Tessera("bench " + model.path() + " --accelerators cpu --reps 2 --warmup 0 --seed 7 --json");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("\"reps\":2"));
  Result big = Tessera("bench " + model.path() + " --accelerators cpu --reps 2 --seed 99999999999999999999");
  EXPECT_EQ(big.exit_code, 2) << big.output;
  EXPECT_THAT(big.output, HasSubstr("--seed must be an integer in [0, 4294967295]"));
  Result both = Tessera("bench " + model.path() + " --inputs /tmp --seed 3");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_THAT(both.output, HasSubstr("--inputs and --seed exclude each other"));
}

// An FP32 MLP (x f32 [2,8] -> FC+RELU -> FC -> y) and a calibration
// directory in the ONNX test layout: DIR/test_data_set_N/input_0.pb.
class QuantizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/tessera_cli_quantize_XXXXXX";
    ASSERT_NE(::mkdtemp(path), nullptr);
    dir_ = path;
    std::mt19937 rng(9);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    auto values = [&](size_t n) {
      std::vector<float> v(n);
      for (float& f : v) f = normal(rng);
      return v;
    };
    ModelBuilder b("mlp");
    const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
    const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w1", {16, 8}, values(128)),
                                                    b.Constant<float>("b1", {16}, values(16))});
    const int32_t r = b.Op(TSR_OP_RELU, {h});
    b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {r, b.Constant<float>("w2", {4, 16}, values(64))}, {}, {.name = "y"}));
    model_.Write(*SerializeModel(*std::move(b).Build()));
    for (int s = 0; s < 3; ++s) {
      HostTensor t{"x", TSR_DTYPE_F32, {2, 8}, std::vector<uint8_t>(64)};
      const std::vector<float> v = values(16);
      std::memcpy(t.data.data(), v.data(), 64);
      ASSERT_TRUE(WriteTensorSet({t}, calibration() + "/test_data_set_" + std::to_string(s), "input").ok());
    }
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string calibration() const { return dir_ + "/calibration"; }
  std::string out() const { return dir_ + "/mlp.int8.tsr"; }

  std::string dir_;
  TempFile model_;
};

TEST_F(QuantizeCli, CompilesAnInt8ModelForTheNpuThatRuns) {
  Result c = Tessera("compile " + model_.path() + " --quantize int8 --calibration " + calibration() + " -o " + out() +
                     " --accelerators npu,cpu --policy greedy --json");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, HasSubstr("\"quantization\":{\"scheme\":\"int8\",\"samples\":3,\"quantized_ops\":2,"
                                  "\"float_ops\":0,"));
  EXPECT_THAT(c.output, HasSubstr("\"outputs\":[{\"name\":\"y\",\"max_abs_error\":"));
  EXPECT_THAT(c.output, HasSubstr("\"vendor\":\"systolic_npu\""));
  Result r = Tessera("run " + out() + " --inputs " + calibration() + "/test_data_set_0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"precompiled\":true"));
  EXPECT_THAT(r.output, HasSubstr("\"outputs\":[{\"name\":\"y\",\"dtype\":\"f32\",\"shape\":[2,4]"));
  // The text report names the output and its SNR.
  Result text = Tessera("compile " + model_.path() + " --quantize int8 --calibration " + calibration() + " -o " +
                        out() + " --accelerators cpu");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("quantization: int8, 3 calibration samples"));
  EXPECT_THAT(text.output, HasSubstr("output 'y' vs fp32: max |err|"));
}

TEST_F(QuantizeCli, BadQuantizeFlagsAndCalibrationData) {
  const std::string base = "compile " + model_.path() + " -o " + out();
  Result no_calibration = Tessera(base + " --quantize int8");
  EXPECT_EQ(no_calibration.exit_code, 2) << no_calibration.output;
  EXPECT_THAT(no_calibration.output, HasSubstr("needs --calibration DIR"));
  Result fp16 = Tessera(base + " --quantize fp16 --calibration " + calibration());
  EXPECT_EQ(fp16.exit_code, 2) << fp16.output;
  EXPECT_THAT(fp16.output, HasSubstr("supports only int8"));
  Result lone = Tessera(base + " --calibration " + calibration());
  EXPECT_EQ(lone.exit_code, 2) << lone.output;

  std::filesystem::create_directories(dir_ + "/empty");
  Result empty = Tessera(base + " --quantize int8 --calibration " + dir_ + "/empty");
  EXPECT_EQ(empty.exit_code, 1) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("holds no samples"));

  HostTensor wrong{"x", TSR_DTYPE_F32, {2, 7}, std::vector<uint8_t>(56)};
  ASSERT_TRUE(WriteTensorSet({wrong}, dir_ + "/wrong", "input").ok());
  Result shape = Tessera(base + " --quantize int8 --calibration " + dir_ + "/wrong");
  EXPECT_EQ(shape.exit_code, 1) << shape.output;
  EXPECT_THAT(shape.output, HasSubstr("must be f32 [2,8], got f32 [2,7]"));

  ASSERT_EQ(Tessera(base + " --accelerators cpu").exit_code, 0);
  Result compiled = Tessera("compile " + out() + " -o " + dir_ + "/again.tsr --quantize int8 --calibration " +
                            calibration());
  EXPECT_EQ(compiled.exit_code, 1) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("already compiled"));
}

}  // namespace
}  // namespace tessera
