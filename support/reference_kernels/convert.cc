// CAST, QUANTIZE, DEQUANTIZE.
// CAST (to the output dtype, all 7x7 pairs):
//   float -> int: truncate toward zero, saturate to the range, NaN -> 0.
//   float -> bool and int -> bool: x != 0 (NaN -> true).
//   int -> int: keep the low bits (two's-complement wrap, like numpy).
//   int -> float, f32 <-> f16: round to nearest even; inf/NaN kept.
// QUANTIZE: q = saturate(round_half_to_even(x / scale) + zero_point) with
//   x / scale an f32 division; params from the OUTPUT tensor's QuantParams
//   (per-tensor or per-channel along quant.axis).
// DEQUANTIZE: x = (f32(q) - f32(zero_point)) * scale (ONNX order), params
//   from the INPUT tensor's QuantParams.
// For both, when the tensor carries no QuantParams, ONNX-style inputs
// (scale f32 input 1, optional zero point input 2, TSR_ATTR_AXIS default 1
// for per-channel) are used instead.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

struct ElementQuant {
  int64_t axis = -1;  // -1: per-tensor
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t inner = 1;  // elements per channel step along axis
  // Index into scales for flat element i.
  size_t Channel(int64_t i) const { return axis < 0 ? 0 : static_cast<size_t>((i / inner) % scales.size()); }
};

absl::StatusOr<ElementQuant> ResolveQuant(int32_t op, const TensorRef& holder, const TensorRef& data,
                                          std::span<const TensorRef> inputs, const Attributes& attrs, int32_t q_dtype) {
  ElementQuant q;
  int64_t axis = -1;
  if (holder.quant.quantized()) {
    q.scales = holder.quant.scales;
    q.zero_points = holder.quant.zero_points;
    axis = holder.quant.axis;
  } else if (IsPresent(inputs, 1)) {
    const TensorRef& st = inputs[1];
    absl::Status s = CheckData(op, st, "scale input");
    if (!s.ok()) return s;
    if (!IsFloatDType(st.dtype)) return UnsupportedDType(op, st.dtype, "scale ");
    q.scales = LoadFloats(st);
    if (IsPresent(inputs, 2)) {
      const TensorRef& zt = inputs[2];
      if (!(s = CheckData(op, zt, "zero point input")).ok()) return s;
      if (zt.dtype != q_dtype)
        return OpError(op, absl::StrCat("zero point dtype ", DTypeName(zt.dtype), " must be ", DTypeName(q_dtype)));
      q.zero_points = LoadInts(zt);
    }
    axis = q.scales.size() > 1 ? attrs.GetInt(TSR_ATTR_AXIS, 1) : -1;
  } else {
    return OpError(op, "no quantization parameters (quant params or scale input)");
  }
  if (q.scales.empty()) return OpError(op, "empty scales");
  if (q.zero_points.empty()) q.zero_points.assign(q.scales.size(), 0);
  if (q.zero_points.size() != q.scales.size()) return OpError(op, "scales and zero points differ in length");
  for (int64_t zp : q.zero_points)
    if (zp < IntDTypeMin(q_dtype) || zp > IntDTypeMax(q_dtype))
      return OpError(op, absl::StrCat("zero point ", zp, " out of range for ", DTypeName(q_dtype)));
  if (q.scales.size() > 1) {
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    auto a = NormalizeAxis(op, axis, rank);
    if (!a.ok()) return a.status();
    if (data.shape[*a] != static_cast<int64_t>(q.scales.size()))
      return OpError(op,
                     absl::StrCat(q.scales.size(), " per-channel scales but axis ", *a, " has size ", data.shape[*a]));
    q.axis = *a;
    q.inner = ShapeElements(std::span(data.shape).subspan(*a + 1));
  }
  return q;
}

}  // namespace

absl::Status CheckCast(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  return s;
}

absl::Status RunCast(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                     std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (s.ok()) s = CheckOutputShape(op, y, x.shape);
  if (!s.ok()) return s;
  const int64_t n = x.element_count();
  const bool from_float = IsFloatDType(x.dtype);
  for (int64_t i = 0; i < n; ++i) {
    if (from_float) {
      const float v = LoadFloat(x, i);
      if (IsFloatDType(y.dtype))
        StoreFloat(y, i, v);
      else if (y.dtype == TSR_DTYPE_BOOL)
        StoreInt(y, i, v != 0.0f);
      else
        StoreInt(y, i, FloatToIntSaturating(v, y.dtype));
    } else {
      const int64_t v = LoadInt(x, i);
      // int64 -> f32 rounds to nearest even; every int that is finite in
      // f16 is exact in f32, so the f16 path rounds only once.
      if (IsFloatDType(y.dtype))
        StoreFloat(y, i, static_cast<float>(v));
      else
        StoreInt(y, i, v);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckQuantize(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 3, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  if (!IsFloatDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype, "input ");
  const int32_t d = outputs[0].dtype;
  if (d != TSR_DTYPE_I8 && d != TSR_DTYPE_U8 && d != TSR_DTYPE_I32) return UnsupportedDType(op, d, "output ");
  if (!outputs[0].quant.quantized() && !IsPresent(inputs, 1))
    return OpError(op, "output has no quant params and no scale input");
  return absl::OkStatus();
}

absl::Status RunQuantize(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                         std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckData(op, x, "input 0");
  if (s.ok()) s = CheckData(op, y, "output 0");
  if (s.ok()) s = CheckOutputShape(op, y, x.shape);
  if (!s.ok()) return s;
  auto q = ResolveQuant(op, y, x, inputs, attrs, y.dtype);
  if (!q.ok()) return q.status();
  const int64_t n = x.element_count();
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = q->Channel(i);
    const float r = LoadFloat(x, i) / q->scales[c];  // f32 division
    const double v = RoundHalfToEven(r) + static_cast<double>(q->zero_points[c]);
    StoreInt(y, i, FloatToIntSaturating(v, y.dtype));
  }
  return absl::OkStatus();
}

absl::Status CheckDequantize(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 3, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (d != TSR_DTYPE_I8 && d != TSR_DTYPE_U8 && d != TSR_DTYPE_I32) return UnsupportedDType(op, d, "input ");
  if (!IsFloatDType(outputs[0].dtype)) return UnsupportedDType(op, outputs[0].dtype, "output ");
  if (!inputs[0].quant.quantized() && !IsPresent(inputs, 1))
    return OpError(op, "input has no quant params and no scale input");
  return absl::OkStatus();
}

absl::Status RunDequantize(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                           std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckData(op, x, "input 0");
  if (s.ok()) s = CheckData(op, y, "output 0");
  if (s.ok()) s = CheckOutputShape(op, y, x.shape);
  if (!s.ok()) return s;
  auto q = ResolveQuant(op, x, x, inputs, attrs, x.dtype);
  if (!q.ok()) return q.status();
  const int64_t n = x.element_count();
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = q->Channel(i);
    const float v = (static_cast<float>(LoadInt(x, i)) - static_cast<float>(q->zero_points[c])) * q->scales[c];
    StoreFloat(y, i, v);
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
