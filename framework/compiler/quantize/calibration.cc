#include "framework/compiler/quantize/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "framework/compiler/quantize/reference_interpreter.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/io/tensor_proto.h"
#include "tessera/common.h"

namespace tessera::quantize {
namespace fs = std::filesystem;

absl::StatusOr<std::vector<CalibrationSample>> ReadCalibrationSamples(const std::string& dir, const Graph& graph) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return absl::NotFoundError(absl::StrCat("calibration directory '", dir, "' does not exist or is not a directory"));
  std::vector<CalibrationSample> samples;
  ASSIGN_OR_RETURN(std::vector<HostTensor> top, ReadTensorSet(dir, "input"));
  if (!top.empty()) {
    samples.push_back({dir, std::move(top)});
  } else {
    std::vector<fs::path> subdirs;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
      if (e.is_directory(ec)) subdirs.push_back(e.path());
    if (ec) return absl::UnavailableError(absl::StrCat("cannot list '", dir, "': ", ec.message()));
    std::sort(subdirs.begin(), subdirs.end());
    for (const fs::path& sub : subdirs) {
      ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, ReadTensorSet(sub.string(), "input"));
      if (!inputs.empty()) samples.push_back({sub.string(), std::move(inputs)});
    }
  }
  if (samples.empty())
    return absl::InvalidArgumentError(absl::StrCat("calibration directory '", dir,
                                                   "' holds no samples: expected input_0.pb, ... in it or in its "
                                                   "sub-directories (ONNX test layout)"));
  for (const CalibrationSample& s : samples)
    RETURN_IF_ERROR(CheckInputsMatch(graph, s.inputs, absl::StrCat("calibration sample '", s.origin, "'")));
  return samples;
}

absl::StatusOr<Calibration> Calibrate(const Graph& graph, const std::vector<CalibrationSample>& samples) {
  Calibration c;
  c.ranges.resize(graph.tensors.size());
  auto observe = [&](int32_t t, const HostTensor& v) {
    if (v.dtype != TSR_DTYPE_F32 || graph.tensors[t].is_constant) return;
    TensorRange& r = c.ranges[t];
    const size_t n = v.data.size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) {
      float x;
      std::memcpy(&x, v.data.data() + i * sizeof(float), sizeof(float));
      if (!std::isfinite(x)) {
        r.finite = false;
        continue;
      }
      if (!r.seen) {
        r.min = r.max = x;
        r.seen = true;
        continue;
      }
      r.min = std::min(r.min, x);
      r.max = std::max(r.max, x);
    }
  };
  for (const CalibrationSample& s : samples) {
    absl::StatusOr<std::vector<HostTensor>> out = RunOnReferenceKernels(graph, s.inputs, observe);
    if (!out.ok())
      return absl::Status(out.status().code(),
                          absl::StrCat("calibration sample '", s.origin, "': ", out.status().message()));
    c.fp32_outputs.push_back(*std::move(out));
  }
  return c;
}

}  // namespace tessera::quantize
