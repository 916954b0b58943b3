#include "support/reference_kernels/fused.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tessera::cpu {

absl::StatusOr<FusedActivation> ParseActivation(int32_t op, const Attributes& attrs) {
  FusedActivation a;
  a.kind = attrs.GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE);
  if (a.kind != TSR_ACTIVATION_NONE && a.kind != TSR_ACTIVATION_RELU && a.kind != TSR_ACTIVATION_CLIP)
    return OpError(op, absl::StrCat("unknown fused activation ", a.kind));
  if (a.kind == TSR_ACTIVATION_CLIP) {
    a.lo = attrs.GetFloat(TSR_ATTR_CLIP_MIN, a.lo);
    a.hi = attrs.GetFloat(TSR_ATTR_CLIP_MAX, a.hi);
    if (std::isnan(a.lo) || std::isnan(a.hi)) return OpError(op, "CLIP activation bounds must not be NaN");
  }
  return a;
}

absl::Status CheckComputeTypes(int32_t op, const TensorRef& x, const TensorRef& w, const TensorRef* bias,
                               const TensorRef& y) {
  if (IsFloatDType(x.dtype)) {
    if (w.dtype != x.dtype)
      return OpError(
          op, absl::StrCat("weights dtype ", DTypeName(w.dtype), " must match input dtype ", DTypeName(x.dtype)));
    if (bias && bias->dtype != x.dtype)
      return OpError(
          op, absl::StrCat("bias dtype ", DTypeName(bias->dtype), " must match input dtype ", DTypeName(x.dtype)));
    if (y.dtype != x.dtype)
      return OpError(op,
                     absl::StrCat("output dtype ", DTypeName(y.dtype), " must match input dtype ", DTypeName(x.dtype)));
    return absl::OkStatus();
  }
  if (!IsQuantizedCompute(x)) return UnsupportedDType(op, x.dtype, "input ");
  if (!IsQuantizedCompute(w))
    return OpError(op, absl::StrCat("weights dtype ", DTypeName(w.dtype), " must be i8 or u8 with input dtype ",
                                    DTypeName(x.dtype)));
  if (bias && bias->dtype != TSR_DTYPE_I32)
    return OpError(op, absl::StrCat("quantized bias must be i32, got ", DTypeName(bias->dtype)));
  if (y.dtype == TSR_DTYPE_I32) return absl::OkStatus();  // raw accumulators
  if (!IsQuantizedCompute(y))
    return UnsupportedDType(op, y.dtype, absl::StrCat("output (with ", DTypeName(x.dtype), " input) "));
  if (!x.quant.quantized() || !w.quant.quantized() || !y.quant.quantized())
    return OpError(op,
                   "quantized compute needs quant params on the input, the "
                   "weights and the output");
  if (x.quant.scales.size() != 1 || y.quant.scales.size() != 1)
    return OpError(op, "input and output must be quantized per-tensor");
  return absl::OkStatus();
}

namespace {

absl::StatusOr<int32_t> ZeroPoint(int32_t op, const QuantParams& q, size_t i, int32_t dtype, const char* role) {
  if (q.zero_points.empty()) return 0;
  if (q.zero_points.size() != q.scales.size())
    return OpError(op,
                   absl::StrCat(role, " has ", q.scales.size(), " scales but ", q.zero_points.size(), " zero points"));
  const int64_t zp = q.zero_points[i];
  if (zp < IntDTypeMin(dtype) || zp > IntDTypeMax(dtype))
    return OpError(op, absl::StrCat(role, " zero point ", zp, " out of range for ", DTypeName(dtype)));
  return static_cast<int32_t>(zp);
}

absl::Status CheckScale(int32_t op, float s, const char* role) {
  if (!(s > 0.0f) || !std::isfinite(s))
    return OpError(op, absl::StrCat(role, " scale must be finite and > 0, got ", s));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<IntegerPipeline> MakeIntegerPipeline(int32_t op, const TensorRef& x, const TensorRef& w,
                                                    const TensorRef& y, int64_t w_channel_axis, int64_t channels,
                                                    const FusedActivation& act) {
  IntegerPipeline p;
  p.requantize = y.dtype != TSR_DTYPE_I32;
  if (x.quant.quantized()) {
    if (x.quant.scales.size() != 1) return OpError(op, "input must be quantized per-tensor");
    auto zp = ZeroPoint(op, x.quant, 0, x.dtype, "input");
    if (!zp.ok()) return zp.status();
    p.x_zero_point = *zp;
  }
  // Weights: per-tensor or per-output-channel.
  const size_t wn = w.quant.scales.size();
  if (wn > 1) {
    const int64_t rank = static_cast<int64_t>(w.shape.size());
    int64_t axis = w.quant.axis < 0 ? w.quant.axis + rank : w.quant.axis;
    if (axis != w_channel_axis || static_cast<int64_t>(wn) != channels)
      return OpError(op,
                     absl::StrCat("per-channel weight quantization must have ", channels, " scales along weight axis ",
                                  w_channel_axis, ", got ", wn, " along axis ", w.quant.axis));
  }
  p.w_zero_point.assign(channels, 0);
  p.multiplier.assign(channels, QuantizedMultiplier{});
  for (int64_t c = 0; c < channels; ++c) {
    const size_t qi = wn > 1 ? static_cast<size_t>(c) : 0;
    if (wn > 0) {
      auto zp = ZeroPoint(op, w.quant, qi, w.dtype, "weights");
      if (!zp.ok()) return zp.status();
      p.w_zero_point[c] = *zp;
    }
  }
  if (!p.requantize) {
    if (act.kind != TSR_ACTIVATION_NONE)
      return OpError(op,
                     "fused activation needs a quantized i8/u8 output, "
                     "not raw i32 accumulators");
    return p;
  }
  // Requantizing path.
  if (w.dtype == TSR_DTYPE_I8) {
    for (int32_t zp : p.w_zero_point)
      if (zp != 0)
        return OpError(op, absl::StrCat("i8 weights must be symmetric "
                                        "(zero point 0), got ",
                                        zp));
  }
  const float xs = x.quant.scales[0], ys = y.quant.scales[0];
  absl::Status s = CheckScale(op, xs, "input");
  if (s.ok()) s = CheckScale(op, ys, "output");
  if (!s.ok()) return s;
  auto yzp = ZeroPoint(op, y.quant, 0, y.dtype, "output");
  if (!yzp.ok()) return yzp.status();
  p.y_zero_point = *yzp;
  for (int64_t c = 0; c < channels; ++c) {
    const float ws = w.quant.scales[wn > 1 ? c : 0];
    s = CheckScale(op, ws, "weights");
    if (!s.ok()) return s;
    const double real = static_cast<double>(xs) * static_cast<double>(ws) / static_cast<double>(ys);
    p.multiplier[c] = QuantizeMultiplier(real);
  }
  const int32_t qmin = static_cast<int32_t>(IntDTypeMin(y.dtype));
  const int32_t qmax = static_cast<int32_t>(IntDTypeMax(y.dtype));
  p.act_min = qmin;
  p.act_max = qmax;
  if (act.kind == TSR_ACTIVATION_RELU) {
    p.act_min = std::max(qmin, QuantizeActivationBound(0.0f, ys, p.y_zero_point));
  } else if (act.kind == TSR_ACTIVATION_CLIP) {
    if (std::isfinite(act.lo)) p.act_min = std::max(qmin, QuantizeActivationBound(act.lo, ys, p.y_zero_point));
    if (std::isfinite(act.hi)) p.act_max = std::min(qmax, QuantizeActivationBound(act.hi, ys, p.y_zero_point));
  }
  return p;
}

}  // namespace tessera::cpu
