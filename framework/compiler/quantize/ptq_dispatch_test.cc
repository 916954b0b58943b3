// The quantized models through the real plugins: compiled for the systolic
// NPU (+ cpu for what it refuses) and run by the ModelExecutor, the INT8 results
// must be bit-exact against the same quantized model on the cpu plugin's
// reference kernels; and the accuracy report of the compiled model.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/compiler/quantize/post_training_quantization.h"
#include "framework/compiler/quantize/reference_interpreter.h"
#include "framework/compiler/quantize/test_models.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::quantize {
namespace {

PluginRegistry Registry() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  PluginSearchOptions options;
  options.read_environment = false;
  options.bundled_directory = std::string(dir ? dir : ".") + "/lib";
  return PluginRegistry::Discover(options);
}

CompileOptions Options(std::vector<std::string> accelerators, bool reference_kernels) {
  CompileOptions o;
  o.accelerators = std::move(accelerators);
  o.partitioning.policy = PartitionPolicy::kGreedy;  // every claimed op on the NPU: what these tests check
  if (reference_kernels) o.plugin_options.emplace_back("cpu.kernels", "reference");
  return o;
}

// Every sample's outputs from `graph` compiled with `options`.
std::vector<std::vector<HostTensor>> RunCompiled(const Graph& graph, const std::vector<CalibrationSample>& samples,
                                                 const PluginRegistry& registry, const CompileOptions& options,
                                                 int* npu_ops = nullptr) {
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, registry, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  if (npu_ops != nullptr) {
    *npu_ops = 0;
    for (const Op& op : compiled->graph.ops)
      if (op.dispatch && op.dispatch->vendor == "systolic_npu")
        *npu_ops += static_cast<int>(op.dispatch->source_op_ids.size());
  }
  absl::StatusOr<std::unique_ptr<ModelExecutor>> exec =
      ModelExecutor::Create(compiled->graph, compiled->jit_slots, registry, {options.soc, options.plugin_options});
  EXPECT_TRUE(exec.ok()) << exec.status();
  if (!exec.ok()) return {};
  std::vector<std::vector<HostTensor>> all;
  for (const CalibrationSample& s : samples) {
    absl::StatusOr<std::vector<HostTensor>> out = (*exec)->Run(s.inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    all.push_back(*std::move(out));
  }
  return all;
}

void ExpectBitExact(const std::vector<std::vector<HostTensor>>& a, const std::vector<std::vector<HostTensor>>& b) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t s = 0; s < a.size(); ++s) {
    ASSERT_EQ(a[s].size(), b[s].size());
    for (size_t o = 0; o < a[s].size(); ++o) {
      EXPECT_EQ(a[s][o].name, b[s][o].name);
      EXPECT_EQ(a[s][o].data, b[s][o].data) << "sample " << s << " output " << a[s][o].name;
    }
  }
}

class PtqDispatch : public ::testing::TestWithParam<const char*> {
 protected:
  Graph Model() const {
    const std::string name = GetParam();
    if (name == "mlp") return testing::BuildMlp();
    if (name == "cnn") return testing::BuildCnn();
    return testing::BuildStandaloneActivations();
  }
};

TEST_P(PtqDispatch, NpuResultsAreBitExactAgainstTheCpuReferenceKernels) {
  const PluginRegistry registry = Registry();
  const Graph fp32 = Model();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, testing::RandomSamples(fp32, 6, 21));
  ASSERT_TRUE(q.ok()) << q.status();
  int npu_ops = 0;
  // The float ops left (SOFTMAX, ...) run on the cpu's reference kernels in
  // both runs; the NPU runs every INT8 op and the QUANTIZE / DEQUANTIZE at
  // the model's boundary, which must match the cpu's kernels bit for bit.
  const auto npu = RunCompiled(q->graph, q->samples, registry, Options({"npu", "cpu"}, true), &npu_ops);
  const auto cpu = RunCompiled(q->graph, q->samples, registry, Options({"cpu"}, true));
  int boundary_ops = 0;
  for (const Op& op : q->graph.ops) boundary_ops += op.type == TSR_OP_QUANTIZE || op.type == TSR_OP_DEQUANTIZE;
  EXPECT_GT(boundary_ops, 0);
  EXPECT_EQ(npu_ops, q->report.quantized_ops + boundary_ops)
      << "every quantized op (the cnn's RESHAPE too) and every QUANTIZE / DEQUANTIZE should run on "
         "the NPU";
  ExpectBitExact(npu, cpu);
  // ... and the in-process reference interpreter agrees with the cpu plugin.
  std::vector<std::vector<HostTensor>> interpreted;
  for (const CalibrationSample& s : q->samples) interpreted.push_back(*RunOnReferenceKernels(q->graph, s.inputs));
  ExpectBitExact(interpreted, cpu);
}

TEST_P(PtqDispatch, AccuracyReportOnNpuAndCpu) {
  const PluginRegistry registry = Registry();
  const Graph fp32 = Model();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, testing::RandomSamples(fp32, 16, 33));
  ASSERT_TRUE(q.ok()) << q.status();
  for (const std::vector<std::string>& accelerators :
       {std::vector<std::string>{"npu", "cpu"}, std::vector<std::string>{"cpu"}}) {
    const CompileOptions options = Options(accelerators, false);
    absl::StatusOr<CompiledGraph> compiled = CompileGraph(q->graph, registry, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    ASSERT_TRUE(MeasureAccuracy(*compiled, registry, {options.soc, options.plugin_options}, *q).ok());
    ASSERT_EQ(q->report.outputs.size(), fp32.outputs.size());
    for (const OutputAccuracy& o : q->report.outputs) {
      // The figures quoted in docs/quantization.md come from this line.
      std::cout << GetParam() << " on " << accelerators[0] << ": output '" << o.name << "' max |err| "
                << o.max_abs_error << ", SNR " << o.snr_db << " dB (calibration " << q->report.calibration_ms << " ms, "
                << q->report.samples << " samples)\n";
      EXPECT_GT(o.snr_db, 25.0) << o.name;
      EXPECT_GT(o.max_abs_error, 0.0) << "quantization should not be lossless";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PtqDispatch, ::testing::Values("mlp", "cnn", "standalone_activations"));

}  // namespace
}  // namespace tessera::quantize
