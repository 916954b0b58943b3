// Post-training calibration: read representative inputs, run the FP32
// graph on the reference kernels for each, and record every float tensor's
// observed range over all samples.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_CALIBRATION_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_CALIBRATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::quantize {

// One set of graph inputs, in graph input order.
struct CalibrationSample {
  std::string origin;  // the directory it was read from
  std::vector<HostTensor> inputs;
};

// The ONNX test layout `tessera run --inputs` reads: either DIR/input_K.pb
// (one sample) or DIR/<sub>/input_K.pb for every sub-directory that holds
// input files (one sample each, sorted by name, e.g. test_data_set_N).
// Every sample must match the graph's inputs in count, dtype and shape; an
// empty or missing directory is an error.
absl::StatusOr<std::vector<CalibrationSample>> ReadCalibrationSamples(const std::string& dir, const Graph& graph);

// Observed range of one f32 tensor; `seen` is false for tensors never
// computed or not f32 (constants are not observed: their data is known).
struct TensorRange {
  float min = 0;
  float max = 0;
  bool seen = false;
  bool finite = true;  // false once a NaN or ±inf was seen
};

struct Calibration {
  std::vector<TensorRange> ranges;                    // per tensor of the graph
  std::vector<std::vector<HostTensor>> fp32_outputs;  // per sample: graph outputs
};

// Runs `graph` on every sample with the reference kernels, recording the
// min/max of every non-constant f32 tensor (inputs and op outputs).
absl::StatusOr<Calibration> Calibrate(const Graph& graph, const std::vector<CalibrationSample>& samples);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_CALIBRATION_H_
