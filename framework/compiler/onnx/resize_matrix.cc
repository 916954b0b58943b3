// Interpolation matrices for the Resize cases RESIZE cannot express (see
// resize_matrix.h). The tap rules follow onnx/reference/ops/op_resize.py
// step by step, so the weights are the reference's, not an approximation:
//   * the source coordinate x' of output x (half_pixel_symmetric included);
//   * b = floor(x') and r = x' − b, except an integral x' takes b = x' − 1,
//     r = 1 (the reference prefers the left neighbour);
//   * n taps at b + start + k; antialias stretches the linear / cubic
//     kernel by 1 / min(scale, 1) (start = floor(−support / s) + 1,
//     n = 2 − 2·start) and divides the weights by their sum;
//   * the taps are the n nearest indices of the edge-padded axis (pad
//     ceil(n / 2)), so a window past the padding slides back inside, and
//     an index outside [0, in) reads the edge element, or with
//     exclude_outside gets weight 0 and the rest are renormalized.
#include "framework/compiler/onnx/resize_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

double SourceCoordinate(const ResizeFilter& f, int64_t x, int64_t in, int64_t out, double scale) {
  const double xd = static_cast<double>(x), length = scale * static_cast<double>(in);
  if (f.half_pixel_symmetric) {
    // Centers the resized length on the output canvas: differs from
    // half_pixel only when out != scale · in.
    const double offset = static_cast<double>(in) / 2 * (1 - static_cast<double>(out) / length);
    return offset + (xd + 0.5) / scale - 0.5;
  }
  switch (f.coord) {
    case TSR_COORD_ALIGN_CORNERS:
      return length == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (length - 1);
    case TSR_COORD_ASYMMETRIC:
      return xd / scale;
    case TSR_COORD_PYTORCH_HALF_PIXEL:
      return out == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
    case TSR_COORD_TF_HALF_PIXEL_FOR_NN:
      return (xd + 0.5) / scale;
    default:  // HALF_PIXEL
      return (xd + 0.5) / scale - 0.5;
  }
}

// Keys' cubic kernel as the reference's antialias path writes it.
double Keys(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

// The weights of taps start, start+1, ... relative to b, for fraction r.
std::vector<double> TapWeights(const ResizeFilter& f, double r, double scale, int64_t* start) {
  if (f.mode == TSR_RESIZE_NEAREST) {
    *start = 0;
    bool second = true;  // an integral x' (r = 1) selects b + 1 = x'
    if (r != 1) {
      if (f.nearest == TSR_NEAREST_ROUND_PREFER_FLOOR)
        second = r > 0.5;
      else if (f.nearest == TSR_NEAREST_ROUND_PREFER_CEIL)
        second = r >= 0.5;
      else
        second = f.nearest == TSR_NEAREST_CEIL;
    }
    return {second ? 0.0 : 1.0, second ? 1.0 : 0.0};
  }
  const bool cubic = f.mode == TSR_RESIZE_CUBIC;
  if (!f.antialias) {
    if (!cubic) {
      *start = 0;
      return {1 - r, r};
    }
    *start = -1;
    const double a = f.cubic_a;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
            ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a};
  }
  // Antialias: the kernel widened by 1 / s when downsampling.
  const double s = std::min(scale, 1.0);
  const double support = cubic ? 2.0 : 1.0;
  *start = static_cast<int64_t>(std::floor(-support / s) + 1);
  const int64_t n = 2 - 2 * *start;
  std::vector<double> w(static_cast<size_t>(n));
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double t = (static_cast<double>(*start + k) - r) * s;
    w[k] = cubic ? Keys(t, f.cubic_a) : std::clamp(1 - std::fabs(t), 0.0, 1.0);
    sum += w[k];
  }
  for (double& v : w) v /= sum;
  return w;
}

}  // namespace

absl::StatusOr<std::vector<double>> InterpolationMatrix(const ResizeFilter& f, int64_t in, int64_t out, double scale) {
  if (!(scale > 0) || !std::isfinite(scale) || in < 1 || out < 1)
    return absl::InvalidArgumentError(absl::StrCat("Resize axis ", in, " -> ", out, " with scale ", scale));
  // Antialias taps grow with 1 / scale; scale ≥ 1 / in (the output has at
  // least one element), so n ≤ 4·in + 2 and this stays bounded by in · out.
  if (f.antialias && f.mode != TSR_RESIZE_NEAREST && scale * static_cast<double>(in) < 0.5)
    return absl::InvalidArgumentError(absl::StrCat("Resize antialias scale ", scale, " on an axis of ", in));
  std::vector<double> m(static_cast<size_t>(out * in), 0.0);
  for (int64_t x = 0; x < out; ++x) {
    const double xo = SourceCoordinate(f, x, in, out, scale);
    if (!std::isfinite(xo) || std::fabs(xo) > 1e15)
      return absl::InvalidArgumentError(absl::StrCat("Resize source coordinate ", xo, " for output ", x));
    const double fl = std::floor(xo);
    const double r = xo == fl ? 1.0 : xo - fl;
    const int64_t b = static_cast<int64_t>(xo == fl ? fl - 1 : fl);
    int64_t start = 0;
    std::vector<double> w = TapWeights(f, r, scale, &start);
    const int64_t n = static_cast<int64_t>(w.size()), pad = (n + 1) / 2;
    // The n nearest indices of the padded axis [-pad, in + pad).
    const int64_t first = std::clamp(b + start, -pad, in + pad - n);
    if (f.exclude_outside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (first + k < 0 || first + k >= in) w[k] = 0;
        sum += w[k];
      }
      if (sum == 0)
        return absl::InvalidArgumentError(absl::StrCat("Resize exclude_outside leaves output ", x, " no tap"));
      for (double& v : w) v /= sum;
    }
    double* row = m.data() + x * in;
    for (int64_t k = 0; k < n; ++k) row[std::clamp<int64_t>(first + k, 0, in - 1)] += w[k];
  }
  return m;
}

namespace {

bool IsIdentity(const std::vector<double>& m, int64_t in, int64_t out) {
  if (in != out) return false;
  for (int64_t i = 0; i < out; ++i)
    for (int64_t j = 0; j < in; ++j)
      if (m[i * in + j] != (i == j ? 1.0 : 0.0)) return false;
  return true;
}

// The f32 constant of m [out, in], or of its transpose [in, out].
int32_t MatrixConstant(ImportContext& ctx, const std::vector<double>& m, int64_t in, int64_t out, bool transpose,
                       size_t bytes) {
  HostTensor h;
  h.dtype = TSR_DTYPE_F32;
  h.shape = transpose ? std::vector<int64_t>{in, out} : std::vector<int64_t>{out, in};
  h.data.resize(bytes);
  float* dst = reinterpret_cast<float*>(h.data.data());
  for (int64_t i = 0; i < out; ++i)
    for (int64_t j = 0; j < in; ++j) dst[transpose ? j * out + i : i * in + j] = static_cast<float>(m[i * in + j]);
  return ctx.AddConstant(std::move(h));
}

int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];  // a sub-shape of an existing tensor: no overflow
  return p;
}

}  // namespace

absl::StatusOr<int32_t> EmitMatrixResize(ImportContext& ctx, int32_t x, const ResizeFilter& f,
                                         const std::vector<int64_t>& out, const std::vector<double>& scales) {
  const bool f16 = ctx.dtype(x) == TSR_DTYPE_F16;
  int32_t y = x;
  if (f16) {
    ASSIGN_OR_RETURN(y, ctx.Cast(x, TSR_DTYPE_F32));
  }
  std::vector<int64_t> cur = ctx.shape(x);
  const size_t rank = cur.size();
  for (size_t d = rank; d-- > 0;) {
    const int64_t in = cur[d];
    ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(TSR_DTYPE_F32, {out[d], in},
                                                         absl::StrCat("Resize interpolation matrix of axis ", d)));
    ASSIGN_OR_RETURN(std::vector<double> m, InterpolationMatrix(f, in, out[d], scales[d]));
    if (IsIdentity(m, in, out[d])) continue;
    std::vector<int64_t> next = cur;
    next[d] = out[d];
    if (!checked::ElementCount(next))
      return absl::InvalidArgumentError(absl::StrCat("Resize output of axis ", d, " overflows"));
    if (d + 1 == rank) {  // x [..., in] · Mᵀ [in, out]
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_MATMUL, {y, MatrixConstant(ctx, m, in, out[d], true, bytes)}));
    } else {  // M [out, in] · x [pre, in, post], broadcast over pre
      const int64_t pre = Product(cur, 0, d), post = Product(cur, d + 1, rank);
      ASSIGN_OR_RETURN(int32_t x3, ctx.Reshape(y, {pre, in, post}));
      ASSIGN_OR_RETURN(int32_t z, ctx.Emit(TSR_OP_MATMUL, {MatrixConstant(ctx, m, in, out[d], false, bytes), x3}));
      ASSIGN_OR_RETURN(y, ctx.Reshape(z, next));
    }
    cur = std::move(next);
  }
  if (y == x) return ctx.Copy(x);  // every axis the identity
  if (f16) return ctx.Cast(y, TSR_DTYPE_F16);
  return y;
}

}  // namespace tessera::onnx_import
