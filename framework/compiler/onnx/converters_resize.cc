// ONNX Resize (10..19) and Upsample (7..9) -> RESIZE (docs/ops.md). The
// output sizes must be known at import (static shapes): `sizes`, or
// floor(in · scale) from constant `scales`. With scales, the scales travel
// as TSR_ATTR_SCALES because the coordinate transforms use them (not
// out/in); with sizes they are left out and the kernel uses out/in.
// Resize-18's `axes` and `keep_aspect_ratio_policy` become full-rank sizes
// and scales here; `antialias` (18) and `half_pixel_symmetric` (19), which
// RESIZE lacks, become exact per-axis MATMULs (resize_matrix.h).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/compiler/onnx/resize_matrix.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

absl::StatusOr<int64_t> ModeOf(const std::string& mode) {
  if (mode == "nearest") return TSR_RESIZE_NEAREST;
  if (mode == "linear" || mode == "bilinear") return TSR_RESIZE_LINEAR;
  if (mode == "cubic") return TSR_RESIZE_CUBIC;
  return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "'"));
}

absl::StatusOr<int64_t> CoordOf(const std::string& c) {
  if (c == "half_pixel") return TSR_COORD_HALF_PIXEL;
  if (c == "asymmetric") return TSR_COORD_ASYMMETRIC;
  if (c == "pytorch_half_pixel") return TSR_COORD_PYTORCH_HALF_PIXEL;
  if (c == "tf_half_pixel_for_nn") return TSR_COORD_TF_HALF_PIXEL_FOR_NN;
  if (c == "align_corners") return TSR_COORD_ALIGN_CORNERS;
  if (c == "tf_crop_and_resize") return TSR_COORD_TF_CROP_AND_RESIZE;
  return absl::InvalidArgumentError(absl::StrCat("unknown coordinate_transformation_mode '", c, "'"));
}

absl::StatusOr<int64_t> NearestOf(const std::string& m) {
  if (m == "round_prefer_floor") return TSR_NEAREST_ROUND_PREFER_FLOOR;
  if (m == "round_prefer_ceil") return TSR_NEAREST_ROUND_PREFER_CEIL;
  if (m == "floor") return TSR_NEAREST_FLOOR;
  if (m == "ceil") return TSR_NEAREST_CEIL;
  return absl::InvalidArgumentError(absl::StrCat("unknown nearest_mode '", m, "'"));
}

// Output sizes floor(in · scale), with the scales checked first.
absl::StatusOr<std::vector<int64_t>> SizesFromScales(const std::vector<int64_t>& in,
                                                     const std::vector<double>& scales) {
  if (scales.size() != in.size())
    return absl::InvalidArgumentError(absl::StrCat("scales has ", scales.size(), " values for rank ", in.size()));
  std::vector<int64_t> out(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    const double v = std::floor(static_cast<double>(in[d]) * scales[d]);
    if (!(scales[d] > 0) || !(v >= 1) || v > static_cast<double>(int64_t{1} << 40))
      return absl::InvalidArgumentError(
          absl::StrCat("scale ", scales[d], " on axis ", d, " (size ", in[d], ") gives no valid output size"));
    out[d] = static_cast<int64_t>(v);
  }
  return out;
}

absl::Status CheckFloat(const ImportContext& ctx, int32_t x) {
  const int32_t dt = ctx.dtype(x);
  if (dt != TSR_DTYPE_F32 && dt != TSR_DTYPE_F16) return Unsupported("Resize of a non-float tensor");
  return absl::OkStatus();
}

absl::StatusOr<int32_t> EmitResize(ImportContext& ctx, int32_t x, std::vector<int64_t> out,
                                   std::map<int32_t, Attribute> attrs, const std::vector<double>* scales) {
  if (scales) {
    std::vector<float> s(scales->begin(), scales->end());
    attrs[TSR_ATTR_SCALES] = FloatsAttr(std::move(s));
  }
  attrs[TSR_ATTR_SHAPE] = IntsAttr(std::move(out));
  return ctx.Emit(TSR_OP_RESIZE, {x}, std::move(attrs));
}

// Upsample-7/9 and Resize-10: asymmetric coordinates, nearest rounds down
// (ONNX's Upsample reference repeats each element `scale` times).
absl::StatusOr<int32_t> LegacyResize(ImportContext& ctx, const Node& n, int32_t x, std::vector<double> scales) {
  ASSIGN_OR_RETURN(int64_t mode, ModeOf(n.String("mode", "nearest")));
  if (mode == TSR_RESIZE_CUBIC) return absl::InvalidArgumentError("cubic needs Resize-11 or later");
  ASSIGN_OR_RETURN(std::vector<int64_t> out, SizesFromScales(ctx.shape(x), scales));
  return EmitResize(ctx, x, out,
                    {{TSR_ATTR_RESIZE_MODE, IntsAttr({mode})},
                     {TSR_ATTR_COORD_TRANSFORM, IntsAttr({TSR_COORD_ASYMMETRIC})},
                     {TSR_ATTR_NEAREST_MODE, IntsAttr({TSR_NEAREST_FLOOR})}},
                    &scales);
}

Outputs Upsample(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(CheckFloat(ctx, x));
  std::vector<double> scales;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(n.input(1), "Upsample scales"));
  } else {
    const std::vector<float> f = n.Floats("scales");
    scales.assign(f.begin(), f.end());
  }
  ASSIGN_OR_RETURN(int32_t y, LegacyResize(ctx, n, x, scales));
  return std::vector<int32_t>{y};
}

// Resize-18 `axes`: the axes that scales / sizes / roi cover (all, in
// order, without it); negative axes count from the end, duplicates are
// refused.
absl::StatusOr<std::vector<int64_t>> AxesOf(const Node& n, int64_t rank) {
  std::vector<int64_t> axes;
  if (!n.Has("axes")) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : n.Ints("axes")) {
    ASSIGN_OR_RETURN(int64_t d, NormalizeAxis(a, rank));
    if (seen[d]) return absl::InvalidArgumentError(absl::StrCat("Resize axes lists axis ", a, " twice"));
    seen[d] = true;
    axes.push_back(d);
  }
  return axes;
}

// Values given for `axes` spread to full rank; the others get `fill(d)`.
template <typename T, typename Fill>
absl::StatusOr<std::vector<T>> Spread(const std::vector<T>& given, const std::vector<int64_t>& axes, size_t rank,
                                      const char* what, Fill fill) {
  if (given.size() != axes.size())
    return absl::InvalidArgumentError(absl::StrCat(what, " has ", given.size(), " values for ", axes.size(), " axes"));
  std::vector<T> full(rank);
  for (size_t d = 0; d < rank; ++d) full[d] = fill(d);
  for (size_t i = 0; i < axes.size(); ++i) full[axes[i]] = given[i];
  return full;
}

// The full-rank output sizes and the scales the coordinate transforms
// use, and whether those scales must travel as TSR_ATTR_SCALES (given
// scales, or a keep_aspect_ratio_policy scale; plain sizes use out / in).
struct ResizeTarget {
  std::vector<int64_t> out;
  std::vector<double> scales;
  bool scales_travel = false;
};

absl::StatusOr<ResizeTarget> TargetOf(ImportContext& ctx, const Node& n, const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& axes) {
  ResizeTarget t;
  std::vector<double> scales;
  if (n.has_input(2)) {
    ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(n.input(2), "Resize scales"));
  }
  if (!n.has_input(3)) {
    if (scales.empty()) return absl::InvalidArgumentError("Resize needs scales or sizes");
    ASSIGN_OR_RETURN(t.scales, Spread<double>(scales, axes, in.size(), "scales", [](size_t) { return 1.0; }));
    ASSIGN_OR_RETURN(t.out, SizesFromScales(in, t.scales));
    t.scales_travel = true;
    return t;
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> given, ctx.ConstInts(n.input(3), "Resize sizes"));
  if (!scales.empty()) return absl::InvalidArgumentError("scales and sizes are both given");
  ASSIGN_OR_RETURN(t.out, Spread<int64_t>(given, axes, in.size(), "sizes", [&](size_t d) { return in[d]; }));
  for (int64_t s : t.out)
    if (s < 1 || s > (int64_t{1} << 40))
      return absl::InvalidArgumentError(absl::StrCat("sizes value ", s, " must be in [1, 2^40]"));
  t.scales.resize(in.size());
  for (size_t d = 0; d < in.size(); ++d) t.scales[d] = static_cast<double>(t.out[d]) / static_cast<double>(in[d]);
  const std::string policy = n.String("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") return t;
  if (policy != "not_larger" && policy != "not_smaller")
    return absl::InvalidArgumentError(absl::StrCat("unknown keep_aspect_ratio_policy '", policy, "'"));
  // One scale for all listed axes (the reference: min or max of out / in),
  // sizes round half up from it, and it drives the coordinate transform.
  double scale = t.scales[axes[0]];
  for (int64_t d : axes) scale = policy == "not_larger" ? std::min(scale, t.scales[d]) : std::max(scale, t.scales[d]);
  for (int64_t d : axes) {
    t.scales[d] = scale;
    t.out[d] = static_cast<int64_t>(std::floor(scale * static_cast<double>(in[d]) + 0.5));
    if (t.out[d] < 1)
      return absl::InvalidArgumentError(absl::StrCat("keep_aspect_ratio_policy gives axis ", d, " size 0"));
  }
  t.scales_travel = true;
  return t;
}

// Resize-18 antialias changes linear / cubic axes that shrink (scale < 1);
// nearest ignores it (the spec names only linear and cubic).
bool AntialiasMatters(const Node& n, int64_t mode, const std::vector<double>& scales) {
  if (n.Int("antialias", 0) == 0 || mode == TSR_RESIZE_NEAREST) return false;
  for (double s : scales)
    if (s < 1) return true;
  return false;
}

// half_pixel_symmetric equals half_pixel on an axis whose output size is
// exactly scale · in (its centering offset is then 0).
bool SymmetricOffsetMatters(const std::vector<int64_t>& in, const ResizeTarget& t) {
  for (size_t d = 0; d < in.size(); ++d)
    if (static_cast<double>(t.out[d]) != t.scales[d] * static_cast<double>(in[d])) return true;
  return false;
}

Outputs Resize(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(CheckFloat(ctx, x));
  if (ctx.opset() < 11) {
    ASSIGN_OR_RETURN(std::vector<double> scales, ctx.ConstDoubles(n.input(1), "Resize scales"));
    ASSIGN_OR_RETURN(int32_t y, LegacyResize(ctx, n, x, scales));
    return std::vector<int32_t>{y};
  }
  ASSIGN_OR_RETURN(int64_t mode, ModeOf(n.String("mode", "nearest")));
  const std::string coord_name = n.String("coordinate_transformation_mode", "half_pixel");
  const bool symmetric = coord_name == "half_pixel_symmetric";  // Resize-19
  ASSIGN_OR_RETURN(int64_t coord, symmetric ? TSR_COORD_HALF_PIXEL : CoordOf(coord_name));
  ASSIGN_OR_RETURN(int64_t nearest, NearestOf(n.String("nearest_mode", "round_prefer_floor")));
  const float cubic_a = n.Float("cubic_coeff_a", -0.75f);
  const bool exclude_outside = n.Int("exclude_outside", 0) != 0;
  std::map<int32_t, Attribute> attrs = {
      {TSR_ATTR_RESIZE_MODE, IntsAttr({mode})},
      {TSR_ATTR_COORD_TRANSFORM, IntsAttr({coord})},
      {TSR_ATTR_NEAREST_MODE, IntsAttr({nearest})},
      {TSR_ATTR_CUBIC_COEFF_A, FloatsAttr({cubic_a})},
      {TSR_ATTR_EXCLUDE_OUTSIDE, IntsAttr({exclude_outside ? 1 : 0})},
      {TSR_ATTR_EXTRAPOLATION_VALUE, FloatsAttr({n.Float("extrapolation_value", 0.0f)})}};
  const std::vector<int64_t>& in = ctx.shape(x);
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(n, ctx.rank(x)));
  if (axes.empty()) return absl::InvalidArgumentError("Resize axes is empty");
  ASSIGN_OR_RETURN(ResizeTarget t, TargetOf(ctx, n, in, axes));
  const bool antialias = AntialiasMatters(n, mode, t.scales);
  if (antialias || (symmetric && SymmetricOffsetMatters(in, t))) {
    // RESIZE has neither feature: exact per-axis MATMULs instead.
    if (coord == TSR_COORD_TF_CROP_AND_RESIZE) return Unsupported("Resize antialias with tf_crop_and_resize");
    const ResizeFilter f{mode, coord, nearest, cubic_a, exclude_outside, antialias, symmetric};
    ASSIGN_OR_RETURN(int32_t y, EmitMatrixResize(ctx, x, f, t.out, t.scales));
    return std::vector<int32_t>{y};
  }
  if (coord == TSR_COORD_TF_CROP_AND_RESIZE) {
    ASSIGN_OR_RETURN(std::vector<double> roi, ctx.ConstDoubles(n.input(1), "Resize roi"));
    if (roi.size() != 2 * axes.size())
      return absl::InvalidArgumentError(absl::StrCat("roi has ", roi.size(), " values, needs ", 2 * axes.size()));
    // Axes outside `axes` take the whole axis: start 0, end 1.
    std::vector<float> full(2 * in.size(), 0.0f);
    std::fill(full.begin() + static_cast<std::ptrdiff_t>(in.size()), full.end(), 1.0f);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[axes[i]] = static_cast<float>(roi[i]);
      full[in.size() + axes[i]] = static_cast<float>(roi[axes.size() + i]);
    }
    attrs[TSR_ATTR_ROI] = FloatsAttr(std::move(full));
  }
  ASSIGN_OR_RETURN(int32_t y, EmitResize(ctx, x, t.out, attrs, t.scales_travel ? &t.scales : nullptr));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterResizeConverters(ConverterTable& t) {
  t["Resize"] = Resize;
  t["Upsample"] = Upsample;
}

}  // namespace tessera::onnx_import
