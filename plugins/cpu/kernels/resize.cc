// RESIZE (ABI 1.3), after ONNX Resize-11..17 (docs/ops.md): output shape is
// the output tensor's; every axis is interpolated on its own (nearest,
// linear, cubic are separable, so n-linear = linear per axis in turn).
// Per axis, output coordinate x maps to input coordinate x' by the
// coordinate transform, with scale = SCALES[axis] when given (then the
// "resized length" is scale·in, a real number, as in ONNX's reference) or
// out/in. Taps around x' are clamped to the edge (ONNX pads by edge);
// EXCLUDE_OUTSIDE drops taps outside the axis and renormalizes. f32/f16,
// f64 arithmetic, one rounding at the end.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernel_util.h"
#include "ops_internal.h"

namespace tessera::cpu::internal {
namespace {

struct AxisTaps {
  // taps[o * width + k]: input index and weight of tap k of output o;
  // extrapolate[o]: output o lies outside the crop (tf_crop_and_resize).
  int64_t width = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> extrapolate;
};

struct ResizeParams {
  int64_t mode, coord, nearest;
  double cubic_a;
  bool exclude_outside;
  double extrapolation;
};

// Input coordinate of output `x`; nullopt-like flag for crop outside.
double SourceCoordinate(const ResizeParams& p, double x, int64_t in, int64_t out, double scale,
                        double resized, double roi_start, double roi_end, bool* outside) {
  *outside = false;
  switch (p.coord) {
    case TSR_COORD_ASYMMETRIC: return x / scale;
    case TSR_COORD_PYTORCH_HALF_PIXEL: return out == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case TSR_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    case TSR_COORD_ALIGN_CORNERS: return resized == 1 ? 0.0 : x * (in - 1) / (resized - 1);
    case TSR_COORD_TF_CROP_AND_RESIZE: {
      const double span = (roi_end - roi_start) * (in - 1);
      double v = resized == 1 ? span / 2 : x * span / (resized - 1);
      v += roi_start * (in - 1);
      *outside = v < 0 || v > in - 1;
      return v;
    }
    default: return (x + 0.5) / scale - 0.5;  // half_pixel
  }
}

// Keys cubic convolution kernel at distance t (|t| < 2), coefficient a.
double Cubic(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

AxisTaps MakeTaps(const ResizeParams& p, int64_t in, int64_t out, double scale, double resized,
                  double roi_start, double roi_end) {
  AxisTaps t;
  t.width = p.mode == TSR_RESIZE_CUBIC ? 4 : 2;
  t.index.resize(out * t.width);
  t.weight.resize(out * t.width);
  t.extrapolate.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    bool outside = false;
    double xs = SourceCoordinate(p, static_cast<double>(o), in, out, scale, resized, roi_start,
                                       roi_end, &outside);
    t.extrapolate[o] = outside;
    // Beyond two taps of either edge every tap clamps onto the edge; the
    // clamp keeps the integer conversion below defined for wild scales.
    xs = std::isnan(xs) ? 0 : std::fmin(std::fmax(xs, -4.0), static_cast<double>(in) + 4);
    // ONNX's reference takes the left neighbour with ratio in (0, 1]: an
    // integral coordinate has ratio 1 on the tap to its left.
    double base = std::floor(xs), ratio = xs - base;
    if (ratio == 0) { base -= 1; ratio = 1; }
    std::vector<double> w(t.width);
    int64_t first = static_cast<int64_t>(base);
    if (p.mode == TSR_RESIZE_NEAREST) {
      bool up;
      if (ratio == 1) up = true;
      else switch (p.nearest) {
        case TSR_NEAREST_ROUND_PREFER_CEIL: up = ratio >= 0.5; break;
        case TSR_NEAREST_FLOOR: up = false; break;
        case TSR_NEAREST_CEIL: up = true; break;
        default: up = ratio > 0.5; break;  // round_prefer_floor
      }
      w = {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
    } else if (p.mode == TSR_RESIZE_LINEAR) {
      w = {1 - ratio, ratio};
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
      t.index[o * t.width + k] = idx < 0 ? 0 : (idx >= in ? in - 1 : idx);
      t.weight[o * t.width + k] = p.exclude_outside && sum != 0 ? w[k] / sum : w[k];
    }
  }
  return t;
}

absl::StatusOr<ResizeParams> ParseParams(int32_t op, const Attributes& attrs) {
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
  return p;
}

// One axis of `cur` (shape `shape`) resized to `out` along `axis`.
std::vector<double> ResizeAxis(const std::vector<double>& cur, Shape& shape, size_t axis, int64_t out,
                               const AxisTaps& t, double extrapolation) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t in = shape[axis];
  std::vector<double> next(static_cast<size_t>(outer * out * inner));
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t o = 0; o < out; ++o)
      for (int64_t b = 0; b < inner; ++b) {
        double acc = 0;
        if (t.extrapolate[o]) {
          acc = extrapolation;
        } else {
          // A tap of weight 0 is not read: nearest then selects exactly
          // (an inf or NaN beside the chosen element does not leak in).
          for (int64_t k = 0; k < t.width; ++k)
            if (t.weight[o * t.width + k] != 0)
              acc += t.weight[o * t.width + k] * cur[(a * in + t.index[o * t.width + k]) * inner + b];
        }
        next[(a * out + o) * inner + b] = acc;
      }
  shape[axis] = out;
  return next;
}

}  // namespace

absl::Status CheckResize(int32_t op, std::span<const TensorRef> inputs,
                         std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  if (!IsFloatDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype);
  if (outputs[0].dtype != inputs[0].dtype)
    return OpError(op, "output dtype must equal the input dtype");
  return absl::OkStatus();
}

absl::Status RunResize(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  auto p = ParseParams(op, attrs);
  if (!p.ok()) return p.status();
  const size_t rank = x.shape.size();
  if (y.shape.size() != rank)
    return OpError(op, absl::StrCat("output ", ShapeStr(y.shape), " and input ", ShapeStr(x.shape),
                                    " differ in rank"));
  auto sizes = attrs.GetInts(TSR_ATTR_SHAPE);  // optional; the graph's shape inference reads it
  if (!sizes.empty() && !std::equal(sizes.begin(), sizes.end(), y.shape.begin(), y.shape.end()))
    return OpError(op, absl::StrCat("SHAPE ", ShapeStr(sizes), " differs from the output ", ShapeStr(y.shape)));
  auto scales = attrs.GetFloats(TSR_ATTR_SCALES);
  auto roi = attrs.GetFloats(TSR_ATTR_ROI);
  if (!scales.empty() && scales.size() != rank)
    return OpError(op, absl::StrCat("SCALES has ", scales.size(), " values for rank ", rank));
  if (p->coord == TSR_COORD_TF_CROP_AND_RESIZE && roi.size() != 2 * rank)
    return OpError(op, absl::StrCat("tf_crop_and_resize needs ROI with ", 2 * rank, " values, got ",
                                    roi.size()));
  for (size_t d = 0; d < rank; ++d) {
    if (x.shape[d] < 1 || y.shape[d] < 1)
      return OpError(op, absl::StrCat("empty axis ", d, " (input ", ShapeStr(x.shape), ", output ",
                                      ShapeStr(y.shape), ")"));
    if (!scales.empty() && !(scales[d] > 0 && std::isfinite(scales[d])))
      return OpError(op, absl::StrCat("SCALES[", d, "] = ", scales[d], " must be positive"));
  }
  std::vector<double> cur(static_cast<size_t>(x.element_count()));
  for (size_t i = 0; i < cur.size(); ++i) cur[i] = LoadFloat(x, static_cast<int64_t>(i));
  Shape shape = x.shape;
  // Shrinking axes first, then growing ones: no intermediate is larger
  // than the input or the output.
  for (int pass = 0; pass < 2; ++pass)
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = x.shape[d], out = y.shape[d];
    if ((pass == 0) != (out < in)) continue;
    const double scale = scales.empty() ? static_cast<double>(out) / in : scales[d];
    const double resized = scales.empty() ? static_cast<double>(out) : scale * in;
    const double r0 = roi.empty() ? 0 : roi[d], r1 = roi.empty() ? 1 : roi[rank + d];
    const bool identity = in == out && scale == 1 && p->coord != TSR_COORD_TF_CROP_AND_RESIZE &&
                          p->coord != TSR_COORD_TF_HALF_PIXEL_FOR_NN;
    if (identity) continue;  // every transform but those two maps x onto x
    cur = ResizeAxis(cur, shape, d, out, MakeTaps(*p, in, out, scale, resized, r0, r1), p->extrapolation);
  }
  for (size_t i = 0; i < cur.size(); ++i) StoreFloat(y, static_cast<int64_t>(i), static_cast<float>(cur[i]));
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
