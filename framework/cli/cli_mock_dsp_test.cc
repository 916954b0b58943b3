// The mock DSP end to end, through the built `tessera` binary as users run
// it: discovery and the `dsp` alias, the attention demo and ONNX node
// tests against independent references, AOT beside a JIT-only vendor, buffer
// types and conversions, and what the runtime's resilience policy makes of
// every fault-injection option (docs/resilience.md): correct output,
// retried or from the partition's cpu plan and said so, or a clear error
// with exit code 1; never a crash, never a wrong output.
// Drives the CLI only; the plugin libraries themselves see api/ and kit.
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "testing/cli_test_util.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNodeDir[] = "/usr/share/libonnx-testdata/data/node/";

// scripts/dev.sh installs libonnx-testdata; without it the ONNX cases skip.
#define REQUIRE_ONNX_TESTDATA() \
  if (!std::filesystem::exists(kNodeDir)) GTEST_SKIP() << kNodeDir << " missing (apt-get install libonnx-testdata)"

// The attention block of `tessera demo`, saved once (cpu-only compile, so
// the file holds the uncompiled FP32 model).
class MockDspCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new TempFile();
    Result r = Tessera("demo --model attention --save-model " + model_->path() + " --accelerators cpu");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete model_;
    model_ = nullptr;
  }
  // One JIT run of the attention block on dsp,cpu with `extra` flags.
  static Result RunJit(const std::string& extra) {
    return Tessera("run " + model_->path() + " --accelerators dsp,cpu --policy greedy --mode jit --random --seed 3 " +
                   extra);
  }
  // The first line of the printed output values (stable across runs).
  static std::string Values(const std::string& output) {
    const size_t at = output.find("output 'o_proj'");
    if (at == std::string::npos) return "";
    const size_t line = output.find('\n', at);
    return output.substr(line + 1, output.find('\n', line + 1) - line - 1);
  }
  static TempFile* model_;
};
TempFile* MockDspCli::model_ = nullptr;

TEST_F(MockDspCli, IsDiscoveredInTheBundledDirectoryWithJitOnly) {
  Result r = Tessera("plugins --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"vendor\":\"mock_dsp\",\"path\":"));
  // It negotiates the host's ABI version (the header it was built with).
  const std::string abi = std::to_string(TSR_ABI_VERSION_MAJOR) + "." + std::to_string(TSR_ABI_VERSION_MINOR);
  EXPECT_THAT(r.output, HasSubstr("libtessera_compiler_mock_dsp.so\",\"abi_version\":\"" + abi +
                                  "\",\"plugin_version\":\"0.1.0\",\"modes\":\"jit\""));
  EXPECT_THAT(r.output, HasSubstr("libtessera_dispatch_mock_dsp.so"));
}

TEST_F(MockDspCli, AttentionDemoAgreesWithTheCpuReferenceThroughTheAlias) {
  for (const char* list : {"dsp,cpu", "npu,dsp,cpu"}) {
    Result r = Tessera(std::string("demo --model attention --json --policy greedy --accelerators ") + list);
    ASSERT_EQ(r.exit_code, 0) << list << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("\"ok\":true")) << list;
    // The AOT pass (through a .tsr file) has DSP partitions too, compiled
    // JIT when the file is loaded.
    EXPECT_THAT(r.output, testing::ContainsRegex("\"vendor\":\"mock_dsp\",[^}]*\"mode\":\"jit\"")) << list;
  }
  // The text shows the three-vendor plan of the AOT pass: NPU bytecode,
  // DSP partitions marked (jit), cuts, conversions and modelled latency
  // against the cpu only.
  Result t = Tessera("demo --model attention --policy greedy --accelerators npu,dsp,cpu");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const size_t aot = t.output.find("mode aot, SoC ref-phone");
  ASSERT_NE(aot, std::string::npos) << t.output;
  const std::string plan = t.output.substr(aot);
  EXPECT_THAT(plan, HasSubstr("accelerators (priority order): systolic_npu, mock_dsp, cpu"));
  EXPECT_THAT(plan, HasSubstr("   systolic_npu "));
  EXPECT_THAT(plan, HasSubstr("[SELECT SOFTMAX]  (jit)"));
  EXPECT_THAT(plan, HasSubstr("baselines: cpu only"));
  EXPECT_THAT(plan, HasSubstr("conversion '"));
  EXPECT_THAT(t.output, HasSubstr("result: outputs agree with the cpu reference"));
}

TEST_F(MockDspCli, ReportsModelledDeviceTimeInTheInvocationMetrics) {
  Result r = RunJit("");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Partition #3 is MUL, SELECT, SOFTMAX on the scores, 4 heads x 16 x 16
  // f32 = 1024 elements = 16 vectors of 64 lanes on ref-phone:
  // 16 + 16 + 16 * (16 + 3) = 336 cycles, at 1200 MHz 0.28 us.
  EXPECT_THAT(r.output, HasSubstr("mock_dsp         3 ops"));
  EXPECT_THAT(r.output, HasSubstr("cycles=336 cycles time_us=0.28 us"));
}

// A JIT-only vendor in an AOT compile. `compile` cannot write a
// JIT handle, so the DSP's ops stay in the file as ops and say so; `run`
// JIT-compiles them at load (cli_aot_jit_mix_test.cc checks values and
// modes as data). In-process AOT (onnx-test) JIT-compiles them directly.
TEST_F(MockDspCli, AotCompileOnAJitOnlyVendorLeavesItsOpsForRunToJitCompile) {
  TempFile out;
  Result c =
      Tessera("compile " + model_->path() + " -o " + out.path() + " --accelerators dsp,cpu --mode aot --policy greedy");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, HasSubstr("left for JIT: mock_dsp ops "));
  EXPECT_THAT(c.output, Not(HasSubstr("does not support aot compilation")));
  Result r = Tessera("run " + out.path() + " --random --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("(precompiled)")));  // its leftover ops were compiled here
  EXPECT_THAT(r.output, HasSubstr("mock_dsp"));
  REQUIRE_ONNX_TESTDATA();
  Result t = Tessera(std::string("onnx-test ") + kNodeDir +
                     "test_sin --accelerators dsp,cpu --policy greedy --require-vendor mock_dsp");
  EXPECT_EQ(t.exit_code, 0) << t.output;
  EXPECT_THAT(t.output, Not(HasSubstr("does not support aot compilation")));
}

// ONNX's own reference outputs, one case per op family the DSP claims.
TEST_F(MockDspCli, OnnxNodeTestsPassOnTheDsp) {
  REQUIRE_ONNX_TESTDATA();
  std::string cases;
  for (const char* c : {"test_sin",
                        "test_cos",
                        "test_exp",
                        "test_log",
                        "test_tanh",
                        "test_sigmoid",
                        "test_sqrt",
                        "test_erf",
                        "test_pow",
                        "test_reciprocal",
                        "test_softmax_axis_1",
                        "test_softmax_large_number",
                        "test_layer_normalization_4d_axis_negative_2",
                        "test_layer_normalization_3d_axis1_epsilon",
                        "test_reduce_sum_keepdims_random",
                        "test_reduce_mean_do_not_keepdims_random",
                        "test_reduce_max_negative_axes_keepdims_random",
                        "test_where_example",
                        "test_less_bcast",
                        "test_greater_equal",
                        "test_clip_splitbounds",
                        "test_add_bcast",
                        "test_div",
                        "test_max_float16",
                        "test_min_float16",
                        "test_expand_dim_changed",
                        "test_logsoftmax_axis_0"})
    cases += std::string(" ") + kNodeDir + c;
  Result r = Tessera("onnx-test" + cases +
                     " --accelerators dsp,cpu --policy greedy --mode jit --require-vendor mock_dsp --expect-pass");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("passed 27, failed 0, skipped 0"));
}

TEST_F(MockDspCli, RefusalsCarryAReasonAndADetail) {
  REQUIRE_ONNX_TESTDATA();
  Result r =
      Tessera(std::string("onnx-test ") + kNodeDir + "test_equal " + kNodeDir +
              "test_maxpool_2d_default --accelerators dsp,cpu --policy greedy --mode jit --require-vendor mock_dsp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("unsupported_dtype: mock_dsp: EQUAL on i32 (the DSP computes f32 and f16 only)"));
  EXPECT_THAT(r.output, HasSubstr("unsupported_op: mock_dsp: MAX_POOL_2D is not implemented by the DSP vector unit"));
}

TEST_F(MockDspCli, OwnBufferTypeIsConvertedAtEveryEdge) {
  Result r = RunJit("");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The vendor type by the DSP library's own name (get_buffer_type_info).
  EXPECT_THAT(r.output, HasSubstr("conversion 'q_proj' host -> dsp_tcm  4096 bytes for mock_dsp"));
  EXPECT_THAT(r.output, HasSubstr("conversion 'probs' dsp_tcm -> host  4096 bytes for cpu"));
}

// The TCM pads rows to 128 bytes (docs/mock_dsp.md): probs [4, 16, 16]
// f32 has 64-byte rows, so leaving the DSP relays them into dense host
// memory; q_proj [16, 64] has 256-byte rows, whole lines, so it is only
// copied. The text, --json and --trace all say which.
TEST_F(MockDspCli, ConversionsSayWhenTheyChangeTheLayout) {
  TempFile trace;
  Result r = RunJit("--json --trace " + trace.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("{\"tensor\":\"probs\",\"from\":\"dsp_tcm\",\"to\":\"host\",\"bytes\":4096,"));
  EXPECT_THAT(r.output, testing::ContainsRegex("\"tensor\":\"probs\",[^}]*\"kind\":\"copy\\+layout\",\"from_layout\":"
                                               "\"strided\\(row 128 B\\)\",\"to_layout\":\"dense\",\"via\":\"host\"}"));
  EXPECT_THAT(r.output, testing::ContainsRegex("\"tensor\":\"q_proj\",[^}]*\"kind\":\"copy\",\"from_layout\":\"dense\","
                                               "\"to_layout\":\"dense\""));
  EXPECT_THAT(ReadFile(trace.path()), HasSubstr("\"kind\":\"copy+layout\",\"from_layout\":\"strided(row 128 B)\""));
  Result text = RunJit("");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, testing::ContainsRegex("conversion 'probs' dsp_tcm -> host  4096 bytes for cpu  [0-9.]+ us  "
                                                  "copy\\+layout strided\\(row 128 B\\) -> dense\n"));
}

TEST_F(MockDspCli, AcceptsDmabufWhereTheSocSaysSo) {
  // ref-server has [mock_dsp] accepts_dmabuf = 1: the DSP's outputs live in
  // shared dma-buf memory, so the plan converts dmabuf (not the TCM).
  Result r = RunJit("--soc ref-server");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("conversion 'probs' dmabuf -> host  4096 bytes for cpu"));
  EXPECT_THAT(r.output, Not(HasSubstr("dsp_tcm")));
  // Same numbers either way: buffer types move bytes, never change them.
  EXPECT_EQ(Values(r.output), Values(RunJit("").output));
}

TEST_F(MockDspCli, NoDspSectionMeansEveryOpIsRefusedWithTheReason) {
  TempFile soc;
  soc.Write(std::vector<uint8_t>{'[', 's', 'o', 'c', ']', '\n', 'n', 'a', 'm', 'e', ' ', '=', ' ', 'x', '\n'});
  Result r = Tessera("partition " + model_->path() + " --accelerators dsp,cpu --policy greedy --mode jit --soc " +
                     soc.path() + ".soc");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // the .soc path does not exist: a usage error
  const std::string path = soc.path() + ".soc";
  std::rename(soc.path().c_str(), path.c_str());
  r = Tessera("partition " + model_->path() + " --accelerators dsp,cpu --policy greedy --mode jit --soc " + path);
  std::remove(path.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("-> cpu          mock_dsp: other"));
  EXPECT_THAT(r.output, HasSubstr("mock_dsp: mock_dsp: no usable DSP on this SoC: the SoC description has no "
                                  "[mock_dsp] section"));
}

// ---- Fault injection (docs/mock_dsp.md §Options) ----------------------------

TEST_F(MockDspCli, RefuseLoadFailsTheCompileClearly) {
  Result r = RunJit("--option mock_dsp.refuse_load=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tessera: error: mock_dsp compiler: create failed: mock_dsp: refusing to load"));
}

TEST_F(MockDspCli, FailCompileOpFallsBackToTheCpuWithTheSameOutput) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.fail_compile_op=SIN");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("compile failed: mock_dsp: compiling SIN (op id 2) failed (fault injection"));
  EXPECT_EQ(Values(r.output), clean);
  ASSERT_FALSE(clean.empty());
}

// Two DSP partitions (steps #1 and #3), so one run is two invokes.
TEST_F(MockDspCli, AFailedInvokeIsRetriedOnTheDsp) {
  const std::string clean = Values(RunJit("").output);
  ASSERT_FALSE(clean.empty());
  Result r = RunJit("--option mock_dsp.fail_invoke=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("retried: partition #1 (op id 40) mock_dsp -> mock_dsp after 2 attempts (transient): "
                        "mock_dsp dispatch: invoke (op id 40, entry 'mock_dsp_partition_0'): mock_dsp: invoke 1 "
                        "failed (fault injection"));
  EXPECT_EQ(Values(r.output), clean);
  // No retry, no fallback: the run's error, with the policy's verdict.
  Result off = RunJit("--option mock_dsp.fail_invoke=2 --max-retries 0 --no-fallback");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_THAT(off.output, HasSubstr("entry 'mock_dsp_partition_1'): mock_dsp: invoke 2 failed (fault injection: "
                                    "mock_dsp.fail_invoke=2) [transient, 1 attempt on mock_dsp; fallback is off]"));
  EXPECT_THAT(off.output, Not(HasSubstr("output 'o_proj'")));
}

TEST_F(MockDspCli, FailAfterRunsTheCpuPlansAndJsonSaysWhy) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.fail_after=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fallback: partition #3 (op id 42) mock_dsp -> cpu after 3 attempts (transient): "));
  EXPECT_EQ(Values(r.output), clean);
  Result j = RunJit("--option mock_dsp.fail_after=1 --json");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  EXPECT_THAT(j.output, HasSubstr("\"fallbacks\":[{\"partition\":3,\"op_id\":42,\"vendor\":\"mock_dsp\","
                                  "\"from\":\"mock_dsp\",\"to\":\"cpu\",\"failure\":\"transient\",\"reason\":"));
  EXPECT_THAT(j.output, HasSubstr("\"attempts\":3}]"));
  EXPECT_THAT(j.output, HasSubstr("\"cpu_plans\":2"));
}

TEST_F(MockDspCli, LatencyOnlyDelaysUnlessItOverrunsTheDeadline) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.latency_us=2000");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Values(r.output), clean);
  EXPECT_THAT(r.output, Not(HasSubstr("\n  fallback: ")));
  Result late = RunJit("--option mock_dsp.latency_us=3000 --deadline-ms 1 --max-retries 0");
  ASSERT_EQ(late.exit_code, 0) << late.output;
  EXPECT_THAT(late.output, HasSubstr("mock_dsp -> cpu after 1 attempt (deadline_exceeded): invoke (op id 40, entry "
                                     "'mock_dsp_partition_0') took "));
  EXPECT_EQ(Values(late.output), clean);
}

TEST_F(MockDspCli, CorruptResultsAreReplacedNotReturned) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.corrupt=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mock_dsp -> cpu after 1 attempt (corrupt): "));
  EXPECT_EQ(Values(r.output), clean);
  Result off = RunJit("--option mock_dsp.corrupt=1 --no-fallback");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_THAT(off.output, HasSubstr("mock_dsp: the result is corrupt (fault injection: mock_dsp.corrupt=1)"));
  EXPECT_THAT(off.output, Not(HasSubstr("output 'o_proj'")));
}

TEST_F(MockDspCli, ALostDeviceMovesToTheCpuPlansForEveryLaterRun) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.device_lost_after=1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("fallback: partition #3 (op id 42) mock_dsp -> cpu after 1 attempt (device_lost): "
                        "mock_dsp dispatch: invoke (op id 42, entry 'mock_dsp_partition_1'): mock_dsp: invoke: "
                        "the device is lost"));
  EXPECT_EQ(Values(r.output), clean);
  // bench: five more runs after the loss, every one equal to the first.
  Result b = Tessera("bench " + model_->path() +
                     " --accelerators dsp,cpu --policy greedy --mode jit --seed 3 "
                     "--reps 5 --warmup 0 --json --option mock_dsp.device_lost_after=1");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_THAT(b.output, HasSubstr("\"outputs_match\":true"));
  EXPECT_THAT(b.output, HasSubstr("\"fallbacks_in_profiled_run\":1"));
  EXPECT_THAT(b.output, HasSubstr("\"vendor\":\"cpu\",\"entry_point\":\"cpu plan of mock_dsp_partition_1\""));
}

TEST_F(MockDspCli, AHungInvokeIsAbandonedAtTheDeadlineAndRetried) {
  const std::string clean = Values(RunJit("").output);
  Result r = RunJit("--option mock_dsp.hang_invoke=1 --option mock_dsp.hang_ms=100 --deadline-ms 20");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("retried: partition #1 (op id 40) mock_dsp -> mock_dsp after 2 attempts "
                                  "(deadline_exceeded): "));
  EXPECT_THAT(r.output, HasSubstr("mock_dsp: invoke 1 hung for 100 ms"));
  EXPECT_THAT(r.output, HasSubstr("ms, over its 20 ms deadline"));
  EXPECT_EQ(Values(r.output), clean);
  Result off = RunJit("--option mock_dsp.hang_invoke=1 --option mock_dsp.hang_ms=50 --max-retries 0 --no-fallback");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_THAT(off.output, HasSubstr("mock_dsp: invoke 1 hung for 50 ms (fault injection: mock_dsp.hang_invoke=1)"));
  EXPECT_THAT(off.output, HasSubstr("[deadline_exceeded, 1 attempt on mock_dsp; fallback is off]"));
}

TEST_F(MockDspCli, ResilienceFlagsRefuseBadValues) {
  EXPECT_EQ(RunJit("--deadline-ms soon").exit_code, 2);
  EXPECT_EQ(RunJit("--max-retries -1").exit_code, 2);
}

TEST_F(MockDspCli, BadOptionsAreUsageErrorsOfThePlugin) {
  Result r = RunJit("--option mock_dsp.fail_invoke=soon");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("option 'mock_dsp.fail_invoke' has value 'soon'; expected an integer"));
  r = RunJit("--option mock_dsp.nope=1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown option 'mock_dsp.nope'"));
}

}  // namespace
}  // namespace tessera
