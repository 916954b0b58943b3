// Elementwise unary ops: NEG ABS SQRT RSQRT EXP LOG SIN COS TANH SIGMOID
// RELU ERF and CLIP. Float math is done in f64 and rounded once to the
// output dtype. NEG/ABS/RELU also take i8/i32/i64 (wrap-around: -(-128) is
// -128 in i8); CLIP also takes u8.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernel_util.h"
#include "ops_internal.h"

namespace tessera::cpu::internal {
namespace {

bool UnaryTakesInts(int32_t op) {
  return op == TSR_OP_NEG || op == TSR_OP_ABS || op == TSR_OP_RELU;
}

double FloatUnary(int32_t op, double x) {
  switch (op) {
    case TSR_OP_NEG: return -x;
    case TSR_OP_ABS: return std::fabs(x);
    case TSR_OP_SQRT: return std::sqrt(x);
    case TSR_OP_RSQRT: return 1.0 / std::sqrt(x);
    case TSR_OP_EXP: return std::exp(x);
    case TSR_OP_LOG: return std::log(x);
    case TSR_OP_SIN: return std::sin(x);
    case TSR_OP_COS: return std::cos(x);
    case TSR_OP_TANH: return std::tanh(x);
    case TSR_OP_SIGMOID:
      // Stable both ways: never exp of a large positive number.
      if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
      return std::exp(x) / (1.0 + std::exp(x));
    case TSR_OP_RELU: return x < 0 ? 0.0 : x;  // NaN stays NaN
    case TSR_OP_ERF: return std::erf(x);
  }
  return 0;
}

int64_t IntUnary(int32_t op, int64_t x) {
  const uint64_t ux = static_cast<uint64_t>(x);
  switch (op) {
    case TSR_OP_NEG: return static_cast<int64_t>(0 - ux);  // wraps
    case TSR_OP_ABS: return x < 0 ? static_cast<int64_t>(0 - ux) : x;
    case TSR_OP_RELU: return x < 0 ? 0 : x;
  }
  return 0;
}

// Bound from an optional scalar input tensor, else from an attribute.
absl::StatusOr<double> ClipBound(int32_t op, std::span<const TensorRef> in,
                                 size_t i, const Attributes& attrs,
                                 int32_t key, double dflt) {
  if (IsPresent(in, i)) {
    const TensorRef& t = in[i];
    if (t.element_count() != 1)
      return OpError(op, absl::StrCat("bound input ", i, " must be a scalar"));
    absl::Status s = CheckData(op, t, "bound");
    if (!s.ok()) return s;
    return LoadDouble(t, 0);
  }
  return static_cast<double>(attrs.GetFloat(key, static_cast<float>(dflt)));
}

absl::Status RunClip(int32_t op, const Attributes& attrs,
                     std::span<const TensorRef> inputs, const TensorRef& y) {
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
  if (IsPresent(inputs, 1) && IsIntDType(inputs[1].dtype))
    l = SaturateTo(x.dtype, LoadInt(inputs[1], 0));
  if (IsPresent(inputs, 2) && IsIntDType(inputs[2].dtype))
    h = SaturateTo(x.dtype, LoadInt(inputs[2], 0));
  for (int64_t i = 0; i < n; ++i)
    StoreInt(y, i, std::min(std::max(LoadInt(x, i), l), h));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckUnary(int32_t op, std::span<const TensorRef> inputs,
                        std::span<const TensorRef> outputs) {
  const size_t max_in = op == TSR_OP_CLIP ? 3 : 1;
  absl::Status s = CheckArity(op, inputs, outputs, 1, max_in, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  bool ok = IsFloatDType(d);
  if (op == TSR_OP_CLIP) ok = IsNumericDType(d);
  if (UnaryTakesInts(op))
    ok = ok || d == TSR_DTYPE_I8 || d == TSR_DTYPE_I32 || d == TSR_DTYPE_I64;
  if (!ok) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ",
                                    DTypeName(outputs[0].dtype), " must be ",
                                    DTypeName(d)));
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (IsPresent(inputs[i]) && !IsNumericDType(inputs[i].dtype))
      return UnsupportedDType(op, inputs[i].dtype, "bound ");
  }
  return absl::OkStatus();
}

absl::Status RunUnary(int32_t op, const Attributes& attrs,
                      std::span<const TensorRef> inputs,
                      std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckOutputShape(op, y, x.shape);
  if (s.ok()) s = CheckData(op, x, "input 0");
  if (s.ok()) s = CheckData(op, y, "output 0");
  if (!s.ok()) return s;
  if (op == TSR_OP_CLIP) return RunClip(op, attrs, inputs, y);
  const int64_t n = x.element_count();
  if (IsFloatDType(x.dtype)) {
    for (int64_t i = 0; i < n; ++i)
      StoreFloat(y, i, static_cast<float>(FloatUnary(op, LoadFloat(x, i))));
  } else {
    for (int64_t i = 0; i < n; ++i) StoreInt(y, i, IntUnary(op, LoadInt(x, i)));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
