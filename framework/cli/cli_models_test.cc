// The NPU end to end through the CLI, as the user runs it: an MLP
// and a small CNN saved by `tessera demo --save-model`, run with
// `tessera run MODEL --accelerators npu,cpu --soc ref-phone --precision
// allow-fp16`; the NPU takes
// the layers, reports its metrics, and the outputs agree with the cpu
// within the NPU's declared FP16 tolerance.
#include <filesystem>
#include <string>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "framework/core/graph/host_tensor.h"
#include "gtest/gtest.h"
#include "framework/core/io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/tessera_cli_models_XXXXXX";
    if (::mkdtemp(path) != nullptr) path_ = path;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Largest |a - b| / (atol + rtol |b|) over all elements: <= 1 means within.
double WorstRatio(const HostTensor& a, const HostTensor& b, double rtol, double atol) {
  EXPECT_EQ(a.dtype, TSR_DTYPE_F32);
  EXPECT_EQ(a.shape, b.shape);
  const size_t n = std::min(a.data.size(), b.data.size()) / 4;
  const float* x = reinterpret_cast<const float*>(a.data.data());
  const float* y = reinterpret_cast<const float*>(b.data.data());
  double worst = 0;
  for (size_t i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(static_cast<double>(x[i]) - y[i]) / (atol + rtol * std::abs(y[i])));
  return worst;
}

void RunsOnTheNpuAndAgreesWithTheCpu(const std::string& model_name, const std::string& npu_ops) {
  TempDir dir;
  const std::string model = dir / (model_name + ".tsr");
  const Result saved = Tessera("demo --model " + model_name + " --save-model " + model + " --accelerators npu,cpu");
  ASSERT_EQ(saved.exit_code, 0) << saved.output;
  EXPECT_THAT(saved.output, HasSubstr("result: outputs agree with the cpu reference"));

  // FP16 allowed: the NPU's matrix unit computes in FP16, which --precision
  // fp32 (the default) keeps it from; the run's inputs prove the ranges.
  const Result npu = Tessera("run " + model +
                             " --accelerators npu,cpu --policy greedy --soc ref-phone --random --seed 3 "
                             "--precision allow-fp16 --json --outputs " +
                             (dir / "npu"));
  ASSERT_EQ(npu.exit_code, 0) << npu.output;
  EXPECT_THAT(npu.output, HasSubstr("\"vendor\":\"systolic_npu\""));
  for (const char* metric :
       {"cycles_total", "cycles_compute", "cycles_dma_stall", "macs", "utilization", "sram_read_bytes",
        "sram_write_bytes", "dram_read_bytes", "dram_write_bytes", "dram_bytes_compulsory", "time_us"})
    EXPECT_THAT(npu.output, HasSubstr(std::string("\"") + metric + "\"")) << metric;
  EXPECT_THAT(npu.output, HasSubstr("\"precision\":\"fp16\""));

  const Result cpu = Tessera("run " + model + " --accelerators cpu --random --seed 3 --outputs " + (dir / "cpu"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;

  // The partition plan: the layers the issue names run on the NPU.
  const Result plan = Tessera("partition " + model + " --accelerators npu,cpu --policy greedy --soc ref-phone --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_THAT(plan.output, HasSubstr(npu_ops));

  absl::StatusOr<std::vector<HostTensor>> a = ReadTensorSet(dir / "npu", "output");
  absl::StatusOr<std::vector<HostTensor>> b = ReadTensorSet(dir / "cpu", "output");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->size(), 1u);
  ASSERT_EQ(b->size(), 1u);
  // Several FP16 layers in a row compound the per-layer declared bound
  // (2^-9 relative), so allow it four times over.
  EXPECT_LE(WorstRatio((*a)[0], (*b)[0], 4.0 / 512, 4.0 / 512), 1.0);
}

TEST(CliModels, MlpRunsOnTheNpu) { RunsOnTheNpuAndAgreesWithTheCpu("mlp", "FULLY_CONNECTED"); }

TEST(CliModels, SmallCnnRunsOnTheNpu) { RunsOnTheNpuAndAgreesWithTheCpu("cnn", "CONV_2D"); }

TEST(CliModels, UnknownDemoModelIsAUsageError) {
  const Result r = Tessera("demo --model resnet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output,
              HasSubstr("unknown demo model 'resnet' (mlp-wide, attention, mlp, cnn, frag-chain, frag-gated)"));
}

}  // namespace
}  // namespace tessera
