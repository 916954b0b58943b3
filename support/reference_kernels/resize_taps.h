// RESIZE's per-axis geometry (docs/ops.md#resize): the attribute checks,
// which axes are resampled and in what order, and the taps (input indices
// and weights) of every output position along one axis. Shared by the
// reference kernel (resize.cc) and the cpu fast kernel
// (plugins/cpu/fast_kernels/resize_kernels.cc), so the coordinate-transform
// formulas exist once.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_RESIZE_TAPS_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_RESIZE_TAPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_util.h"

namespace tessera::cpu {

struct ResizeParams {
  int64_t mode, coord, nearest;
  double cubic_a;
  bool exclude_outside;
  double extrapolation;
  std::vector<float> scales;  // empty, or one per axis
  std::vector<float> roi;     // empty, or [starts, ends] (tf_crop_and_resize)
};

// One resampled axis: lengths, scale (SCALES[axis] or out/in), the
// resized length (scale·in with SCALES, else out) and the ROI pair.
struct ResizeAxis {
  size_t axis;
  int64_t in, out;
  double scale, resized, roi_start, roi_end;
};

struct AxisTaps {
  // index/weight[o * width + k]: input index (clamped) and weight of tap k
  // of output o; extrapolate[o]: output o lies outside the crop
  // (tf_crop_and_resize).
  int64_t width = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> extrapolate;
};

// The attributes, checked against the input and output shapes (an error
// names what is wrong; every axis is non-empty when this succeeds).
absl::StatusOr<ResizeParams> ParseResizeParams(int32_t op, const Attributes& attrs, const Shape& in, const Shape& out);

// The axes that are not the identity, in the order the reference resamples
// them: shrinking axes first, then growing ones, so that no intermediate
// is larger than the input or the output.
std::vector<ResizeAxis> ResampledAxes(const ResizeParams& p, const Shape& in, const Shape& out);

// The taps of one output position: at most 4 (cubic), 2 otherwise.
struct PositionTaps {
  int64_t width = 0;
  int64_t index[4] = {};  // clamped into [0, in)
  double weight[4] = {};
  bool extrapolate = false;  // outside the crop (tf_crop_and_resize)
};

// Taps of output position `o` of one axis. Constant memory: the fast
// kernels build their own per-axis tables from it at load without
// holding the reference's (32 bytes per position) beside them.
PositionTaps TapsAt(const ResizeParams& p, const ResizeAxis& a, int64_t o);

// Taps of every output position of one axis (`a.out` entries: the caller
// bounds it), as TapsAt gives them.
AxisTaps MakeAxisTaps(const ResizeParams& p, const ResizeAxis& a);

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_RESIZE_TAPS_H_
