// Elementwise ONNX ops: arithmetic, comparisons and logic, activations
// (composed from op-set primitives where the op set has no direct op),
// Clip, Cast, Where, Identity/Dropout.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

bool IsFloat(int32_t dtype) { return dtype == TSR_DTYPE_F32 || dtype == TSR_DTYPE_F16; }

absl::Status NeedFloat(const ImportContext& ctx, int32_t t, const std::string& op) {
  if (!IsFloat(ctx.dtype(t)))
    return Unsupported(absl::StrCat(op, " on dtype ", DTypeName(ctx.dtype(t)), " unsupported"));
  return absl::OkStatus();
}

// Opset < 7 binary ops: with broadcast=1 and `axis`, B's dims line up with
// A's starting at `axis` (not numpy's right alignment): append 1s to B.
absl::StatusOr<int32_t> LegacyBroadcast(ImportContext& ctx, const Node& n, int32_t a, int32_t b) {
  if (ctx.opset() >= 7 || n.Int("broadcast", 0) == 0 || !n.Has("axis")) return b;
  const int64_t rank_a = ctx.rank(a), rank_b = ctx.rank(b);
  int64_t axis = n.Int("axis", 0);
  if (axis < 0) axis += rank_a;
  if (axis < 0 || axis + rank_b > rank_a) return absl::InvalidArgumentError("legacy broadcast axis out of range");
  std::vector<int64_t> shape = ctx.shape(b);
  shape.resize(static_cast<size_t>(rank_a - axis), 1);
  return ctx.Reshape(b, shape);
}

Converter Direct(int32_t op_type) {
  return [op_type](ImportContext& ctx, const Node& n) -> Outputs {
    std::vector<int32_t> inputs;
    for (size_t i = 0; i < n.input_count(); ++i) {
      ASSIGN_OR_RETURN(int32_t t, Required(n, i));
      inputs.push_back(t);
    }
    if (inputs.size() == 2) {
      ASSIGN_OR_RETURN(inputs[1], LegacyBroadcast(ctx, n, inputs[0], inputs[1]));
    }
    ASSIGN_OR_RETURN(int32_t y, ctx.Emit(op_type, inputs));
    return std::vector<int32_t>{y};
  };
}

// Max/Min/Sum: a left-to-right chain of binary ops (Mean divides by n).
Converter Variadic(int32_t op_type, bool mean) {
  return [op_type, mean](ImportContext& ctx, const Node& n) -> Outputs {
    if (n.input_count() == 0) return absl::InvalidArgumentError("needs at least one input");
    ASSIGN_OR_RETURN(int32_t acc, Required(n, 0));
    for (size_t i = 1; i < n.input_count(); ++i) {
      ASSIGN_OR_RETURN(int32_t t, Required(n, i));
      ASSIGN_OR_RETURN(acc, ctx.Binary(op_type, acc, t));
    }
    if (mean && n.input_count() > 1) {
      ASSIGN_OR_RETURN(acc, ctx.BinaryScalar(TSR_OP_DIV, acc, static_cast<double>(n.input_count())));
    }
    return std::vector<int32_t>{acc};
  };
}

// Identity and inference Dropout are copies here, as written; the
// remove_noops optimization drops them (unless --no-optimize). A freezable
// input (onnx-test's values) is passed through instead: a copy could not be
// frozen when a later operand needs it constant.
absl::StatusOr<int32_t> IdentityOf(ImportContext& ctx, int32_t x) {
  if (ctx.IsFreezable(x)) return x;
  return ctx.Copy(x);
}

Outputs Identity(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t y, IdentityOf(ctx, x));
  return std::vector<int32_t>{y};
}

Outputs Dropout(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (n.has_input(2)) {
    ASSIGN_OR_RETURN(double training, ctx.ConstScalar(n.input(2), "training_mode"));
    if (training != 0) return Unsupported("Dropout with training_mode=1 unsupported");
  }
  int32_t mask = -1;
  if (n.wants_output(1)) {  // inference: keep all (first: its budget check names the mask)
    ASSIGN_OR_RETURN(mask, ctx.Filled(TSR_DTYPE_BOOL, ctx.shape(x), 1, "Dropout mask"));
  }
  ASSIGN_OR_RETURN(int32_t y, IdentityOf(ctx, x));
  return std::vector<int32_t>{y, mask};
}

// Reciprocal = 1 / x.
Outputs Reciprocal(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_DIV, ctx.Scalar(ctx.dtype(x), 1), x));
  return std::vector<int32_t>{y};
}

Outputs Tan(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t s, ctx.Unary(TSR_OP_SIN, x));
  ASSIGN_OR_RETURN(int32_t c, ctx.Unary(TSR_OP_COS, x));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_DIV, s, c));
  return std::vector<int32_t>{y};
}

// Sinh / Cosh = (e^x -/+ e^-x) / 2.
Converter Hyperbolic(bool cosh) {
  return [cosh](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
    ASSIGN_OR_RETURN(int32_t ep, ctx.Unary(TSR_OP_EXP, x));
    ASSIGN_OR_RETURN(int32_t nx, ctx.Unary(TSR_OP_NEG, x));
    ASSIGN_OR_RETURN(int32_t en, ctx.Unary(TSR_OP_EXP, nx));
    ASSIGN_OR_RETURN(int32_t s, ctx.Binary(cosh ? TSR_OP_ADD : TSR_OP_SUB, ep, en));
    ASSIGN_OR_RETURN(int32_t y, ctx.BinaryScalar(TSR_OP_DIV, s, 2));
    return std::vector<int32_t>{y};
  };
}

// SELECT(x < 0, neg, pos).
absl::StatusOr<int32_t> ByNegative(ImportContext& ctx, int32_t x, int32_t neg, int32_t pos) {
  ASSIGN_OR_RETURN(int32_t cond, ctx.Binary(TSR_OP_LESS, x, ctx.Scalar(ctx.dtype(x), 0)));
  return ctx.Emit(TSR_OP_SELECT, {cond, neg, pos});
}

Outputs LeakyRelu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t ax, ctx.BinaryScalar(TSR_OP_MUL, x, n.Float("alpha", 0.01f)));
  ASSIGN_OR_RETURN(int32_t y, ByNegative(ctx, x, ax, x));
  return std::vector<int32_t>{y};
}

Outputs PRelu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t slope, Required(n, 1));
  // Opset < 7: a 1-D slope of C entries is per channel (axis 1).
  if (ctx.opset() < 7 && ctx.rank(slope) == 1 && ctx.rank(x) >= 2 && ctx.shape(slope)[0] == ctx.shape(x)[1] &&
      ctx.shape(slope)[0] != 1) {
    std::vector<int64_t> s(static_cast<size_t>(ctx.rank(x) - 1), 1);
    s[0] = ctx.shape(slope)[0];
    ASSIGN_OR_RETURN(slope, ctx.Reshape(slope, s));
  }
  ASSIGN_OR_RETURN(int32_t ax, ctx.Binary(TSR_OP_MUL, x, slope));
  ASSIGN_OR_RETURN(int32_t y, ByNegative(ctx, x, ax, x));
  return std::vector<int32_t>{y};
}

Outputs ThresholdedRelu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t cond, ctx.Binary(TSR_OP_GREATER, x, ctx.Scalar(ctx.dtype(x), n.Float("alpha", 1.0f))));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SELECT, {cond, x, ctx.Scalar(ctx.dtype(x), 0)}));
  return std::vector<int32_t>{y};
}

// Elu: x < 0 ? alpha (e^x - 1) : x. Selu: gamma * (x <= 0 ? alpha e^x - alpha : x).
Outputs Elu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
  ASSIGN_OR_RETURN(int32_t em1, ctx.BinaryScalar(TSR_OP_SUB, e, 1));
  ASSIGN_OR_RETURN(int32_t neg, ctx.BinaryScalar(TSR_OP_MUL, em1, n.Float("alpha", 1.0f)));
  ASSIGN_OR_RETURN(int32_t y, ByNegative(ctx, x, neg, x));
  return std::vector<int32_t>{y};
}

Outputs Selu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  const float alpha = n.Float("alpha", 1.67326319217681884765625f),
              gamma = n.Float("gamma", 1.05070102214813232421875f);
  ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
  ASSIGN_OR_RETURN(int32_t ae, ctx.BinaryScalar(TSR_OP_MUL, e, alpha));
  ASSIGN_OR_RETURN(int32_t neg, ctx.BinaryScalar(TSR_OP_SUB, ae, alpha));
  ASSIGN_OR_RETURN(int32_t sel, ByNegative(ctx, x, neg, x));
  ASSIGN_OR_RETURN(int32_t y, ctx.BinaryScalar(TSR_OP_MUL, sel, gamma));
  return std::vector<int32_t>{y};
}

// Celu: max(0, x) + min(0, alpha (e^(x/alpha) - 1)).
Outputs Celu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  const float alpha = n.Float("alpha", 1.0f);
  ASSIGN_OR_RETURN(int32_t xa, ctx.BinaryScalar(TSR_OP_DIV, x, alpha));
  ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, xa));
  ASSIGN_OR_RETURN(int32_t em1, ctx.BinaryScalar(TSR_OP_SUB, e, 1));
  ASSIGN_OR_RETURN(int32_t neg, ctx.BinaryScalar(TSR_OP_MUL, em1, alpha));
  ASSIGN_OR_RETURN(int32_t lo, ctx.BinaryScalar(TSR_OP_MINIMUM, neg, 0));
  ASSIGN_OR_RETURN(int32_t hi, ctx.BinaryScalar(TSR_OP_MAXIMUM, x, 0));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_ADD, hi, lo));
  return std::vector<int32_t>{y};
}

absl::StatusOr<int32_t> HardSigmoidOf(ImportContext& ctx, int32_t x, float alpha, float beta) {
  ASSIGN_OR_RETURN(int32_t ax, ctx.BinaryScalar(TSR_OP_MUL, x, alpha));
  ASSIGN_OR_RETURN(int32_t axb, ctx.BinaryScalar(TSR_OP_ADD, ax, beta));
  return ctx.Emit(TSR_OP_CLIP, {axb},
                  {{TSR_ATTR_CLIP_MIN, FloatsAttr({0.0f})}, {TSR_ATTR_CLIP_MAX, FloatsAttr({1.0f})}});
}

Outputs HardSigmoid(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t y, HardSigmoidOf(ctx, x, n.Float("alpha", 0.2f), n.Float("beta", 0.5f)));
  return std::vector<int32_t>{y};
}

Outputs HardSwish(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t hs, HardSigmoidOf(ctx, x, 1.0f / 6.0f, 0.5f));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_MUL, x, hs));
  return std::vector<int32_t>{y};
}

// Softplus = log(e^x + 1); Softsign = x / (1 + |x|).
absl::StatusOr<int32_t> SoftplusOf(ImportContext& ctx, int32_t x) {
  ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
  ASSIGN_OR_RETURN(int32_t e1, ctx.BinaryScalar(TSR_OP_ADD, e, 1));
  return ctx.Unary(TSR_OP_LOG, e1);
}

Outputs Softplus(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t y, SoftplusOf(ctx, x));
  return std::vector<int32_t>{y};
}

// Mish-18 = x * tanh(softplus(x)), the ONNX function body. For large x,
// e^x overflows to inf, softplus is inf and tanh(inf) = 1: y = x, exact.
Outputs Mish(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t sp, SoftplusOf(ctx, x));
  ASSIGN_OR_RETURN(int32_t t, ctx.Unary(TSR_OP_TANH, sp));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_MUL, x, t));
  return std::vector<int32_t>{y};
}

// Gelu-20 (the ONNX function body): approximate = "none":
//   y = 0.5 x (1 + erf(x / sqrt 2));
// "tanh": y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Outputs Gelu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  const std::string approximate = n.String("approximate", "none");
  int32_t inner = -1;  // erf(...) or tanh(...)
  if (approximate == "none") {
    ASSIGN_OR_RETURN(int32_t scaled, ctx.BinaryScalar(TSR_OP_DIV, x, std::sqrt(2.0)));
    ASSIGN_OR_RETURN(inner, ctx.Unary(TSR_OP_ERF, scaled));
  } else if (approximate == "tanh") {
    ASSIGN_OR_RETURN(int32_t x2, ctx.Binary(TSR_OP_MUL, x, x));
    ASSIGN_OR_RETURN(int32_t x3, ctx.Binary(TSR_OP_MUL, x2, x));
    ASSIGN_OR_RETURN(int32_t cx3, ctx.BinaryScalar(TSR_OP_MUL, x3, 0.044715));
    ASSIGN_OR_RETURN(int32_t sum, ctx.Binary(TSR_OP_ADD, x, cx3));
    ASSIGN_OR_RETURN(int32_t arg, ctx.BinaryScalar(TSR_OP_MUL, sum, std::sqrt(2.0 / M_PI)));
    ASSIGN_OR_RETURN(inner, ctx.Unary(TSR_OP_TANH, arg));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Gelu approximate = '", approximate, "' is not one of 'none', 'tanh'"));
  }
  ASSIGN_OR_RETURN(int32_t one_plus, ctx.BinaryScalar(TSR_OP_ADD, inner, 1));
  ASSIGN_OR_RETURN(int32_t half_x, ctx.BinaryScalar(TSR_OP_MUL, x, 0.5));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_MUL, half_x, one_plus));
  return std::vector<int32_t>{y};
}

Outputs Softsign(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t a, ctx.Unary(TSR_OP_ABS, x));
  ASSIGN_OR_RETURN(int32_t a1, ctx.BinaryScalar(TSR_OP_ADD, a, 1));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_DIV, x, a1));
  return std::vector<int32_t>{y};
}

// Sign = (x > 0) - (x < 0), via CAST of the comparisons.
Outputs Sign(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  const int32_t dt = ctx.dtype(x);
  if (dt == TSR_DTYPE_BOOL || dt == TSR_DTYPE_U8)
    return Unsupported(absl::StrCat("Sign on ", DTypeName(dt), " unsupported"));
  ASSIGN_OR_RETURN(int32_t gt, ctx.Binary(TSR_OP_GREATER, x, ctx.Scalar(dt, 0)));
  ASSIGN_OR_RETURN(int32_t lt, ctx.Binary(TSR_OP_LESS, x, ctx.Scalar(dt, 0)));
  ASSIGN_OR_RETURN(int32_t gtc, ctx.Cast(gt, dt));
  ASSIGN_OR_RETURN(int32_t ltc, ctx.Cast(lt, dt));
  ASSIGN_OR_RETURN(int32_t s, ctx.Binary(TSR_OP_SUB, gtc, ltc));
  // NaN stays NaN: SELECT(x == x, s, x).
  if (IsFloat(dt)) {
    ASSIGN_OR_RETURN(int32_t ok, ctx.Binary(TSR_OP_EQUAL, x, x));
    ASSIGN_OR_RETURN(s, ctx.Emit(TSR_OP_SELECT, {ok, s, x}));
  }
  return std::vector<int32_t>{s};
}

// LessOrEqual(a, b) = SELECT(a < b, true, a == b) (NaN compares false).
Converter OrEqual(int32_t strict) {
  return [strict](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t a, Required(n, 0));
    ASSIGN_OR_RETURN(int32_t b, Required(n, 1));
    ASSIGN_OR_RETURN(int32_t s, ctx.Binary(strict, a, b));
    ASSIGN_OR_RETURN(int32_t e, ctx.Binary(TSR_OP_EQUAL, a, b));
    ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SELECT, {s, s, e}));
    return std::vector<int32_t>{y};
  };
}

absl::Status NeedBool(const ImportContext& ctx, int32_t t) {
  if (ctx.dtype(t) != TSR_DTYPE_BOOL) return absl::InvalidArgumentError("logical ops need bool inputs");
  return absl::OkStatus();
}

Outputs Not(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedBool(ctx, x));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_EQUAL, x, ctx.Scalar(TSR_DTYPE_BOOL, 0)));
  return std::vector<int32_t>{y};
}

// And(a,b) = SELECT(a, b, a); Or(a,b) = SELECT(a, a, b); Xor = (a == b) == false.
Converter Logical(char kind) {
  return [kind](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t a, Required(n, 0));
    ASSIGN_OR_RETURN(int32_t b, Required(n, 1));
    RETURN_IF_ERROR(NeedBool(ctx, a));
    RETURN_IF_ERROR(NeedBool(ctx, b));
    int32_t y = -1;
    if (kind == '&') {
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_SELECT, {a, b, a}));
    } else if (kind == '|') {
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_SELECT, {a, a, b}));
    } else {
      ASSIGN_OR_RETURN(int32_t e, ctx.Binary(TSR_OP_EQUAL, a, b));
      ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_EQUAL, e, ctx.Scalar(TSR_DTYPE_BOOL, 0)));
    }
    return std::vector<int32_t>{y};
  };
}

Outputs Where(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t c, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t x, Required(n, 1));
  ASSIGN_OR_RETURN(int32_t y, Required(n, 2));
  ASSIGN_OR_RETURN(int32_t out, ctx.Emit(TSR_OP_SELECT, {c, x, y}));
  return std::vector<int32_t>{out};
}

// Clip: bounds from inputs 1/2 (opset >= 11) or attributes (older).
Outputs Clip(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  const int32_t dt = ctx.dtype(x);
  int32_t y = x;
  std::map<int32_t, Attribute> attrs;
  if (n.Has("min")) attrs[TSR_ATTR_CLIP_MIN] = FloatsAttr({n.Float("min", 0)});
  if (n.Has("max")) attrs[TSR_ATTR_CLIP_MAX] = FloatsAttr({n.Float("max", 0)});
  // Float bounds that are constants become CLIP's attributes; otherwise
  // (integer dtypes, runtime bounds) MAXIMUM then MINIMUM, applied exactly.
  bool all_const_float = IsFloat(dt);
  for (int which = 1; which <= 2; ++which) {
    if (!n.has_input(which)) continue;
    const int32_t b = n.input(which);
    if (ctx.dtype(b) != dt) return absl::InvalidArgumentError("Clip bounds must have the input's dtype");
    if (ctx.shape(b).size() > 1 || ctx.tensor(b).element_count() != 1)
      return absl::InvalidArgumentError("Clip bounds must be scalars");
    if (!ctx.IsConstant(b)) all_const_float = false;
  }
  if (all_const_float) {
    for (int which = 1; which <= 2; ++which) {
      if (!n.has_input(which)) continue;
      ASSIGN_OR_RETURN(double v, ctx.ConstScalar(n.input(which), "Clip bound"));
      attrs[which == 1 ? TSR_ATTR_CLIP_MIN : TSR_ATTR_CLIP_MAX] = FloatsAttr({static_cast<float>(v)});
    }
    ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_CLIP, {x}, attrs));
    return std::vector<int32_t>{y};
  }
  if (!attrs.empty()) {
    ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_CLIP, {y}, attrs));
  }
  for (int which = 1; which <= 2; ++which) {
    if (!n.has_input(which)) continue;
    ASSIGN_OR_RETURN(int32_t bs, ctx.Reshape(n.input(which), {}));
    ASSIGN_OR_RETURN(y, ctx.Binary(which == 1 ? TSR_OP_MAXIMUM : TSR_OP_MINIMUM, y, bs));
  }
  if (y == x) {
    ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_CLIP, {x}));
  }
  return std::vector<int32_t>{y};
}

Outputs Cast(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t to, DTypeFromOnnx(static_cast<int32_t>(n.Int("to", 0))));
  EmitOptions o;
  o.output_dtype = to;
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CAST, {x}, {}, o));
  return std::vector<int32_t>{y};
}

Outputs CastLike(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t like, Required(n, 1));
  EmitOptions o;
  o.output_dtype = ctx.dtype(like);
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CAST, {x}, {}, o));
  return std::vector<int32_t>{y};
}

Outputs Pow(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t a, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t b, Required(n, 1));
  ASSIGN_OR_RETURN(b, LegacyBroadcast(ctx, n, a, b));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_POW, a, b));
  return std::vector<int32_t>{y};
}

// IsNaN = (x == x) == false; IsInf = x == +inf (detect_positive) or
// x == -inf (detect_negative).
Outputs IsNaN(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  ASSIGN_OR_RETURN(int32_t eq, ctx.Binary(TSR_OP_EQUAL, x, x));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_EQUAL, eq, ctx.Scalar(TSR_DTYPE_BOOL, 0)));
  return std::vector<int32_t>{y};
}

Outputs IsInf(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(NeedFloat(ctx, x, n.op_type()));
  const bool pos = n.Int("detect_positive", 1) != 0, neg = n.Int("detect_negative", 1) != 0;
  int32_t y = -1;
  if (pos) {
    ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_EQUAL, x, ctx.Scalar(ctx.dtype(x), INFINITY)));
  }
  if (neg) {
    ASSIGN_OR_RETURN(int32_t m, ctx.Binary(TSR_OP_EQUAL, x, ctx.Scalar(ctx.dtype(x), -INFINITY)));
    if (y < 0)
      y = m;
    else {
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_SELECT, {y, y, m}));
    }
  }
  if (y < 0) {
    ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_EQUAL, x, ctx.Scalar(ctx.dtype(x), NAN)));
  }  // all false
  return std::vector<int32_t>{y};
}

// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
Outputs Shrink(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  const int32_t dt = ctx.dtype(x);
  const double lambd = n.Float("lambd", 0.5f), bias = n.Float("bias", 0.0f);
  ASSIGN_OR_RETURN(int32_t lo, ctx.Binary(TSR_OP_LESS, x, ctx.Scalar(dt, -lambd)));
  ASSIGN_OR_RETURN(int32_t hi, ctx.Binary(TSR_OP_GREATER, x, ctx.Scalar(dt, lambd)));
  ASSIGN_OR_RETURN(int32_t plus, ctx.BinaryScalar(TSR_OP_ADD, x, bias));
  ASSIGN_OR_RETURN(int32_t minus, ctx.BinaryScalar(TSR_OP_SUB, x, bias));
  ASSIGN_OR_RETURN(int32_t upper, ctx.Emit(TSR_OP_SELECT, {hi, minus, ctx.Scalar(dt, 0)}));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SELECT, {lo, plus, upper}));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterElementwiseConverters(ConverterTable& t) {
  t["Add"] = Direct(TSR_OP_ADD);
  t["Sub"] = Direct(TSR_OP_SUB);
  t["Mul"] = Direct(TSR_OP_MUL);
  t["Div"] = Direct(TSR_OP_DIV);
  t["Pow"] = Pow;
  t["Equal"] = Direct(TSR_OP_EQUAL);
  t["Less"] = Direct(TSR_OP_LESS);
  t["Greater"] = Direct(TSR_OP_GREATER);
  t["LessOrEqual"] = OrEqual(TSR_OP_LESS);
  t["GreaterOrEqual"] = OrEqual(TSR_OP_GREATER);
  t["Not"] = Not;
  t["And"] = Logical('&');
  t["Or"] = Logical('|');
  t["Xor"] = Logical('^');
  t["Where"] = Where;
  t["Max"] = Variadic(TSR_OP_MAXIMUM, false);
  t["Min"] = Variadic(TSR_OP_MINIMUM, false);
  t["Sum"] = Variadic(TSR_OP_ADD, false);
  t["Mean"] = Variadic(TSR_OP_ADD, true);
  t["Neg"] = Direct(TSR_OP_NEG);
  t["Abs"] = Direct(TSR_OP_ABS);
  t["Sqrt"] = Direct(TSR_OP_SQRT);
  t["Exp"] = Direct(TSR_OP_EXP);
  t["Log"] = Direct(TSR_OP_LOG);
  t["Sin"] = Direct(TSR_OP_SIN);
  t["Cos"] = Direct(TSR_OP_COS);
  t["Tan"] = Tan;
  t["Sinh"] = Hyperbolic(false);
  t["Cosh"] = Hyperbolic(true);
  t["Tanh"] = Direct(TSR_OP_TANH);
  t["Sigmoid"] = Direct(TSR_OP_SIGMOID);
  t["Relu"] = Direct(TSR_OP_RELU);
  t["Erf"] = Direct(TSR_OP_ERF);
  t["Reciprocal"] = Reciprocal;
  t["Sign"] = Sign;
  t["LeakyRelu"] = LeakyRelu;
  t["PRelu"] = PRelu;
  t["ThresholdedRelu"] = ThresholdedRelu;
  t["Elu"] = Elu;
  t["Selu"] = Selu;
  t["Celu"] = Celu;
  t["HardSigmoid"] = HardSigmoid;
  t["HardSwish"] = HardSwish;
  t["Softplus"] = Softplus;
  t["Mish"] = Mish;
  t["Gelu"] = Gelu;
  t["Softsign"] = Softsign;
  t["Clip"] = Clip;
  t["Cast"] = Cast;
  t["CastLike"] = CastLike;
  t["Identity"] = Identity;
  t["Dropout"] = Dropout;
  t["IsNaN"] = IsNaN;
  t["IsInf"] = IsInf;
  t["Shrink"] = Shrink;
}

}  // namespace tessera::onnx_import
