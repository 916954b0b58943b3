// ONNX Resize (10..17) and Upsample (7..9) -> RESIZE (docs/ops.md). The
// output sizes must be known at import (static shapes): `sizes`, or
// floor(in · scale) from constant `scales`. With scales, the scales travel
// as TSR_ATTR_SCALES because the coordinate transforms use them (not
// out/in); with sizes they are left out and the kernel uses out/in.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "onnx/converters.h"
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
absl::StatusOr<std::vector<int64_t>> SizesFromScales(const std::vector<int64_t>& in, const std::vector<double>& scales) {
  if (scales.size() != in.size())
    return absl::InvalidArgumentError(absl::StrCat("scales has ", scales.size(), " values for rank ", in.size()));
  std::vector<int64_t> out(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    const double v = std::floor(static_cast<double>(in[d]) * scales[d]);
    if (!(scales[d] > 0) || !(v >= 1) || v > static_cast<double>(int64_t{1} << 40))
      return absl::InvalidArgumentError(absl::StrCat("scale ", scales[d], " on axis ", d, " (size ", in[d],
                                                     ") gives no valid output size"));
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

Outputs Resize(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(CheckFloat(ctx, x));
  if (ctx.opset() < 11) {
    ASSIGN_OR_RETURN(std::vector<double> scales, ctx.ConstDoubles(n.input(1), "Resize scales"));
    ASSIGN_OR_RETURN(int32_t y, LegacyResize(ctx, n, x, scales));
    return std::vector<int32_t>{y};
  }
  ASSIGN_OR_RETURN(int64_t mode, ModeOf(n.String("mode", "nearest")));
  ASSIGN_OR_RETURN(int64_t coord, CoordOf(n.String("coordinate_transformation_mode", "half_pixel")));
  ASSIGN_OR_RETURN(int64_t nearest, NearestOf(n.String("nearest_mode", "round_prefer_floor")));
  std::map<int32_t, Attribute> attrs = {
      {TSR_ATTR_RESIZE_MODE, IntsAttr({mode})},
      {TSR_ATTR_COORD_TRANSFORM, IntsAttr({coord})},
      {TSR_ATTR_NEAREST_MODE, IntsAttr({nearest})},
      {TSR_ATTR_CUBIC_COEFF_A, FloatsAttr({n.Float("cubic_coeff_a", -0.75f)})},
      {TSR_ATTR_EXCLUDE_OUTSIDE, IntsAttr({n.Int("exclude_outside", 0) != 0 ? 1 : 0})},
      {TSR_ATTR_EXTRAPOLATION_VALUE, FloatsAttr({n.Float("extrapolation_value", 0.0f)})}};
  const std::vector<int64_t>& in = ctx.shape(x);
  if (coord == TSR_COORD_TF_CROP_AND_RESIZE) {
    ASSIGN_OR_RETURN(std::vector<double> roi, ctx.ConstDoubles(n.input(1), "Resize roi"));
    if (roi.size() != 2 * in.size())
      return absl::InvalidArgumentError(absl::StrCat("roi has ", roi.size(), " values, needs ", 2 * in.size()));
    attrs[TSR_ATTR_ROI] = FloatsAttr(std::vector<float>(roi.begin(), roi.end()));
  }
  std::vector<double> scales;
  if (n.has_input(2)) { ASSIGN_OR_RETURN(scales, ctx.ConstDoubles(n.input(2), "Resize scales")); }
  if (n.has_input(3)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(n.input(3), "Resize sizes"));
    if (!scales.empty()) return absl::InvalidArgumentError("scales and sizes are both given");
    if (sizes.size() != in.size())
      return absl::InvalidArgumentError(absl::StrCat("sizes has ", sizes.size(), " values for rank ", in.size()));
    for (int64_t s : sizes)
      if (s < 1) return absl::InvalidArgumentError(absl::StrCat("sizes value ", s, " must be positive"));
    ASSIGN_OR_RETURN(int32_t y, EmitResize(ctx, x, sizes, attrs, nullptr));
    return std::vector<int32_t>{y};
  }
  if (scales.empty()) return absl::InvalidArgumentError("Resize needs scales or sizes");
  ASSIGN_OR_RETURN(std::vector<int64_t> out, SizesFromScales(in, scales));
  ASSIGN_OR_RETURN(int32_t y, EmitResize(ctx, x, out, attrs, &scales));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterResizeConverters(ConverterTable& t) {
  t["Resize"] = Resize;
  t["Upsample"] = Upsample;
}

}  // namespace tessera::onnx_import
