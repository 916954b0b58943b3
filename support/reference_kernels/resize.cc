// RESIZE (ABI 1.3), after ONNX Resize-11..17 (docs/ops.md): output shape is
// the output tensor's; every axis is interpolated on its own (nearest,
// linear, cubic are separable, so n-linear = linear per axis in turn).
// The taps of each axis come from resize_taps.cc (shared with the fast
// kernel). f32/f16, f64 arithmetic, one rounding at the end.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"
#include "support/reference_kernels/resize_taps.h"

namespace tessera::cpu::internal {
namespace {

// One axis of `cur` (shape `shape`) resized to `out` along `axis`.
std::vector<double> ResampleAxis(const std::vector<double>& cur, Shape& shape, size_t axis, int64_t out,
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

absl::Status CheckResize(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  if (!IsFloatDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype);
  if (outputs[0].dtype != inputs[0].dtype) return OpError(op, "output dtype must equal the input dtype");
  return absl::OkStatus();
}

absl::Status RunResize(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  auto p = ParseResizeParams(op, attrs, x.shape, y.shape);
  if (!p.ok()) return p.status();
  std::vector<double> cur(static_cast<size_t>(x.element_count()));
  for (size_t i = 0; i < cur.size(); ++i) cur[i] = LoadFloat(x, static_cast<int64_t>(i));
  Shape shape = x.shape;
  for (const ResizeAxis& a : ResampledAxes(*p, x.shape, y.shape))
    cur = ResampleAxis(cur, shape, a.axis, a.out, MakeAxisTaps(*p, a), p->extrapolation);
  for (size_t i = 0; i < cur.size(); ++i) StoreFloat(y, static_cast<int64_t>(i), static_cast<float>(cur[i]));
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
