// Per axis, output coordinate x maps to input coordinate x' by the
// coordinate transform, with scale = SCALES[axis] when given (then the
// "resized length" is scale·in, a real number, as in ONNX's reference) or
// out/in. Taps around x' are clamped to the edge (ONNX pads by edge);
// EXCLUDE_OUTSIDE drops taps outside the axis and renormalizes. f64.
#include "support/reference_kernels/resize_taps.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tessera::cpu {
namespace {

// Input coordinate of output `x`; *outside: beyond the crop.
double SourceCoordinate(const ResizeParams& p, const ResizeAxis& a, double x, bool* outside) {
  *outside = false;
  const double scale = a.scale, resized = a.resized;
  const int64_t in = a.in;
  switch (p.coord) {
    case TSR_COORD_ASYMMETRIC:
      return x / scale;
    case TSR_COORD_PYTORCH_HALF_PIXEL:
      return a.out == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case TSR_COORD_TF_HALF_PIXEL_FOR_NN:
      return (x + 0.5) / scale;
    case TSR_COORD_ALIGN_CORNERS:
      return resized == 1 ? 0.0 : x * (in - 1) / (resized - 1);
    case TSR_COORD_TF_CROP_AND_RESIZE: {
      const double span = (a.roi_end - a.roi_start) * (in - 1);
      double v = resized == 1 ? span / 2 : x * span / (resized - 1);
      v += a.roi_start * (in - 1);
      *outside = v < 0 || v > in - 1;
      return v;
    }
    default:
      return (x + 0.5) / scale - 0.5;  // half_pixel
  }
}

// Keys cubic convolution kernel at distance t (|t| < 2), coefficient a.
double Cubic(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

}  // namespace

absl::StatusOr<ResizeParams> ParseResizeParams(int32_t op, const Attributes& attrs, const Shape& in, const Shape& out) {
  ResizeParams p;
  p.mode = attrs.GetInt(TSR_ATTR_RESIZE_MODE, TSR_RESIZE_NEAREST);
  p.coord = attrs.GetInt(TSR_ATTR_COORD_TRANSFORM, TSR_COORD_HALF_PIXEL);
  p.nearest = attrs.GetInt(TSR_ATTR_NEAREST_MODE, TSR_NEAREST_ROUND_PREFER_FLOOR);
  p.cubic_a = attrs.GetFloat(TSR_ATTR_CUBIC_COEFF_A, -0.75f);
  p.exclude_outside = attrs.GetInt(TSR_ATTR_EXCLUDE_OUTSIDE, 0) != 0;
  p.extrapolation = attrs.GetFloat(TSR_ATTR_EXTRAPOLATION_VALUE, 0.0f);
  if (p.mode < TSR_RESIZE_NEAREST || p.mode > TSR_RESIZE_CUBIC)
    return OpError(op, absl::StrCat("unknown RESIZE_MODE ", p.mode));
  if (p.coord < TSR_COORD_HALF_PIXEL || p.coord > TSR_COORD_TF_CROP_AND_RESIZE)
    return OpError(op, absl::StrCat("unknown COORD_TRANSFORM ", p.coord));
  if (p.nearest < TSR_NEAREST_ROUND_PREFER_FLOOR || p.nearest > TSR_NEAREST_CEIL)
    return OpError(op, absl::StrCat("unknown NEAREST_MODE ", p.nearest));
  const size_t rank = in.size();
  if (out.size() != rank)
    return OpError(op, absl::StrCat("output ", ShapeStr(out), " and input ", ShapeStr(in), " differ in rank"));
  auto sizes = attrs.GetInts(TSR_ATTR_SHAPE);  // optional; the graph's shape inference reads it
  if (!sizes.empty() && !std::equal(sizes.begin(), sizes.end(), out.begin(), out.end()))
    return OpError(op, absl::StrCat("SHAPE ", ShapeStr(sizes), " differs from the output ", ShapeStr(out)));
  auto scales = attrs.GetFloats(TSR_ATTR_SCALES);
  auto roi = attrs.GetFloats(TSR_ATTR_ROI);
  p.scales.assign(scales.begin(), scales.end());
  // ROI means something to tf_crop_and_resize alone (ONNX ignores it
  // otherwise): dropped for every other transform, so no later read can
  // trust a length that was never checked (fuzz finding 8).
  if (p.coord == TSR_COORD_TF_CROP_AND_RESIZE) p.roi.assign(roi.begin(), roi.end());
  if (!p.scales.empty() && p.scales.size() != rank)
    return OpError(op, absl::StrCat("SCALES has ", p.scales.size(), " values for rank ", rank));
  if (p.coord == TSR_COORD_TF_CROP_AND_RESIZE && p.roi.size() != 2 * rank)
    return OpError(op, absl::StrCat("tf_crop_and_resize needs ROI with ", 2 * rank, " values, got ", p.roi.size()));
  for (size_t d = 0; d < rank; ++d) {
    if (in[d] < 1 || out[d] < 1)
      return OpError(op, absl::StrCat("empty axis ", d, " (input ", ShapeStr(in), ", output ", ShapeStr(out), ")"));
    if (!p.scales.empty() && !(p.scales[d] > 0 && std::isfinite(p.scales[d])))
      return OpError(op, absl::StrCat("SCALES[", d, "] = ", p.scales[d], " must be positive"));
  }
  return p;
}

std::vector<ResizeAxis> ResampledAxes(const ResizeParams& p, const Shape& in, const Shape& out) {
  std::vector<ResizeAxis> axes;
  const size_t rank = in.size();
  for (int pass = 0; pass < 2; ++pass)
    for (size_t d = 0; d < rank; ++d) {
      if ((pass == 0) != (out[d] < in[d])) continue;
      ResizeAxis a;
      a.axis = d;
      a.in = in[d];
      a.out = out[d];
      a.scale = p.scales.empty() ? static_cast<double>(a.out) / a.in : p.scales[d];
      a.resized = p.scales.empty() ? static_cast<double>(a.out) : a.scale * a.in;
      a.roi_start = p.roi.empty() ? 0 : p.roi[d];
      a.roi_end = p.roi.empty() ? 1 : p.roi[rank + d];
      // Every transform but these two maps x onto x when nothing changes.
      const bool identity = a.in == a.out && a.scale == 1 && p.coord != TSR_COORD_TF_CROP_AND_RESIZE &&
                            p.coord != TSR_COORD_TF_HALF_PIXEL_FOR_NN;
      if (!identity) axes.push_back(a);
    }
  return axes;
}

PositionTaps TapsAt(const ResizeParams& p, const ResizeAxis& a, int64_t o) {
  PositionTaps t;
  const int64_t in = a.in;
  t.width = p.mode == TSR_RESIZE_CUBIC ? 4 : 2;
  double xs = SourceCoordinate(p, a, static_cast<double>(o), &t.extrapolate);
  // Beyond two taps of either edge every tap clamps onto the edge; the
  // clamp keeps the integer conversion below defined for wild scales.
  xs = std::isnan(xs) ? 0 : std::fmin(std::fmax(xs, -4.0), static_cast<double>(in) + 4);
  // ONNX's reference takes the left neighbour with ratio in (0, 1]: an
  // integral coordinate has ratio 1 on the tap to its left.
  double base = std::floor(xs), ratio = xs - base;
  if (ratio == 0) {
    base -= 1;
    ratio = 1;
  }
  double* w = t.weight;
  int64_t first = static_cast<int64_t>(base);
  if (p.mode == TSR_RESIZE_NEAREST) {
    bool up;
    if (ratio == 1)
      up = true;
    else
      switch (p.nearest) {
        case TSR_NEAREST_ROUND_PREFER_CEIL:
          up = ratio >= 0.5;
          break;
        case TSR_NEAREST_FLOOR:
          up = false;
          break;
        case TSR_NEAREST_CEIL:
          up = true;
          break;
        default:
          up = ratio > 0.5;
          break;  // round_prefer_floor
      }
    w[0] = up ? 0.0 : 1.0;
    w[1] = up ? 1.0 : 0.0;
  } else if (p.mode == TSR_RESIZE_LINEAR) {
    w[0] = 1 - ratio;
    w[1] = ratio;
  } else {
    first -= 1;
    for (int k = 0; k < 4; ++k) w[k] = Cubic(ratio + 1 - k, p.cubic_a);
  }
  double sum = 0;
  for (int64_t k = 0; k < t.width; ++k) {
    const int64_t idx = first + k;
    if (p.exclude_outside && (idx < 0 || idx >= in)) w[k] = 0;
    sum += w[k];
  }
  for (int64_t k = 0; k < t.width; ++k) {
    const int64_t idx = first + k;
    t.index[k] = idx < 0 ? 0 : (idx >= in ? in - 1 : idx);
    if (p.exclude_outside && sum != 0) w[k] /= sum;
  }
  return t;
}

AxisTaps MakeAxisTaps(const ResizeParams& p, const ResizeAxis& a) {
  AxisTaps t;
  const int64_t out = a.out;
  t.width = p.mode == TSR_RESIZE_CUBIC ? 4 : 2;
  t.index.resize(out * t.width);
  t.weight.resize(out * t.width);
  t.extrapolate.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    const PositionTaps one = TapsAt(p, a, o);
    t.extrapolate[o] = one.extrapolate;
    for (int64_t k = 0; k < t.width; ++k) {
      t.index[o * t.width + k] = one.index[k];
      t.weight[o * t.width + k] = one.weight[k];
    }
  }
  return t;
}

}  // namespace tessera::cpu
