// Post-training INT8 quantization end to end, as `tessera compile
// --quantize int8 --calibration DIR` runs it: read the calibration samples,
// fuse activations, calibrate on the reference kernels, rewrite to INT8;
// then, once the caller has compiled the result, measure its accuracy
// against the FP32 model on the same samples through the normal ModelExecutor.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_POST_TRAINING_QUANTIZATION_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_POST_TRAINING_QUANTIZATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compiled_graph.h"
#include "framework/compiler/quantize/accuracy_report.h"
#include "framework/compiler/quantize/calibration.h"
#include "framework/core/graph/graph.h"

namespace tessera::quantize {

struct PtqModel {
  Graph graph;  // INT8, uncompiled, FP32 interface
  std::vector<CalibrationSample> samples;
  std::vector<std::vector<HostTensor>> fp32_outputs;  // per sample, reference kernels
  QuantizationReport report;                          // outputs[] filled by MeasureAccuracy
};

// `fp32` must be uncompiled; its f32 ops are quantized as quantize_rewrite.h
// describes. Calibration errors name the offending sample directory.
absl::StatusOr<PtqModel> QuantizeInt8(const Graph& fp32, const std::string& calibration_dir);
absl::StatusOr<PtqModel> QuantizeInt8(const Graph& fp32, std::vector<CalibrationSample> samples);

// Runs `compiled` (the compiled PtqModel::graph) on every sample and fills
// model.report.outputs with the error against the FP32 outputs.
absl::Status MeasureAccuracy(const CompiledGraph& compiled, const PluginRegistry& registry,
                             const RuntimeOptions& options, PtqModel& model);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_POST_TRAINING_QUANTIZATION_H_
