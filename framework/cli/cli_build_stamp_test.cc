// The build stamp through the `tessera` binary: `compile` writes it,
// `inspect` shows it, `run --json` reports each blob's compatibility verdict;
// a stamp naming another build warns and runs, a blob of an unknown body
// format is refused with a message.
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "tessera/bytecode.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

struct CliBuildStamp : ::testing::Test {
  void SetUp() override {
    const std::string tag = std::to_string(getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    work = fs::temp_directory_path() / ("cli_stamp_" + tag);
    fs::remove_all(work);
    fs::create_directories(work);
    source = (work / "mlp.tsr").string();
    compiled = (work / "mlp.cpu.tsr").string();
    ASSERT_EQ(Tessera("demo --model mlp --accelerators cpu --save-model " + source).exit_code, 0);
    Result c = Tessera("compile " + source + " -o " + compiled + " --accelerators cpu --soc ref-phone");
    ASSERT_EQ(c.exit_code, 0) << c.output;
  }
  void TearDown() override { fs::remove_all(work); }
  // The compiled model, edited by `edit` and written to `path`.
  template <typename Edit>
  void Rewrite(const std::string& path, Edit edit) {
    absl::StatusOr<Graph> g = LoadModelFile(compiled);
    ASSERT_TRUE(g.ok()) << g.status();
    edit(*g);
    ASSERT_TRUE(WriteModelFile(*g, path).ok());
  }
  fs::path work;
  std::string source, compiled;
};

TEST_F(CliBuildStamp, InspectShowsTheStampAndRunReportsTheVerdict) {
  Result text = Tessera("inspect " + compiled);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("build stamp: tessera "));
  EXPECT_THAT(text.output, HasSubstr("SoC ref-phone (description sha256 "));
  EXPECT_THAT(text.output, HasSubstr("vendor cpu: plugin "));
  Result json = Tessera("inspect " + compiled + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"build_stamp\":{\"sdk_version\":"));
  EXPECT_THAT(json.output, HasSubstr("\"soc\":\"ref-phone\""));
  EXPECT_THAT(json.output, HasSubstr("\"vendors\":[{\"vendor\":\"cpu\""));
  EXPECT_THAT(json.output, HasSubstr("\"compatibility\":\"vendor=cpu;build="));
  Result unstamped = Tessera("inspect " + source + " --json");
  EXPECT_THAT(unstamped.output, HasSubstr("\"build_stamp\":null"));
  Result run = Tessera("run " + compiled + " --random --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("\"compatibility\":[{\"vendor\":\"cpu\",\"soc\":\"ref-phone\",\"verdict\":\"optimal\","
                                    "\"stamped\":true,\"message\":\"\"}]"));
  EXPECT_THAT(run.output, Not(HasSubstr("warning")));
}

TEST_F(CliBuildStamp, AStampNamingAnotherBuildWarnsOnceAndRuns) {
  const std::string other = (work / "other_build.tsr").string();
  Rewrite(other, [](Graph& g) {
    for (VendorBuildStamp& v : g.build_stamp->vendors) {
      const std::string own = ";build=" + v.build_id + ";";
      v.compatibility.replace(v.compatibility.find(own), own.size(), ";build=0.0.1+git.0000000.Debug;");
      v.build_id = "0.0.1+git.0000000.Debug";
    }
  });
  const std::string inputs = (work / "in").string();
  const std::string out_a = (work / "out_a").string(), out_b = (work / "out_b").string();
  ASSERT_EQ(Tessera("run " + compiled + " --random --seed 7 --outputs " + out_a).exit_code, 0);
  Result run = Tessera("run " + other + " --random --seed 7 --json --outputs " + out_b);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("tessera: warning: the cpu bytecode (SoC 'ref-phone') runs, but libtessera_dispatch_cpu.so"));
  EXPECT_THAT(run.output, HasSubstr("it was compiled by build 0.0.1+git.0000000.Debug"));
  EXPECT_THAT(run.output, HasSubstr("\"verdict\":\"prefer_recompile\""));
  // One warning line, and the same outputs as the model with its own stamp.
  const std::string warning = "tessera: warning:";
  EXPECT_EQ(run.output.find(warning), run.output.rfind(warning));
  const std::string a = ReadFile(out_a + "/output_0.pb"), b = ReadFile(out_b + "/output_0.pb");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

TEST_F(CliBuildStamp, ABlobOfAnUnknownBodyFormatIsRefused) {
  const std::string future = (work / "future_format.tsr").string();
  Rewrite(future, [](Graph& g) {
    std::vector<uint8_t> bytes(g.bytecodes[0].bytes.begin(), g.bytecodes[0].bytes.end());
    tsr_bytecode_header h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    h.vendor_format_version = 99;
    std::memcpy(bytes.data(), &h, sizeof(h));
    h.checksum = tsr_bytecode_compute_checksum(bytes.data(), bytes.size());
    std::memcpy(bytes.data(), &h, sizeof(h));
    g.bytecodes[0].bytes = g.AdoptBytes(std::move(bytes));
  });
  Result run = Tessera("run " + future + " --random");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("the model's cpu bytecode, compiled for SoC 'ref-phone', is unsupported by "
                                    "libtessera_dispatch_cpu.so"));
  EXPECT_THAT(run.output, HasSubstr("cpu body format 99"));
}

}  // namespace
}  // namespace tessera
