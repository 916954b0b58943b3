// Elementwise unary ops: NEG ABS SQRT RSQRT EXP LOG SIN COS TANH SIGMOID
// RELU ERF and CLIP. Float math is done in f64 and rounded once to the
// output dtype. NEG/ABS/RELU also take i8/i32/i64 (wrap-around: -(-128) is
// -128 in i8); CLIP also takes u8. SIGMOID/TANH/EXP on quantized i8/u8 run
// through a 256-entry table (docs/ops.md "Quantized SIGMOID, TANH, EXP").
#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

bool UnaryTakesInts(int32_t op) { return op == TSR_OP_NEG || op == TSR_OP_ABS || op == TSR_OP_RELU; }

double FloatUnary(int32_t op, double x) {
  switch (op) {
    case TSR_OP_NEG:
      return -x;
    case TSR_OP_ABS:
      return std::fabs(x);
    case TSR_OP_SQRT:
      return std::sqrt(x);
    case TSR_OP_RSQRT:
      return 1.0 / std::sqrt(x);
    case TSR_OP_EXP:
      return std::exp(x);
    case TSR_OP_LOG:
      return std::log(x);
    case TSR_OP_SIN:
      return std::sin(x);
    case TSR_OP_COS:
      return std::cos(x);
    case TSR_OP_TANH:
      return std::tanh(x);
    case TSR_OP_SIGMOID:
      // Stable both ways: never exp of a large positive number.
      if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
      return std::exp(x) / (1.0 + std::exp(x));
    case TSR_OP_RELU:
      return x < 0 ? 0.0 : x;  // NaN stays NaN
    case TSR_OP_ERF:
      return std::erf(x);
  }
  return 0;
}

int64_t IntUnary(int32_t op, int64_t x) {
  const uint64_t ux = static_cast<uint64_t>(x);
  switch (op) {
    case TSR_OP_NEG:
      return static_cast<int64_t>(0 - ux);  // wraps
    case TSR_OP_ABS:
      return x < 0 ? static_cast<int64_t>(0 - ux) : x;
    case TSR_OP_RELU:
      return x < 0 ? 0 : x;
  }
  return 0;
}

// Bound from an optional scalar input tensor, else from an attribute.
absl::StatusOr<double> ClipBound(int32_t op, std::span<const TensorRef> in, size_t i, const Attributes& attrs,
                                 int32_t key, double dflt) {
  if (IsPresent(in, i)) {
    const TensorRef& t = in[i];
    if (t.element_count() != 1) return OpError(op, absl::StrCat("bound input ", i, " must be a scalar"));
    absl::Status s = CheckData(op, t, "bound");
    if (!s.ok()) return s;
    return LoadDouble(t, 0);
  }
  return static_cast<double>(attrs.GetFloat(key, static_cast<float>(dflt)));
}

absl::Status RunClip(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs, const TensorRef& y) {
  const TensorRef& x = inputs[0];
  const double inf = std::numeric_limits<double>::infinity();
  auto lo = ClipBound(op, inputs, 1, attrs, TSR_ATTR_CLIP_MIN, -inf);
  if (!lo.ok()) return lo.status();
  auto hi = ClipBound(op, inputs, 2, attrs, TSR_ATTR_CLIP_MAX, inf);
  if (!hi.ok()) return hi.status();
  const int64_t n = x.element_count();
  if (IsFloatDType(x.dtype)) {
    const double l = std::isnan(*lo) ? -inf : *lo;
    const double h = std::isnan(*hi) ? inf : *hi;
    for (int64_t i = 0; i < n; ++i) {
      double v = LoadFloat(x, i);
      if (!std::isnan(v)) v = std::min(std::max(v, l), h);
      StoreFloat(y, i, static_cast<float>(v));
    }
    return absl::OkStatus();
  }
  // Integers: min bound rounds up, max bound rounds down, both saturate to
  // the dtype range (NaN or infinite bound = no bound).
  const int64_t tmin = IntDTypeMin(x.dtype), tmax = IntDTypeMax(x.dtype);
  auto to_bound = [&](double b, bool is_min) -> int64_t {
    if (std::isnan(b)) return is_min ? tmin : tmax;
    const double r = is_min ? std::ceil(b) : std::floor(b);
    if (r <= static_cast<double>(tmin)) return tmin;
    if (r >= static_cast<double>(tmax)) return tmax;
    return static_cast<int64_t>(r);
  };
  int64_t l = to_bound(*lo, true), h = to_bound(*hi, false);
  // Exact integer bounds from integer tensors (no f64 rounding).
  if (IsPresent(inputs, 1) && IsIntDType(inputs[1].dtype)) l = SaturateTo(x.dtype, LoadInt(inputs[1], 0));
  if (IsPresent(inputs, 2) && IsIntDType(inputs[2].dtype)) h = SaturateTo(x.dtype, LoadInt(inputs[2], 0));
  for (int64_t i = 0; i < n; ++i) StoreInt(y, i, std::min(std::max(LoadInt(x, i), l), h));
  return absl::OkStatus();
}

bool IsQuantizedUnary(int32_t op, const TensorRef& x, const TensorRef& y) {
  if (op != TSR_OP_SIGMOID && op != TSR_OP_TANH && op != TSR_OP_EXP) return false;
  if (x.dtype != TSR_DTYPE_I8 && x.dtype != TSR_DTYPE_U8) return false;
  return x.quant.quantized() || y.quant.quantized();
}

int64_t ZeroPoint(const TensorRef& t) { return t.quant.zero_points.empty() ? 0 : t.quant.zero_points[0]; }

// TFLite's int8 LOGISTIC/TANH way: the function is applied to each of the
// 256 stored values once, as q_y = QUANTIZE(f(DEQUANTIZE(q_x))) with
// docs/ops.md's f32 formulas and f evaluated as for an f32 tensor (f64,
// rounded once to f32); the kernel then only looks values up.
std::vector<int64_t> QuantizedUnaryTable(int32_t op, const TensorRef& x, const TensorRef& y) {
  const float xs = x.quant.scales[0], ys = y.quant.scales[0];
  const float xz = static_cast<float>(ZeroPoint(x));
  const double yz = static_cast<double>(ZeroPoint(y));
  const int64_t lo = IntDTypeMin(x.dtype);
  std::vector<int64_t> table(256);
  for (int64_t i = 0; i < 256; ++i) {
    const float r = (static_cast<float>(lo + i) - xz) * xs;
    const float f = static_cast<float>(FloatUnary(op, r));
    table[i] = FloatToIntSaturating(RoundHalfToEven(static_cast<double>(f / ys)) + yz, y.dtype);
  }
  return table;
}

}  // namespace

absl::Status CheckUnary(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  const size_t max_in = op == TSR_OP_CLIP ? 3 : 1;
  absl::Status s = CheckArity(op, inputs, outputs, 1, max_in, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  bool ok = IsFloatDType(d);
  if (op == TSR_OP_CLIP) ok = IsNumericDType(d);
  if (UnaryTakesInts(op)) ok = ok || d == TSR_DTYPE_I8 || d == TSR_DTYPE_I32 || d == TSR_DTYPE_I64;
  if (IsQuantizedUnary(op, inputs[0], outputs[0])) {
    for (const TensorRef* t : {&inputs[0], &outputs[0]}) {
      if (t->quant.scales.size() != 1)
        return OpError(op,
                       "quantized input and output need per-tensor "
                       "quant params");
      if (!(t->quant.scales[0] > 0.0f) || !std::isfinite(t->quant.scales[0]))
        return OpError(op, "quantization scale must be finite and > 0");
    }
    ok = true;
  }
  if (!ok) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (IsPresent(inputs[i]) && !IsNumericDType(inputs[i].dtype))
      return UnsupportedDType(op, inputs[i].dtype, "bound ");
  }
  return absl::OkStatus();
}

absl::Status RunUnary(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                      std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckOutputShape(op, y, x.shape);
  if (s.ok()) s = CheckData(op, x, "input 0");
  if (s.ok()) s = CheckData(op, y, "output 0");
  if (!s.ok()) return s;
  if (op == TSR_OP_CLIP) return RunClip(op, attrs, inputs, y);
  const int64_t n = x.element_count();
  if (IsQuantizedUnary(op, x, y)) {
    const std::vector<int64_t> table = QuantizedUnaryTable(op, x, y);
    const int64_t lo = IntDTypeMin(x.dtype);
    for (int64_t i = 0; i < n; ++i) StoreInt(y, i, table[LoadInt(x, i) - lo]);
    return absl::OkStatus();
  }
  if (IsFloatDType(x.dtype)) {
    for (int64_t i = 0; i < n; ++i) StoreFloat(y, i, static_cast<float>(FloatUnary(op, LoadFloat(x, i))));
  } else {
    for (int64_t i = 0; i < n; ++i) StoreInt(y, i, IntUnary(op, LoadInt(x, i)));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
