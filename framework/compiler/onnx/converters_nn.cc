// Neural-network ONNX ops: MatMul, Gemm, Conv, ConvTranspose, pools, Softmax/LogSoftmax,
// LayerNormalization, BatchNormalization (inference), InstanceNormalization.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

Outputs MatMul(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t a, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t b, Required(n, 1));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_MATMUL, a, b));
  return std::vector<int32_t>{y};
}

absl::StatusOr<int32_t> Transpose2D(ImportContext& ctx, int32_t x) {
  return ctx.Emit(TSR_OP_TRANSPOSE, {x}, {{TSR_ATTR_PERM, IntsAttr({1, 0})}});
}

// Y = alpha * A' B' + beta * C -> FULLY_CONNECTED (bias folded in when
// alpha = beta = 1 and C is [N]) or MATMUL, plus TRANSPOSE/MUL/ADD.
Outputs Gemm(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t a, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t b, Required(n, 1));
  const int32_t c = n.input(2);
  const float alpha = n.Float("alpha", 1.0f), beta = n.Float("beta", 1.0f);
  const bool trans_a = n.Int("transA", 0) != 0, trans_b = n.Int("transB", 0) != 0;
  if (ctx.rank(a) != 2 || ctx.rank(b) != 2) return absl::InvalidArgumentError("Gemm needs 2-D A and B");
  if (trans_a) {
    ASSIGN_OR_RETURN(a, Transpose2D(ctx, a));
  }
  const int32_t dt = ctx.dtype(a);
  const bool is_float = dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16;
  int32_t y = -1;
  int32_t w = -1;  // [N, K] for FULLY_CONNECTED
  if (is_float) {
    if (trans_b)
      w = b;
    else if (ctx.IsConstant(b)) {
      ASSIGN_OR_RETURN(w, Transpose2D(ctx, b));
    }
  }
  const bool use_c = c >= 0 && beta != 0.0f;
  bool bias_done = false;
  if (w >= 0) {
    const int64_t out_n = ctx.shape(w)[0];
    const std::vector<int64_t>& cs = use_c ? ctx.shape(c) : std::vector<int64_t>{};
    const bool c_is_row =
        use_c && ((cs.size() == 1 && cs[0] == out_n) || (cs.size() == 2 && cs[0] == 1 && cs[1] == out_n));
    if (use_c && alpha == 1.0f && beta == 1.0f && c_is_row && ctx.dtype(c) == dt) {
      ASSIGN_OR_RETURN(int32_t bias, ctx.Reshape(c, {out_n}));
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_FULLY_CONNECTED, {a, w, bias}));
      bias_done = true;
    } else {
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_FULLY_CONNECTED, {a, w}));
    }
  } else {
    if (trans_b) {
      ASSIGN_OR_RETURN(b, Transpose2D(ctx, b));
    }
    ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_MATMUL, a, b));
  }
  if (!bias_done) {
    if (alpha != 1.0f) {
      ASSIGN_OR_RETURN(y, ctx.BinaryScalar(TSR_OP_MUL, y, alpha));
    }
    if (use_c) {
      int32_t cc = c;
      if (beta != 1.0f) {
        ASSIGN_OR_RETURN(cc, ctx.BinaryScalar(TSR_OP_MUL, c, beta));
      }
      ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_ADD, y, cc));
    }
  }
  return std::vector<int32_t>{y};
}

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
};

// Reads kernel/strides/dilations/pads/auto_pad for `spatial` dims of `x`.
absl::StatusOr<Window> ReadWindow(const ImportContext& ctx, const Node& n, int32_t x, std::vector<int64_t> kernel) {
  const int64_t spatial = ctx.rank(x) - 2;
  Window w;
  w.kernel = std::move(kernel);
  w.strides = n.Ints("strides");
  w.dilations = n.Ints("dilations");
  w.pads = n.Ints("pads");
  if (w.strides.empty()) w.strides.assign(spatial, 1);
  if (w.dilations.empty()) w.dilations.assign(spatial, 1);
  if (w.pads.empty()) w.pads.assign(2 * spatial, 0);
  if (static_cast<int64_t>(w.kernel.size()) != spatial || static_cast<int64_t>(w.strides.size()) != spatial ||
      static_cast<int64_t>(w.dilations.size()) != spatial || static_cast<int64_t>(w.pads.size()) != 2 * spatial)
    return absl::InvalidArgumentError("kernel_shape/strides/dilations/pads do not match the spatial rank");
  for (int64_t i = 0; i < spatial; ++i)
    if (w.strides[i] <= 0 || w.dilations[i] <= 0 || w.kernel[i] <= 0)
      return absl::InvalidArgumentError("kernel, strides and dilations must be positive");
  const std::string auto_pad = n.String("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatial; ++i) {
      const int64_t in = ctx.shape(x)[2 + i];
      const int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      const int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 - in);
      const int64_t small = total / 2, big = total - small;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      w.pads[i + spatial] = auto_pad == "SAME_UPPER" ? big : small;
    }
  } else if (auto_pad != "NOTSET") {
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  return w;
}

// 1-D windows run as 2-D with H = 1.
std::map<int32_t, Attribute> WindowAttrs(const Window& w, bool one_d) {
  std::map<int32_t, Attribute> a;
  if (one_d) {
    a[TSR_ATTR_STRIDES] = IntsAttr({1, w.strides[0]});
    a[TSR_ATTR_DILATIONS] = IntsAttr({1, w.dilations[0]});
    a[TSR_ATTR_PADS] = IntsAttr({0, w.pads[0], 0, w.pads[1]});
  } else {
    a[TSR_ATTR_STRIDES] = IntsAttr(w.strides);
    a[TSR_ATTR_DILATIONS] = IntsAttr(w.dilations);
    a[TSR_ATTR_PADS] = IntsAttr(w.pads);
  }
  return a;
}

absl::StatusOr<int32_t> Unsqueeze2(ImportContext& ctx, int32_t x) {
  std::vector<int64_t> s = ctx.shape(x);
  s.insert(s.begin() + 2, 1);
  return ctx.Reshape(x, s);
}

absl::StatusOr<int32_t> Squeeze2(ImportContext& ctx, int32_t x) {
  std::vector<int64_t> s = ctx.shape(x);
  s.erase(s.begin() + 2);
  return ctx.Reshape(x, s);
}

Outputs Conv(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t w, Required(n, 1));
  const int32_t bias = n.input(2);
  const int64_t rank = ctx.rank(x);
  if (rank != 3 && rank != 4)
    return Unsupported(absl::StrCat("Conv with ", rank - 2, " spatial dims unsupported (1-D and 2-D only)"));
  if (ctx.rank(w) != rank) return absl::InvalidArgumentError("weights rank differs from the input's");
  std::vector<int64_t> kernel(ctx.shape(w).begin() + 2, ctx.shape(w).end());
  if (n.Has("kernel_shape") && n.Ints("kernel_shape") != kernel)
    return absl::InvalidArgumentError("kernel_shape differs from the weights' shape");
  ASSIGN_OR_RETURN(Window win, ReadWindow(ctx, n, x, kernel));
  std::map<int32_t, Attribute> attrs = WindowAttrs(win, rank == 3);
  attrs[TSR_ATTR_GROUPS] = IntsAttr({n.Int("group", 1)});
  if (rank == 3) {
    ASSIGN_OR_RETURN(x, Unsqueeze2(ctx, x));
    ASSIGN_OR_RETURN(w, Unsqueeze2(ctx, w));
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CONV_2D, {x, w, bias}, attrs));
  if (rank == 3) {
    ASSIGN_OR_RETURN(y, Squeeze2(ctx, y));
  }
  return std::vector<int32_t>{y};
}

// ConvTranspose (1-D, 2-D) -> CONV_TRANSPOSE_2D. output_shape and auto_pad
// become explicit pads: total = s(in-1) + output_padding + d(k-1) + 1 -
// out, the odd one at the end (SAME_UPPER, NOTSET) or start (SAME_LOWER),
// as ONNX's test data has it; a negative total (an output larger than
// the full one) becomes extra output padding at the end.
Outputs ConvTranspose(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t w, Required(n, 1));
  const int32_t bias = n.input(2);
  const int64_t rank = ctx.rank(x);
  if (rank != 3 && rank != 4)
    return Unsupported(absl::StrCat("ConvTranspose with ", rank - 2, " spatial dims unsupported (1-D and 2-D only)"));
  if (ctx.rank(w) != rank) return absl::InvalidArgumentError("weights rank differs from the input's");
  const int64_t spatial = rank - 2;
  std::vector<int64_t> kernel(ctx.shape(w).begin() + 2, ctx.shape(w).end());
  if (n.Has("kernel_shape") && n.Ints("kernel_shape") != kernel)
    return absl::InvalidArgumentError("kernel_shape differs from the weights' shape");
  std::vector<int64_t> strides = n.Ints("strides"), dil = n.Ints("dilations"), pads = n.Ints("pads"),
                       opad = n.Ints("output_padding"), out_shape = n.Ints("output_shape");
  if (strides.empty()) strides.assign(spatial, 1);
  if (dil.empty()) dil.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (opad.empty()) opad.assign(spatial, 0);
  if (static_cast<int64_t>(out_shape.size()) == rank) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (static_cast<int64_t>(strides.size()) != spatial || static_cast<int64_t>(dil.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial || static_cast<int64_t>(opad.size()) != spatial ||
      (!out_shape.empty() && static_cast<int64_t>(out_shape.size()) != spatial))
    return absl::InvalidArgumentError(
        "strides/dilations/pads/output_padding/output_shape do not match the spatial rank");
  constexpr int64_t kLimit = int64_t{1} << 31;  // keeps the arithmetic below in int64
  for (int64_t i = 0; i < spatial; ++i)
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0 || strides[i] > kLimit || dil[i] > kLimit ||
        kernel[i] > kLimit || opad[i] < 0 || opad[i] > kLimit ||
        (!out_shape.empty() && (out_shape[i] < 1 || out_shape[i] > kLimit)))
      return absl::InvalidArgumentError("kernel, strides, dilations, output_padding or output_shape out of range");
  const std::string auto_pad = n.String("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  if (auto_pad == "VALID") pads.assign(2 * spatial, 0);
  if (out_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (int64_t i = 0; i < spatial; ++i) out_shape.push_back(ctx.shape(x)[2 + i] * strides[i]);
  if (!out_shape.empty()) {
    for (int64_t i = 0; i < spatial; ++i) {
      const int64_t full = strides[i] * (ctx.shape(x)[2 + i] - 1) + opad[i] + dil[i] * (kernel[i] - 1) + 1;
      const int64_t total = full - out_shape[i];
      if (total < 0) {
        pads[i] = pads[i + spatial] = 0;
        opad[i] -= total;
        continue;
      }
      const int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_LOWER" ? big : small;
      pads[i + spatial] = auto_pad == "SAME_LOWER" ? small : big;
    }
  }
  std::map<int32_t, Attribute> attrs;
  attrs[TSR_ATTR_GROUPS] = IntsAttr({n.Int("group", 1)});
  if (rank == 3) {
    attrs[TSR_ATTR_STRIDES] = IntsAttr({1, strides[0]});
    attrs[TSR_ATTR_DILATIONS] = IntsAttr({1, dil[0]});
    attrs[TSR_ATTR_PADS] = IntsAttr({0, pads[0], 0, pads[1]});
    attrs[TSR_ATTR_OUTPUT_PADDING] = IntsAttr({0, opad[0]});
    ASSIGN_OR_RETURN(x, Unsqueeze2(ctx, x));
    ASSIGN_OR_RETURN(w, Unsqueeze2(ctx, w));
  } else {
    attrs[TSR_ATTR_STRIDES] = IntsAttr(strides);
    attrs[TSR_ATTR_DILATIONS] = IntsAttr(dil);
    attrs[TSR_ATTR_PADS] = IntsAttr(pads);
    attrs[TSR_ATTR_OUTPUT_PADDING] = IntsAttr(opad);
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CONV_TRANSPOSE_2D, {x, w, bias}, attrs));
  if (rank == 3) {
    ASSIGN_OR_RETURN(y, Squeeze2(ctx, y));
  }
  return std::vector<int32_t>{y};
}

Converter Pool(int32_t op_type) {
  return [op_type](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    const int64_t rank = ctx.rank(x);
    if (rank != 3 && rank != 4)
      return Unsupported(absl::StrCat(n.op_type(), " with ", rank - 2, " spatial dims unsupported (1-D and 2-D only)"));
    if (n.wants_output(1)) return Unsupported("MaxPool Indices output unsupported");
    ASSIGN_OR_RETURN(Window win, ReadWindow(ctx, n, x, n.Ints("kernel_shape")));
    std::map<int32_t, Attribute> attrs = WindowAttrs(win, rank == 3);
    attrs[TSR_ATTR_KERNEL_SHAPE] = rank == 3 ? IntsAttr({1, win.kernel[0]}) : IntsAttr(win.kernel);
    attrs[TSR_ATTR_CEIL_MODE] = IntsAttr({n.Int("ceil_mode", 0)});
    if (op_type == TSR_OP_AVG_POOL_2D) attrs[TSR_ATTR_COUNT_INCLUDE_PAD] = IntsAttr({n.Int("count_include_pad", 0)});
    if (rank == 3) {
      ASSIGN_OR_RETURN(x, Unsqueeze2(ctx, x));
    }
    ASSIGN_OR_RETURN(int32_t y, ctx.Emit(op_type, {x}, attrs));
    if (rank == 3) {
      ASSIGN_OR_RETURN(y, Squeeze2(ctx, y));
    }
    return std::vector<int32_t>{y};
  };
}

Outputs GlobalAveragePool(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t y, ctx.Unary(TSR_OP_GLOBAL_AVG_POOL, x));
  return std::vector<int32_t>{y};
}

Outputs GlobalMaxPool(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (ctx.rank(x) < 3) return absl::InvalidArgumentError("input rank must be >= 3");
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < ctx.rank(x); ++i) axes.push_back(i);
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_REDUCE_MAX, {x},
                                       {{TSR_ATTR_AXES, IntsAttr(axes)}, {TSR_ATTR_KEEP_DIMS, IntsAttr({1})}}));
  return std::vector<int32_t>{y};
}

// Softmax / LogSoftmax. Opset >= 13: along `axis` (default -1). Older:
// the input is coerced to 2-D [prod(:axis), prod(axis:)] (default axis 1),
// so RESHAPE + SOFTMAX(axis 1) + RESHAPE.
Converter Softmax(bool log) {
  return [log](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    const std::vector<int64_t> shape = ctx.shape(x);
    const int64_t rank = ctx.rank(x);
    int32_t y = -1;
    if (ctx.opset() >= 13) {
      ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", -1), rank));
      ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_SOFTMAX, {x}, {{TSR_ATTR_AXIS, IntsAttr({axis})}}));
    } else {
      int64_t axis = n.Int("axis", 1);
      if (axis < -rank || axis > rank) return absl::InvalidArgumentError("axis out of range");
      if (axis < 0) axis += rank;
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= shape[i];
      ASSIGN_OR_RETURN(int32_t flat, ctx.Reshape(x, {outer, inner}));
      ASSIGN_OR_RETURN(int32_t s, ctx.Emit(TSR_OP_SOFTMAX, {flat}, {{TSR_ATTR_AXIS, IntsAttr({1})}}));
      ASSIGN_OR_RETURN(y, ctx.Reshape(s, shape));
    }
    if (log) {
      ASSIGN_OR_RETURN(y, ctx.Unary(TSR_OP_LOG, y));
    }
    return std::vector<int32_t>{y};
  };
}

Outputs LayerNormalization(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t scale, Required(n, 1));
  const int32_t bias = n.input(2);
  const int64_t rank = ctx.rank(x);
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", -1), rank));
  if (n.Int("stash_type", 1) != 1) return Unsupported("LayerNormalization stash_type other than float unsupported");
  std::map<int32_t, Attribute> attrs{{TSR_ATTR_AXIS, IntsAttr({axis})},
                                     {TSR_ATTR_EPSILON, FloatsAttr({n.Float("epsilon", 1e-5f)})}};
  std::vector<TensorType> outs{{ctx.dtype(x), ctx.shape(x)}};
  std::vector<int64_t> stat_shape(ctx.shape(x).begin(), ctx.shape(x).begin() + axis);
  stat_shape.resize(rank, 1);
  const bool stats = n.wants_output(1) || n.wants_output(2);
  if (stats) {
    outs.push_back({TSR_DTYPE_F32, stat_shape});
    outs.push_back({TSR_DTYPE_F32, stat_shape});
  }
  std::vector<int32_t> inputs{x, scale};
  if (bias >= 0) inputs.push_back(bias);
  ASSIGN_OR_RETURN(std::vector<int32_t> ys, ctx.EmitTyped(TSR_OP_LAYER_NORM, inputs, attrs, outs));
  return ys;
}

// Per-channel parameter [C] reshaped to broadcast against [N, C, d1, ...].
absl::StatusOr<int32_t> ChannelParam(ImportContext& ctx, int32_t p, int64_t rank) {
  std::vector<int64_t> s = {ctx.tensor(p).element_count()};
  for (int64_t i = 2; i < rank; ++i) s.push_back(1);
  return ctx.Reshape(p, s);
}

// y = (x - mean) / sqrt(var + eps) * scale + B (the ONNX reference order);
// constant parameters fold into constants.
Outputs BatchNormalization(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (n.Int("training_mode", 0) != 0) return Unsupported("BatchNormalization training_mode=1 unsupported");
  if (n.Int("spatial", 1) == 0) return Unsupported("BatchNormalization spatial=0 unsupported");
  if (n.Has("is_test") && n.Int("is_test", 1) == 0) return Unsupported("BatchNormalization is_test=0 unsupported");
  for (size_t i = 1; i < n.output_count(); ++i)
    if (n.wants_output(i)) return Unsupported("BatchNormalization running statistics outputs unsupported");
  const int64_t rank = ctx.rank(x);
  if (rank < 2) return absl::InvalidArgumentError("input rank must be >= 2");
  std::vector<int32_t> p(4);
  for (int i = 0; i < 4; ++i) {
    ASSIGN_OR_RETURN(int32_t t, Required(n, i + 1));
    ASSIGN_OR_RETURN(p[i], ChannelParam(ctx, t, rank));
  }
  ASSIGN_OR_RETURN(int32_t var_eps, ctx.BinaryScalar(TSR_OP_ADD, p[3], n.Float("epsilon", 1e-5f)));
  ASSIGN_OR_RETURN(int32_t stddev, ctx.Unary(TSR_OP_SQRT, var_eps));
  ASSIGN_OR_RETURN(int32_t centered, ctx.Binary(TSR_OP_SUB, x, p[2]));
  ASSIGN_OR_RETURN(int32_t normalized, ctx.Binary(TSR_OP_DIV, centered, stddev));
  ASSIGN_OR_RETURN(int32_t scaled, ctx.Binary(TSR_OP_MUL, normalized, p[0]));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_ADD, scaled, p[1]));
  return std::vector<int32_t>{y};
}

Outputs InstanceNormalization(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t scale, Required(n, 1));
  ASSIGN_OR_RETURN(int32_t bias, Required(n, 2));
  const int64_t rank = ctx.rank(x);
  if (rank < 3) return absl::InvalidArgumentError("input rank must be >= 3");
  std::vector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  std::map<int32_t, Attribute> reduce{{TSR_ATTR_AXES, IntsAttr(axes)}, {TSR_ATTR_KEEP_DIMS, IntsAttr({1})}};
  ASSIGN_OR_RETURN(int32_t mean, ctx.Emit(TSR_OP_REDUCE_MEAN, {x}, reduce));
  ASSIGN_OR_RETURN(int32_t centered, ctx.Binary(TSR_OP_SUB, x, mean));
  ASSIGN_OR_RETURN(int32_t sq, ctx.Binary(TSR_OP_MUL, centered, centered));
  ASSIGN_OR_RETURN(int32_t var, ctx.Emit(TSR_OP_REDUCE_MEAN, {sq}, reduce));
  ASSIGN_OR_RETURN(int32_t var_eps, ctx.BinaryScalar(TSR_OP_ADD, var, n.Float("epsilon", 1e-5f)));
  ASSIGN_OR_RETURN(int32_t stddev, ctx.Unary(TSR_OP_SQRT, var_eps));
  ASSIGN_OR_RETURN(int32_t normalized, ctx.Binary(TSR_OP_DIV, centered, stddev));
  ASSIGN_OR_RETURN(int32_t s, ChannelParam(ctx, scale, rank));
  ASSIGN_OR_RETURN(int32_t b, ChannelParam(ctx, bias, rank));
  ASSIGN_OR_RETURN(int32_t scaled, ctx.Binary(TSR_OP_MUL, normalized, s));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_ADD, scaled, b));
  return std::vector<int32_t>{y};
}

// MeanVarianceNormalization (the ONNX function body): (x - E[x]) /
// (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (default 0, 2, 3).
Outputs MeanVarianceNormalization(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  std::vector<int64_t> axes = n.Has("axes") ? n.Ints("axes") : std::vector<int64_t>{0, 2, 3};
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(a, ctx.rank(x)));
  }
  std::map<int32_t, Attribute> reduce{{TSR_ATTR_AXES, IntsAttr(axes)}, {TSR_ATTR_KEEP_DIMS, IntsAttr({1})}};
  ASSIGN_OR_RETURN(int32_t mean, ctx.Emit(TSR_OP_REDUCE_MEAN, {x}, reduce));
  ASSIGN_OR_RETURN(int32_t mean_sq, ctx.Binary(TSR_OP_MUL, mean, mean));
  ASSIGN_OR_RETURN(int32_t x_sq, ctx.Binary(TSR_OP_MUL, x, x));
  ASSIGN_OR_RETURN(int32_t e_x_sq, ctx.Emit(TSR_OP_REDUCE_MEAN, {x_sq}, reduce));
  ASSIGN_OR_RETURN(int32_t var, ctx.Binary(TSR_OP_SUB, e_x_sq, mean_sq));
  ASSIGN_OR_RETURN(int32_t stddev, ctx.Unary(TSR_OP_SQRT, var));
  ASSIGN_OR_RETURN(int32_t denom, ctx.BinaryScalar(TSR_OP_ADD, stddev, 1e-9));
  ASSIGN_OR_RETURN(int32_t centered, ctx.Binary(TSR_OP_SUB, x, mean));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_DIV, centered, denom));
  return std::vector<int32_t>{y};
}

// LRN: x / (bias + alpha/size * sum of x^2 over a window of `size`
// channels)^beta. The channel-window sum is an AVG_POOL_2D (count_include_pad)
// over [N, 1, C, rest] times `size`.
Outputs Lrn(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (ctx.rank(x) < 3) return absl::InvalidArgumentError("LRN needs rank >= 3");
  const int64_t size = n.Int("size", 0);
  if (size <= 0) return absl::InvalidArgumentError("LRN size must be positive");
  const float alpha = n.Float("alpha", 1e-4f), beta = n.Float("beta", 0.75f), bias = n.Float("bias", 1.0f);
  const std::vector<int64_t> shape = ctx.shape(x);
  int64_t rest = 1;
  for (size_t i = 2; i < shape.size(); ++i) rest *= shape[i];
  ASSIGN_OR_RETURN(int32_t sq, ctx.Binary(TSR_OP_MUL, x, x));
  ASSIGN_OR_RETURN(int32_t r, ctx.Reshape(sq, {shape[0], 1, shape[1], rest}));
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  ASSIGN_OR_RETURN(int32_t avg, ctx.Emit(TSR_OP_AVG_POOL_2D, {r},
                                         {{TSR_ATTR_KERNEL_SHAPE, IntsAttr({size, 1})},
                                          {TSR_ATTR_PADS, IntsAttr({lo, 0, hi, 0})},
                                          {TSR_ATTR_COUNT_INCLUDE_PAD, IntsAttr({1})}}));
  ASSIGN_OR_RETURN(int32_t back, ctx.Reshape(avg, shape));
  // alpha/size * (avg * size) = alpha * avg.
  ASSIGN_OR_RETURN(int32_t scaled, ctx.BinaryScalar(TSR_OP_MUL, back, alpha));
  ASSIGN_OR_RETURN(int32_t biased, ctx.BinaryScalar(TSR_OP_ADD, scaled, bias));
  ASSIGN_OR_RETURN(int32_t denom, ctx.BinaryScalar(TSR_OP_POW, biased, beta));
  ASSIGN_OR_RETURN(int32_t y, ctx.Binary(TSR_OP_DIV, x, denom));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterNnConverters(ConverterTable& t) {
  t["MatMul"] = MatMul;
  t["Gemm"] = Gemm;
  t["Conv"] = Conv;
  t["ConvTranspose"] = ConvTranspose;
  t["MaxPool"] = Pool(TSR_OP_MAX_POOL_2D);
  t["AveragePool"] = Pool(TSR_OP_AVG_POOL_2D);
  t["GlobalAveragePool"] = GlobalAveragePool;
  t["GlobalMaxPool"] = GlobalMaxPool;
  t["Softmax"] = Softmax(false);
  t["LogSoftmax"] = Softmax(true);
  t["LayerNormalization"] = LayerNormalization;
  t["BatchNormalization"] = BatchNormalization;
  t["InstanceNormalization"] = InstanceNormalization;
  t["MeanVarianceNormalization"] = MeanVarianceNormalization;
  t["LRN"] = Lrn;
}

}  // namespace tessera::onnx_import
