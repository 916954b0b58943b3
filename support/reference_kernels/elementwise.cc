// Elementwise binary arithmetic with numpy broadcasting:
// ADD SUB MUL DIV POW MAXIMUM MINIMUM.
//  * f32: computed in f32 (POW in f64, rounded once to f32).
//  * f16: computed in f32 and rounded to f16 (round-to-nearest-even).
//  * i8/u8/i32/i64: exact integer arithmetic wrapping modulo 2^bits (numpy);
//    DIV truncates toward zero, division by zero is an error.
//  * i8/u8 ADD/SUB/MUL/DIV with quant params on both inputs and the
//    output: dequantize, compute in f32, requantize with round-half-to-even
//    (one formulation for the four, so SUB is ADD's pipeline and DIV by a
//    constant is defined without a reciprocal's extra rounding).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/broadcast.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

bool IsQuantizedEltwise(std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  const int32_t d = inputs[0].dtype;
  if (d != TSR_DTYPE_I8 && d != TSR_DTYPE_U8) return false;
  return inputs[0].quant.quantized() || inputs[1].quant.quantized() || outputs[0].quant.quantized();
}

double FloatBinary(int32_t op, double a, double b) {
  switch (op) {
    case TSR_OP_ADD:
      return static_cast<float>(a) + static_cast<float>(b);
    case TSR_OP_SUB:
      return static_cast<float>(a) - static_cast<float>(b);
    case TSR_OP_MUL:
      return static_cast<float>(a) * static_cast<float>(b);
    case TSR_OP_DIV:
      return static_cast<float>(a) / static_cast<float>(b);
    case TSR_OP_POW:
      return std::pow(a, b);
    case TSR_OP_MAXIMUM:
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
      return a > b ? a : b;
    case TSR_OP_MINIMUM:
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
      return a < b ? a : b;
  }
  return 0;
}

// Integer power with wrap-around; negative exponents give the truncated
// value of 1/base^-e (0 unless |base| == 1). base 0 with e < 0 is an error.
bool IntPow(int64_t base, int64_t e, int64_t* out) {
  if (e < 0) {
    if (base == 0) return false;
    if (base == 1)
      *out = 1;
    else if (base == -1)
      *out = (e % 2 == 0) ? 1 : -1;
    else
      *out = 0;
    return true;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (e > 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  *out = static_cast<int64_t>(result);
  return true;
}

absl::Status IntBinary(int32_t op, int64_t a, int64_t b, int64_t* out) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case TSR_OP_ADD:
      *out = static_cast<int64_t>(ua + ub);
      break;
    case TSR_OP_SUB:
      *out = static_cast<int64_t>(ua - ub);
      break;
    case TSR_OP_MUL:
      *out = static_cast<int64_t>(ua * ub);
      break;
    case TSR_OP_DIV:
      if (b == 0) return OpError(op, "integer division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        *out = a;  // wraps
      else
        *out = a / b;  // C: truncates toward zero
      break;
    case TSR_OP_POW:
      if (!IntPow(a, b, out)) return OpError(op, "integer 0 raised to a negative power");
      break;
    case TSR_OP_MAXIMUM:
      *out = a > b ? a : b;
      break;
    case TSR_OP_MINIMUM:
      *out = a < b ? a : b;
      break;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckBinary(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 2, 1);
  if (!s.ok()) return s;
  for (size_t i = 0; i < 2; ++i)
    if (!(s = CheckPresent(op, inputs, i)).ok()) return s;
  const TensorRef &a = inputs[0], &b = inputs[1], &y = outputs[0];
  if (!IsNumericDType(a.dtype)) return UnsupportedDType(op, a.dtype);
  if (op == TSR_OP_POW) {
    if (!IsNumericDType(b.dtype)) return UnsupportedDType(op, b.dtype, "exponent ");
  } else if (b.dtype != a.dtype) {
    return OpError(op, absl::StrCat("input dtypes differ: ", DTypeName(a.dtype), " vs ", DTypeName(b.dtype)));
  }
  if (y.dtype != a.dtype)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(y.dtype), " must be ", DTypeName(a.dtype)));
  if (IsQuantizedEltwise(inputs, outputs)) {
    if (op != TSR_OP_ADD && op != TSR_OP_SUB && op != TSR_OP_MUL && op != TSR_OP_DIV)
      return absl::UnimplementedError(absl::StrCat(OpTypeName(op), ": quantized ", DTypeName(a.dtype),
                                                   " unsupported (only ADD, SUB, MUL and DIV)"));
    for (const TensorRef* t : {&a, &b, &y}) {
      if (t->quant.scales.size() != 1)
        return OpError(op,
                       "quantized ADD/SUB/MUL/DIV needs per-tensor quant "
                       "params on both inputs and the output");
      if (!(t->quant.scales[0] > 0.0f)) return OpError(op, "quantization scale must be > 0");
    }
  }
  return absl::OkStatus();
}

absl::Status RunBinary(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &a = inputs[0], &b = inputs[1], &y = outputs[0];
  const Shape shapes[2] = {a.shape, b.shape};
  auto out_shape = BroadcastShapes(op, shapes);
  if (!out_shape.ok()) return out_shape.status();
  absl::Status s = CheckOutputShape(op, y, *out_shape);
  if (s.ok()) s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  BroadcastWalker walker(*out_shape, shapes);

  if (IsQuantizedEltwise(inputs, outputs)) {
    auto zp = [](const TensorRef& t) -> int64_t { return t.quant.zero_points.empty() ? 0 : t.quant.zero_points[0]; };
    const float as = a.quant.scales[0], bs = b.quant.scales[0], ys = y.quant.scales[0];
    const int64_t az = zp(a), bz = zp(b), yz = zp(y);
    walker.ForEach([&](int64_t o, const int64_t* off) {
      const float ra = static_cast<float>(LoadInt(a, off[0]) - az) * as;
      const float rb = static_cast<float>(LoadInt(b, off[1]) - bz) * bs;
      // One f32 operation; a DIV by a real 0 gives IEEE's +-inf (saturates)
      // or NaN (0/0, stored as 0), as the float path would.
      const float r = static_cast<float>(FloatBinary(op, ra, rb));
      const double q = RoundHalfToEven(static_cast<double>(r / ys)) + static_cast<double>(yz);
      StoreInt(y, o, FloatToIntSaturating(q, y.dtype));
    });
    return absl::OkStatus();
  }

  if (IsFloatDType(a.dtype)) {
    walker.ForEach([&](int64_t o, const int64_t* off) {
      const double va = LoadFloat(a, off[0]);
      const double vb = LoadDouble(b, off[1]);  // POW: any exponent dtype
      StoreFloat(y, o, static_cast<float>(FloatBinary(op, va, vb)));
    });
    return absl::OkStatus();
  }

  // Integer base.
  if (IsFloatDType(b.dtype)) {  // POW with float exponent: C cast of result
    walker.ForEach([&](int64_t o, const int64_t* off) {
      const double r = std::pow(static_cast<double>(LoadInt(a, off[0])), static_cast<double>(LoadFloat(b, off[1])));
      StoreInt(y, o, FloatToIntSaturating(r, y.dtype));
    });
    return absl::OkStatus();
  }
  walker.ForEach([&](int64_t o, const int64_t* off) {
    if (!s.ok()) return;
    int64_t r = 0;
    s = IntBinary(op, LoadInt(a, off[0]), LoadInt(b, off[1]), &r);
    StoreInt(y, o, r);
  });
  return s;
}

}  // namespace tessera::cpu::internal
