// The tessera binary as users and scripts see it: exit codes, clear errors
// for malformed model files, and the JSON that scripts parse.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "cli/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/model_builder.h"
#include "model/model_writer.h"
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

TEST(Cli, RunsAGoodModelOnTheCpu) {
  TempFile f;
  f.Write(SmallModelBytes());
  Result r = Tessera("run " + f.path() + " --accelerators cpu --random --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"outputs\":[{"));
  EXPECT_THAT(r.output, HasSubstr("\"vendor\":\"cpu\""));
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
  Result r = Tessera("run " + compiled.path() + " --random --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"precompiled\":true"));
  Result jit = Tessera("compile " + model.path() + " -o " + compiled.path() + " --mode jit");
  EXPECT_EQ(jit.exit_code, 1);
  EXPECT_THAT(jit.output, HasSubstr("never serialized"));
}

}  // namespace
}  // namespace tessera
