// Elementwise unary ops (NEG ABS SQRT RSQRT EXP LOG SIN COS TANH SIGMOID
// RELU ERF CLIP) and POW with a uniform constant exponent, f32, as loops.
//
// Why loops and not oneDNN's eltwise primitive: its exp maps NaN to +inf
// and flushes denormal results, its log is off by ~1e-6 relative and wrong
// on denormals (measured on oneDNN 2.6.3, AVX2), and it has no sin/cos/erf.
// NEG ABS SQRT RSQRT RELU CLIP EXP SIGMOID TANH ERF and the POW special
// cases vectorize (the library is built with -fno-math-errno so that sqrt
// is an instruction; exp/tanh/erf are in vector_math.h); LOG SIN COS call
// libm's f32 functions per element, which are accurate and handle every
// edge value but do not vectorize.
//
// Numerics against the reference (f64, one rounding): NEG ABS SQRT RELU
// CLIP and POW 2, 0.5, 1, 0 are bit-identical; the rest are within a few
// ulp (kFastRelTolerance).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/elementwise_rows.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "plugins/cpu/fast_kernels/vector_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {

TSR_VECTOR_CLONES void UnaryRow(int32_t op, const float* x, float* y, int64_t n, float lo, float hi) {
  switch (op) {
    case TSR_OP_NEG:
      for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
      break;
    case TSR_OP_ABS:
      for (int64_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]);
      break;
    case TSR_OP_SQRT:
      for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
      break;
    case TSR_OP_RSQRT:  // f64 so that 1/sqrt rounds once more at most, as the reference
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x[i])));
      break;
    case TSR_OP_RELU:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
      break;           // NaN stays NaN
    case TSR_OP_CLIP:  // NaN stays NaN; lo > hi gives hi, as the reference
      for (int64_t i = 0; i < n; ++i) {
        const float v = x[i] < lo ? lo : x[i];
        y[i] = v > hi ? hi : v;
      }
      break;
    case TSR_OP_EXP:
      for (int64_t i = 0; i < n; ++i) y[i] = ExpF(x[i]);
      break;
    case TSR_OP_TANH:
      for (int64_t i = 0; i < n; ++i) y[i] = TanhF(x[i]);
      break;
    case TSR_OP_SIGMOID:  // exp of -|x| only, as the reference: never overflows
      for (int64_t i = 0; i < n; ++i) {
        const float e = ExpF(-std::fabs(x[i]));
        y[i] = x[i] >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
      }
      break;
    case TSR_OP_LOG:
      for (int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
      break;
    case TSR_OP_SIN:
      for (int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i]);
      break;
    case TSR_OP_COS:
      for (int64_t i = 0; i < n; ++i) y[i] = std::cos(x[i]);
      break;
    case TSR_OP_ERF:
      for (int64_t i = 0; i < n; ++i) y[i] = ErfF(x[i]);
      break;
  }
}

// POW(x, e) for one exponent e. The special cases follow IEEE pow:
// pow(x, 0) = 1 even for NaN; pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf
// where sqrt gives -0 and NaN; x^3 and 1/x in f64, one rounding to f32
// after, as the reference's f64 pow.
TSR_VECTOR_CLONES void PowRow(double e, const float* x, float* y, int64_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  if (e == 2.0) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * x[i];
  } else if (e == 3.0) {
    for (int64_t i = 0; i < n; ++i) {
      const double d = x[i];
      y[i] = static_cast<float>(d * d * d);
    }
  } else if (e == 0.5) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] == -inf ? inf : std::sqrt(x[i]) + 0.0f;
  } else if (e == 1.0) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i];
  } else if (e == 0.0) {
    for (int64_t i = 0; i < n; ++i) y[i] = 1.0f;
  } else if (e == -1.0) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(1.0 / static_cast<double>(x[i]));
  } else {  // libm's pow, exactly the reference's computation
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::pow(static_cast<double>(x[i]), e));
  }
}

bool IsLoopUnary(int32_t op) {
  switch (op) {
    case TSR_OP_NEG:
    case TSR_OP_ABS:
    case TSR_OP_SQRT:
    case TSR_OP_RSQRT:
    case TSR_OP_EXP:
    case TSR_OP_LOG:
    case TSR_OP_SIN:
    case TSR_OP_COS:
    case TSR_OP_TANH:
    case TSR_OP_SIGMOID:
    case TSR_OP_RELU:
    case TSR_OP_ERF:
    case TSR_OP_CLIP:
      return true;
  }
  return false;
}

namespace {

// A CLIP bound: a constant scalar input, else the attribute; NaN means
// "no bound" (the reference's rule).
float ClipBound(Ins ins, size_t i, const Attributes& attrs, int32_t key, float unbounded) {
  float v = attrs.GetFloat(key, unbounded);
  if (Present(ins, i)) {
    const std::vector<double> c = ConstantValues(ins[i]);
    if (c.size() != 1) Refuse("CLIP: bound is not a constant scalar");
    v = static_cast<float>(c[0]);
  }
  return std::isnan(v) ? unbounded : v;
}

}  // namespace

std::unique_ptr<FastOp> PrepareUnary(int32_t op, const Attributes& attrs, Ins ins, Outs outs) {
  if (!IsLoopUnary(op)) Refuse(absl::StrCat(OpTypeName(op), ": not a unary op"));
  if (ins.empty() || outs.size() != 1 || (op != TSR_OP_CLIP && ins.size() != 1))
    Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, ins.first(1));
  RequireF32(op, outs);
  RequireOutputShape(op, outs[0], ins[0].shape);
  const float inf = std::numeric_limits<float>::infinity();
  float lo = -inf, hi = inf;
  if (op == TSR_OP_CLIP) {
    lo = ClipBound(ins, 1, attrs, TSR_ATTR_CLIP_MIN, -inf);
    hi = ClipBound(ins, 2, attrs, TSR_ATTR_CLIP_MAX, inf);
  }
  const int64_t n = ins[0].element_count();
  return std::make_unique<LoopOp>(OpTypeName(op), 1, 1, [=](auto in, auto out) {
    UnaryRow(op, static_cast<const float*>(in[0]), static_cast<float*>(out[0]), n, lo, hi);
    return absl::OkStatus();
  });
}

std::unique_ptr<FastOp> PreparePowConstant(Ins ins, Outs outs) {
  const int32_t op = TSR_OP_POW;
  if (ins.size() != 2 || outs.size() != 1) Refuse("POW: arity");
  RequireF32(op, ins.first(1));
  RequireF32(op, outs);
  const std::vector<double> e = ConstantValues(ins[1]);
  if (e.empty()) Refuse("POW: exponent is not constant");
  for (double v : e)
    if (!(v == e[0])) Refuse("POW: exponent is not uniform");
  // The exponent must not widen the output (then it is a broadcasting POW).
  const std::vector<int64_t> shapes[2] = {ins[0].shape, ins[1].shape};
  const BroadcastWalk walk(shapes);
  if (!walk.ok() || walk.out_shape() != ins[0].shape) Refuse("POW: exponent broadcasts the base");
  RequireOutputShape(op, outs[0], ins[0].shape);
  const double exponent = e[0];
  const int64_t n = ins[0].element_count();
  return std::make_unique<LoopOp>("POW", 1, 1, [=](auto in, auto out) {
    PowRow(exponent, static_cast<const float*>(in[0]), static_cast<float*>(out[0]), n);
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
