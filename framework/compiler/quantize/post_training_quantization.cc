#include "framework/compiler/quantize/post_training_quantization.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "framework/compiler/quantize/activation_fusion.h"
#include "framework/compiler/quantize/quantize_rewrite.h"
#include "framework/compiler/quantize/reference_interpreter.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_verifier.h"
#include "tessera/ops.h"

namespace tessera::quantize {

absl::StatusOr<PtqModel> QuantizeInt8(const Graph& fp32, const std::string& calibration_dir) {
  RETURN_IF_ERROR(VerifyGraph(fp32));
  ASSIGN_OR_RETURN(std::vector<CalibrationSample> samples, ReadCalibrationSamples(calibration_dir, fp32));
  return QuantizeInt8(fp32, std::move(samples));
}

absl::StatusOr<PtqModel> QuantizeInt8(const Graph& fp32, std::vector<CalibrationSample> samples) {
  if (samples.empty()) return absl::InvalidArgumentError("quantization needs at least one calibration sample");
  // The passes index tensors by the graph's own ids: refuse a malformed graph
  // here rather than read out of range (LoadModel has verified files already).
  RETURN_IF_ERROR(VerifyGraph(fp32));
  for (const Op& op : fp32.ops)
    if (op.type == TSR_OP_DISPATCH)
      return absl::InvalidArgumentError("the model is already compiled (DISPATCH ops): quantize the FP32 model");
  for (const CalibrationSample& s : samples)
    RETURN_IF_ERROR(CheckInputsMatch(fp32, s.inputs, absl::StrCat("calibration sample '", s.origin, "'")));
  const auto start = std::chrono::steady_clock::now();
  const FusionResult fused = FuseActivations(fp32);
  ASSIGN_OR_RETURN(Calibration calibration, Calibrate(fused.graph, samples));
  const auto end = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(QuantizedGraph quantized, QuantizeGraph(fused.graph, calibration.ranges));
  PtqModel m;
  m.graph = std::move(quantized.graph);
  m.samples = std::move(samples);
  m.fp32_outputs = std::move(calibration.fp32_outputs);
  m.report.samples = static_cast<int>(m.samples.size());
  m.report.quantized_ops = quantized.stats.quantized_ops;
  m.report.float_ops = quantized.stats.float_ops;
  m.report.fused_activations = fused.fused;
  m.report.calibration_ms = std::chrono::duration<double, std::milli>(end - start).count();
  return m;
}

absl::Status MeasureAccuracy(const CompiledGraph& compiled, const PluginRegistry& registry,
                             const RuntimeOptions& options, PtqModel& model) {
  ASSIGN_OR_RETURN(std::unique_ptr<ModelExecutor> executor,
                   ModelExecutor::Create(compiled.graph, compiled.jit_slots, registry, options));
  AccuracyAccumulator accuracy;
  for (size_t i = 0; i < model.samples.size(); ++i) {
    absl::StatusOr<std::vector<HostTensor>> out = executor->Run(model.samples[i].inputs);
    if (!out.ok())
      return absl::Status(out.status().code(), absl::StrCat("running the quantized model on sample '",
                                                            model.samples[i].origin, "': ", out.status().message()));
    RETURN_IF_ERROR(accuracy.Add(model.fp32_outputs[i], *out));
  }
  model.report.outputs = accuracy.Result();
  return absl::OkStatus();
}

}  // namespace tessera::quantize
