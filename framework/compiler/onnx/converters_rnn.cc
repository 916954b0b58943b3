// Recurrent ONNX ops: RNN, GRU, LSTM. The op set has no recurrent op, and
// every shape is static after import, so the recurrence is unrolled over
// time: one input projection FULLY_CONNECTED for all steps, then per step a
// FULLY_CONNECTED of the hidden state, ADD, the gate activations, MUL/ADD
// for the state update, and CONCATs that assemble Y. sequence_lens becomes
// a per-step mask (SELECT): past a batch entry's length the state is held
// and Y is zero, which is also right for the reverse direction (its state
// stays the initial one until the entry's last valid step is reached).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// The unrolled graph grows with steps x directions (about 10-20 ops each);
// past this a crafted sequence length would make millions of ops.
constexpr int64_t kMaxUnrolledSteps = 4096;

enum class Cell { kRnn, kGru, kLstm };

struct Activation {
  std::string name;  // lower case
  float alpha = 0, beta = 0;
};

// The activations of the ONNX list that take alpha / beta, with the ONNX
// operator defaults.
bool TakesAlpha(const std::string& a) {
  return a == "leakyrelu" || a == "thresholdedrelu" || a == "scaledtanh" || a == "hardsigmoid" || a == "elu" ||
         a == "affine";
}
bool TakesBeta(const std::string& a) { return a == "scaledtanh" || a == "hardsigmoid" || a == "affine"; }
float DefaultAlpha(const std::string& a) {
  if (a == "leakyrelu") return 0.01f;
  if (a == "hardsigmoid") return 0.2f;
  return 1.0f;
}
float DefaultBeta(const std::string& a) { return a == "hardsigmoid" ? 0.5f : a == "affine" ? 0.0f : 1.0f; }

absl::StatusOr<int32_t> Apply(ImportContext& ctx, const Activation& a, int32_t x) {
  const int32_t dt = ctx.dtype(x);
  if (a.name == "sigmoid") return ctx.Unary(TSR_OP_SIGMOID, x);
  if (a.name == "tanh") return ctx.Unary(TSR_OP_TANH, x);
  if (a.name == "relu") return ctx.Unary(TSR_OP_RELU, x);
  if (a.name == "affine") {
    ASSIGN_OR_RETURN(int32_t m, ctx.BinaryScalar(TSR_OP_MUL, x, a.alpha));
    return ctx.BinaryScalar(TSR_OP_ADD, m, a.beta);
  }
  if (a.name == "scaledtanh") {
    ASSIGN_OR_RETURN(int32_t m, ctx.BinaryScalar(TSR_OP_MUL, x, a.beta));
    ASSIGN_OR_RETURN(int32_t t, ctx.Unary(TSR_OP_TANH, m));
    return ctx.BinaryScalar(TSR_OP_MUL, t, a.alpha);
  }
  if (a.name == "leakyrelu" || a.name == "thresholdedrelu" || a.name == "elu") {
    ASSIGN_OR_RETURN(int32_t below, a.name == "thresholdedrelu" ? ctx.Binary(TSR_OP_GREATER, x, ctx.Scalar(dt, a.alpha))
                                                                : ctx.Binary(TSR_OP_LESS, x, ctx.Scalar(dt, 0)));
    if (a.name == "thresholdedrelu") return ctx.Emit(TSR_OP_SELECT, {below, x, ctx.Scalar(dt, 0)});
    int32_t neg = -1;
    if (a.name == "leakyrelu") {
      ASSIGN_OR_RETURN(neg, ctx.BinaryScalar(TSR_OP_MUL, x, a.alpha));
    } else {
      ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
      ASSIGN_OR_RETURN(int32_t em1, ctx.BinaryScalar(TSR_OP_SUB, e, 1.0));
      ASSIGN_OR_RETURN(neg, ctx.BinaryScalar(TSR_OP_MUL, em1, a.alpha));
    }
    return ctx.Emit(TSR_OP_SELECT, {below, neg, x});
  }
  if (a.name == "hardsigmoid") {
    ASSIGN_OR_RETURN(int32_t m, ctx.BinaryScalar(TSR_OP_MUL, x, a.alpha));
    ASSIGN_OR_RETURN(int32_t s, ctx.BinaryScalar(TSR_OP_ADD, m, a.beta));
    return ctx.Emit(TSR_OP_CLIP, {s},
                    {{TSR_ATTR_CLIP_MIN, FloatsAttr({0.0f})}, {TSR_ATTR_CLIP_MAX, FloatsAttr({1.0f})}});
  }
  if (a.name == "softsign") {
    ASSIGN_OR_RETURN(int32_t ab, ctx.Unary(TSR_OP_ABS, x));
    ASSIGN_OR_RETURN(int32_t d, ctx.BinaryScalar(TSR_OP_ADD, ab, 1.0));
    return ctx.Binary(TSR_OP_DIV, x, d);
  }
  if (a.name == "softplus") {
    ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
    ASSIGN_OR_RETURN(int32_t e1, ctx.BinaryScalar(TSR_OP_ADD, e, 1.0));
    return ctx.Unary(TSR_OP_LOG, e1);
  }
  return Unsupported(absl::StrCat("activation '", a.name, "'"));
}

// The `activations` attribute, `per_direction` per direction (a list of
// one direction's worth is reused for both).
absl::StatusOr<std::vector<Activation>> Activations(const Node& n, Cell cell, int64_t directions) {
  const std::vector<std::string> defaults = cell == Cell::kRnn   ? std::vector<std::string>{"tanh"}
                                            : cell == Cell::kGru ? std::vector<std::string>{"sigmoid", "tanh"}
                                                                 : std::vector<std::string>{"sigmoid", "tanh", "tanh"};
  const size_t per = defaults.size();
  std::vector<std::string> names;
  if (const onnx::AttributeProto* a = n.Find("activations")) {
    for (const std::string& s : a->strings()) names.push_back(absl::AsciiStrToLower(s));
  }
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() == per && directions == 2) names.insert(names.end(), names.begin(), names.end());
  if (names.size() != per * static_cast<size_t>(directions))
    return absl::InvalidArgumentError(
        absl::StrCat("activations lists ", names.size(), " functions; want ", per, " per direction"));
  const std::vector<float> alphas = n.Floats("activation_alpha"), betas = n.Floats("activation_beta");
  size_t ai = 0, bi = 0;
  std::vector<Activation> out;
  for (const std::string& name : names) {
    Activation a{name, DefaultAlpha(name), DefaultBeta(name)};
    if (TakesAlpha(name) && ai < alphas.size()) a.alpha = alphas[ai++];
    if (TakesBeta(name) && bi < betas.size()) a.beta = betas[bi++];
    out.push_back(a);
  }
  return out;
}

struct Dims {
  int64_t steps, batch, input, hidden, directions, gates;
};

class Unroller {
 public:
  Unroller(ImportContext& ctx, const Node& n, Cell cell) : ctx_(ctx), n_(n), cell_(cell) {}

  Outputs Run() {
    RETURN_IF_ERROR(Setup());
    std::vector<std::vector<int32_t>> ys(dims_.directions);  // per direction, per time step: [B,H]
    std::vector<int32_t> hs, cs;
    for (int64_t d = 0; d < dims_.directions; ++d) {
      const bool reverse = direction_ == "reverse" || (direction_ == "bidirectional" && d == 1);
      RETURN_IF_ERROR(Direction(d, reverse, ys[d], hs, cs));
    }
    return Assemble(ys, hs, cs);
  }

 private:
  absl::Status Setup() {
    if (n_.Has("clip")) return Unsupported("attribute 'clip' (cell clipping)");
    layout_ = n_.Int("layout", 0);
    if (layout_ != 0 && layout_ != 1) return absl::InvalidArgumentError("layout must be 0 or 1");
    direction_ = n_.String("direction", "forward");
    if (direction_ != "forward" && direction_ != "reverse" && direction_ != "bidirectional")
      return absl::InvalidArgumentError(absl::StrCat("direction '", direction_, "' unknown"));
    ASSIGN_OR_RETURN(x_, Required(n_, 0));
    ASSIGN_OR_RETURN(w_, Required(n_, 1));
    ASSIGN_OR_RETURN(r_, Required(n_, 2));
    dt_ = ctx_.dtype(x_);
    if (dt_ != TSR_DTYPE_F32 && dt_ != TSR_DTYPE_F16) return Unsupported("a non-float input X");
    if (ctx_.rank(x_) != 3 || ctx_.rank(w_) != 3 || ctx_.rank(r_) != 3)
      return absl::InvalidArgumentError("X, W and R must be rank 3");
    dims_.directions = direction_ == "bidirectional" ? 2 : 1;
    dims_.gates = cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 3 : 4;
    const std::vector<int64_t>& xs = ctx_.shape(x_);
    dims_.steps = xs[layout_ == 0 ? 0 : 1];
    dims_.batch = xs[layout_ == 0 ? 1 : 0];
    dims_.input = xs[2];
    dims_.hidden = n_.Int("hidden_size", ctx_.shape(r_)[2]);
    // Bounded so gates x hidden cannot overflow (a real one is far smaller).
    if (dims_.hidden < 1 || dims_.hidden > (int64_t{1} << 31))
      return absl::InvalidArgumentError(absl::StrCat("hidden_size ", dims_.hidden, " out of range"));
    const int64_t gh = dims_.gates * dims_.hidden;
    if (ctx_.shape(w_) != std::vector<int64_t>{dims_.directions, gh, dims_.input} ||
        ctx_.shape(r_) != std::vector<int64_t>{dims_.directions, gh, dims_.hidden})
      return absl::InvalidArgumentError(absl::StrCat("W or R does not match ", dims_.directions, " direction(s), ",
                                                     dims_.gates, " gates of hidden size ", dims_.hidden,
                                                     " and input size ", dims_.input));
    if (dims_.steps * dims_.directions > kMaxUnrolledSteps)
      return absl::ResourceExhaustedError(absl::StrCat(dims_.steps, " time steps x ", dims_.directions,
                                                       " direction(s) exceed the unrolling limit of ",
                                                       kMaxUnrolledSteps, " steps"));
    if (dims_.steps == 0 || dims_.batch == 0) return Unsupported("an empty sequence or batch");
    RETURN_IF_ERROR(ReadActivations());
    if (cell_ == Cell::kLstm && n_.Int("input_forget", 0) != 0) input_forget_ = true;
    RETURN_IF_ERROR(ReadOptional());
    // layout 1 ([batch, seq, ...]) runs as layout 0 between TRANSPOSEs.
    if (layout_ == 1) {
      ASSIGN_OR_RETURN(x_, ctx_.Emit(TSR_OP_TRANSPOSE, {x_}, {{TSR_ATTR_PERM, IntsAttr({1, 0, 2})}}));
    }
    ASSIGN_OR_RETURN(x2d_, ctx_.Reshape(x_, {dims_.steps * dims_.batch, dims_.input}));
    return absl::OkStatus();
  }

  absl::Status ReadActivations() {
    ASSIGN_OR_RETURN(acts_, Activations(n_, cell_, dims_.directions));
    return absl::OkStatus();
  }

  // B, sequence_lens, initial_h, initial_c, P: inputs 3..7.
  absl::Status ReadOptional() {
    const int64_t h = dims_.hidden, nd = dims_.directions, b = dims_.batch;
    b_ = n_.input(3);
    if (b_ >= 0 && ctx_.shape(b_) != std::vector<int64_t>{nd, 2 * dims_.gates * h})
      return absl::InvalidArgumentError("B must be [num_directions, 2*gates*hidden_size]");
    lens_ = n_.input(4);
    if (lens_ >= 0) {
      if (ctx_.shape(lens_) != std::vector<int64_t>{b})
        return absl::InvalidArgumentError("sequence_lens must be [batch_size]");
      if (ctx_.dtype(lens_) != TSR_DTYPE_I32 && ctx_.dtype(lens_) != TSR_DTYPE_I64)
        return absl::InvalidArgumentError("sequence_lens must be int32");
      // All lengths equal to the sequence length: no masking needed.
      if (ctx_.IsConstant(lens_)) {
        ASSIGN_OR_RETURN(std::vector<int64_t> lens, ctx_.ConstInts(lens_, "sequence_lens"));
        for (int64_t l : lens)
          if (l < 0 || l > dims_.steps)
            return absl::InvalidArgumentError(absl::StrCat("sequence length ", l, " outside [0, ", dims_.steps, "]"));
        if (std::all_of(lens.begin(), lens.end(), [&](int64_t l) { return l == dims_.steps; })) lens_ = -1;
      }
    }
    const std::vector<int64_t> state = layout_ == 0 ? std::vector<int64_t>{nd, b, h} : std::vector<int64_t>{b, nd, h};
    for (int idx : {5, 6}) {
      int32_t& t = idx == 5 ? h0_ : c0_;
      t = n_.input(idx);
      if (t < 0) continue;
      if (idx == 6 && cell_ != Cell::kLstm) continue;
      if (ctx_.shape(t) != state)
        return absl::InvalidArgumentError(absl::StrCat(idx == 5 ? "initial_h" : "initial_c", " must be [", state[0],
                                                       ",", state[1], ",", state[2], "]"));
      if (layout_ == 1) {
        ASSIGN_OR_RETURN(t, ctx_.Emit(TSR_OP_TRANSPOSE, {t}, {{TSR_ATTR_PERM, IntsAttr({1, 0, 2})}}));
      }
    }
    if (cell_ == Cell::kLstm) {
      p_ = n_.input(7);
      if (p_ >= 0 && ctx_.shape(p_) != std::vector<int64_t>{nd, 3 * h})
        return absl::InvalidArgumentError("P must be [num_directions, 3*hidden_size]");
    }
    return absl::OkStatus();
  }

  // Row `d` of a [nd, ...] tensor, as [...].
  absl::StatusOr<int32_t> Row(int32_t t, int64_t d) {
    ASSIGN_OR_RETURN(int32_t s, SliceOp(ctx_, t, {d}, {d + 1}, {0}, {1}));
    std::vector<int64_t> shape(ctx_.shape(t).begin() + 1, ctx_.shape(t).end());
    return ctx_.Reshape(s, shape);
  }
  // Columns [begin, end) of the last axis.
  absl::StatusOr<int32_t> Cols(int32_t t, int64_t begin, int64_t end) {
    return SliceOp(ctx_, t, {begin}, {end}, {ctx_.rank(t) - 1}, {1});
  }
  absl::StatusOr<int32_t> Gate(int32_t t, int64_t g) { return Cols(t, g * dims_.hidden, (g + 1) * dims_.hidden); }
  absl::StatusOr<int32_t> Bin(int32_t op, int32_t a, int32_t b) { return ctx_.Binary(op, a, b); }
  absl::StatusOr<int32_t> Fc(int32_t x, int32_t w, int32_t bias = -1) {
    std::vector<int32_t> in{x, w};
    if (bias >= 0) in.push_back(bias);
    return ctx_.Emit(TSR_OP_FULLY_CONNECTED, in);
  }

  absl::Status Direction(int64_t d, bool reverse, std::vector<int32_t>& ys, std::vector<int32_t>& hs,
                         std::vector<int32_t>& cs) {
    const int64_t h = dims_.hidden, gh = dims_.gates * h, b = dims_.batch;
    const Activation* act = &acts_[d * (acts_.size() / dims_.directions)];
    ASSIGN_OR_RETURN(int32_t w, Row(w_, d));
    ASSIGN_OR_RETURN(int32_t r, Row(r_, d));
    // The input-side bias: Wb + Rb, except GRU's Rbh with
    // linear_before_reset, which belongs inside r * (H Rh^T + Rbh).
    const bool lbr = cell_ == Cell::kGru && n_.Int("linear_before_reset", 0) != 0;
    int32_t xbias = -1, rbh = -1;
    if (b_ >= 0) {
      ASSIGN_OR_RETURN(int32_t bd, Row(b_, d));
      ASSIGN_OR_RETURN(int32_t wb, Cols(bd, 0, gh));
      ASSIGN_OR_RETURN(int32_t rb, Cols(bd, gh, 2 * gh));
      if (lbr) {
        ASSIGN_OR_RETURN(rbh, Cols(rb, 2 * h, 3 * h));
        ASSIGN_OR_RETURN(int32_t rzr, Cols(rb, 0, 2 * h));
        ASSIGN_OR_RETURN(int32_t zero, ctx_.Filled(dt_, {h}, 0.0, "GRU bias"));
        ASSIGN_OR_RETURN(rb, ctx_.Emit(TSR_OP_CONCAT, {rzr, zero}, {{TSR_ATTR_AXIS, IntsAttr({0})}}));
      }
      ASSIGN_OR_RETURN(xbias, Bin(TSR_OP_ADD, wb, rb));
    }
    ASSIGN_OR_RETURN(int32_t xw, Fc(x2d_, w, xbias));
    ASSIGN_OR_RETURN(xw, ctx_.Reshape(xw, {dims_.steps, b, gh}));
    int32_t rzr = r, rh = -1;
    if (cell_ == Cell::kGru) {
      ASSIGN_OR_RETURN(rzr, SliceOp(ctx_, r, {0}, {2 * h}, {0}, {1}));
      ASSIGN_OR_RETURN(rh, SliceOp(ctx_, r, {2 * h}, {3 * h}, {0}, {1}));
    }
    int32_t pi = -1, po = -1, pf = -1;
    if (p_ >= 0) {
      ASSIGN_OR_RETURN(int32_t pd, Row(p_, d));
      ASSIGN_OR_RETURN(pi, Cols(pd, 0, h));
      ASSIGN_OR_RETURN(po, Cols(pd, h, 2 * h));
      ASSIGN_OR_RETURN(pf, Cols(pd, 2 * h, 3 * h));
    }
    int32_t hstate = -1, cstate = -1;
    if (h0_ >= 0) {
      ASSIGN_OR_RETURN(hstate, Row(h0_, d));
    } else {
      ASSIGN_OR_RETURN(hstate, ctx_.Filled(dt_, {b, h}, 0.0, "initial_h"));
    }
    if (cell_ == Cell::kLstm) {
      if (c0_ >= 0) {
        ASSIGN_OR_RETURN(cstate, Row(c0_, d));
      } else {
        ASSIGN_OR_RETURN(cstate, ctx_.Filled(dt_, {b, h}, 0.0, "initial_c"));
      }
    }
    ys.assign(dims_.steps, -1);
    const int64_t fold_base = ctx_.folded_bytes();
    const int32_t zero = ctx_.Scalar(dt_, 0.0);
    for (int64_t k = 0; k < dims_.steps; ++k) {
      const int64_t t = reverse ? dims_.steps - 1 - k : k;
      ASSIGN_OR_RETURN(int32_t xt, SliceOp(ctx_, xw, {t}, {t + 1}, {0}, {1}));
      ASSIGN_OR_RETURN(xt, ctx_.Reshape(xt, {b, gh}));
      int32_t hn = -1, cn = -1;
      if (cell_ == Cell::kRnn) {
        ASSIGN_OR_RETURN(int32_t hr, Fc(hstate, r));
        ASSIGN_OR_RETURN(int32_t s, Bin(TSR_OP_ADD, xt, hr));
        ASSIGN_OR_RETURN(hn, Apply(ctx_, act[0], s));
      } else if (cell_ == Cell::kGru) {
        ASSIGN_OR_RETURN(int32_t hr, Fc(hstate, rzr));
        ASSIGN_OR_RETURN(int32_t xzr, Cols(xt, 0, 2 * h));
        ASSIGN_OR_RETURN(int32_t zr, Bin(TSR_OP_ADD, xzr, hr));
        ASSIGN_OR_RETURN(int32_t z, Gate(zr, 0));
        ASSIGN_OR_RETURN(z, Apply(ctx_, act[0], z));
        ASSIGN_OR_RETURN(int32_t rg, Gate(zr, 1));
        ASSIGN_OR_RETURN(rg, Apply(ctx_, act[0], rg));
        ASSIGN_OR_RETURN(int32_t xh, Gate(xt, 2));
        int32_t hpart = -1;
        if (lbr) {
          ASSIGN_OR_RETURN(int32_t lin, Fc(hstate, rh, rbh));
          ASSIGN_OR_RETURN(hpart, Bin(TSR_OP_MUL, rg, lin));
        } else {
          ASSIGN_OR_RETURN(int32_t rhs, Bin(TSR_OP_MUL, rg, hstate));
          ASSIGN_OR_RETURN(hpart, Fc(rhs, rh));
        }
        ASSIGN_OR_RETURN(int32_t pre, Bin(TSR_OP_ADD, xh, hpart));
        ASSIGN_OR_RETURN(int32_t hh, Apply(ctx_, act[1], pre));
        // H = (1 - z) * hh + z * H
        ASSIGN_OR_RETURN(int32_t one_minus, ctx_.Binary(TSR_OP_SUB, ctx_.Scalar(dt_, 1.0), z));
        ASSIGN_OR_RETURN(int32_t a1, Bin(TSR_OP_MUL, one_minus, hh));
        ASSIGN_OR_RETURN(int32_t a2, Bin(TSR_OP_MUL, z, hstate));
        ASSIGN_OR_RETURN(hn, Bin(TSR_OP_ADD, a1, a2));
      } else {
        ASSIGN_OR_RETURN(int32_t hr, Fc(hstate, r));
        ASSIGN_OR_RETURN(int32_t g, Bin(TSR_OP_ADD, xt, hr));
        // Gate order in W, R, B: i, o, f, c; P: i, o, f.
        ASSIGN_OR_RETURN(int32_t i, Gate(g, 0));
        ASSIGN_OR_RETURN(int32_t o, Gate(g, 1));
        ASSIGN_OR_RETURN(int32_t f, Gate(g, 2));
        ASSIGN_OR_RETURN(int32_t c, Gate(g, 3));
        if (pi >= 0) {
          ASSIGN_OR_RETURN(int32_t pic, Bin(TSR_OP_MUL, pi, cstate));
          ASSIGN_OR_RETURN(i, Bin(TSR_OP_ADD, i, pic));
          ASSIGN_OR_RETURN(int32_t pfc, Bin(TSR_OP_MUL, pf, cstate));
          ASSIGN_OR_RETURN(f, Bin(TSR_OP_ADD, f, pfc));
        }
        ASSIGN_OR_RETURN(i, Apply(ctx_, act[0], i));
        if (input_forget_) {
          ASSIGN_OR_RETURN(f, ctx_.Binary(TSR_OP_SUB, ctx_.Scalar(dt_, 1.0), i));
        } else {
          ASSIGN_OR_RETURN(f, Apply(ctx_, act[0], f));
        }
        ASSIGN_OR_RETURN(c, Apply(ctx_, act[1], c));
        ASSIGN_OR_RETURN(int32_t fc, Bin(TSR_OP_MUL, f, cstate));
        ASSIGN_OR_RETURN(int32_t ic, Bin(TSR_OP_MUL, i, c));
        ASSIGN_OR_RETURN(cn, Bin(TSR_OP_ADD, fc, ic));
        if (po >= 0) {
          ASSIGN_OR_RETURN(int32_t poc, Bin(TSR_OP_MUL, po, cn));
          ASSIGN_OR_RETURN(o, Bin(TSR_OP_ADD, o, poc));
        }
        ASSIGN_OR_RETURN(o, Apply(ctx_, act[0], o));
        ASSIGN_OR_RETURN(int32_t hc, Apply(ctx_, act[2], cn));
        ASSIGN_OR_RETURN(hn, Bin(TSR_OP_MUL, o, hc));
      }
      int32_t y = hn;
      if (lens_ >= 0) {
        // Step t is valid for batch entry j iff t < sequence_lens[j].
        ASSIGN_OR_RETURN(int32_t valid, ctx_.Binary(TSR_OP_GREATER, lens_, ctx_.Scalar(ctx_.dtype(lens_), t)));
        ASSIGN_OR_RETURN(valid, ctx_.Reshape(valid, {b, 1}));
        ASSIGN_OR_RETURN(y, ctx_.Emit(TSR_OP_SELECT, {valid, hn, zero}));
        ASSIGN_OR_RETURN(hn, ctx_.Emit(TSR_OP_SELECT, {valid, hn, hstate}));
        if (cn >= 0) {
          ASSIGN_OR_RETURN(cn, ctx_.Emit(TSR_OP_SELECT, {valid, cn, cstate}));
        }
      }
      ys[t] = y;
      RETURN_IF_ERROR(CheckUnrolledFolding(ctx_, fold_base));
      hstate = hn;
      cstate = cn;
    }
    hs.push_back(hstate);
    cs.push_back(cstate);
    return absl::OkStatus();
  }

  // Stacks [B,H] pieces along a new axis 0 (with `inner` extra unit axes).
  absl::StatusOr<int32_t> Stack(const std::vector<int32_t>& parts, std::vector<int64_t> unit_shape) {
    std::vector<int32_t> in;
    for (int32_t p : parts) {
      ASSIGN_OR_RETURN(int32_t q, ctx_.Reshape(p, unit_shape));
      in.push_back(q);
    }
    if (in.size() == 1) return in[0];
    return ctx_.Emit(TSR_OP_CONCAT, in, {{TSR_ATTR_AXIS, IntsAttr({0})}});
  }

  Outputs Assemble(const std::vector<std::vector<int32_t>>& ys, const std::vector<int32_t>& hs,
                   const std::vector<int32_t>& cs) {
    const int64_t b = dims_.batch, h = dims_.hidden, nd = dims_.directions;
    std::vector<int32_t> outs(3, -1);
    if (n_.wants_output(0)) {
      // Y [T, nd, B, H]: per step, the directions stacked; then the steps.
      std::vector<int32_t> steps;
      for (int64_t t = 0; t < dims_.steps; ++t) {
        std::vector<int32_t> dirs;
        for (int64_t d = 0; d < nd; ++d) dirs.push_back(ys[d][t]);
        ASSIGN_OR_RETURN(int32_t s, Stack(dirs, {1, b, h}));
        steps.push_back(s);
      }
      ASSIGN_OR_RETURN(int32_t y, Stack(steps, {1, nd, b, h}));
      if (layout_ == 1) {
        ASSIGN_OR_RETURN(y, ctx_.Emit(TSR_OP_TRANSPOSE, {y}, {{TSR_ATTR_PERM, IntsAttr({2, 0, 1, 3})}}));
      }
      outs[0] = y;
    }
    for (int k : {1, 2}) {
      if (!n_.wants_output(k)) continue;
      if (k == 2 && cell_ != Cell::kLstm) return absl::InvalidArgumentError("only LSTM has output Y_c");
      ASSIGN_OR_RETURN(int32_t s, Stack(k == 1 ? hs : cs, {1, b, h}));
      if (layout_ == 1) {
        ASSIGN_OR_RETURN(s, ctx_.Emit(TSR_OP_TRANSPOSE, {s}, {{TSR_ATTR_PERM, IntsAttr({1, 0, 2})}}));
      }
      outs[k] = s;
    }
    return outs;
  }

  ImportContext& ctx_;
  const Node& n_;
  Cell cell_;
  Dims dims_{};
  std::vector<Activation> acts_;
  std::string direction_;
  int64_t layout_ = 0;
  bool input_forget_ = false;
  int32_t dt_ = 0;
  int32_t x_ = -1, w_ = -1, r_ = -1, b_ = -1, lens_ = -1, h0_ = -1, c0_ = -1, p_ = -1, x2d_ = -1;
};

Outputs Rnn(ImportContext& ctx, const Node& n) { return Unroller(ctx, n, Cell::kRnn).Run(); }
Outputs Gru(ImportContext& ctx, const Node& n) { return Unroller(ctx, n, Cell::kGru).Run(); }
Outputs Lstm(ImportContext& ctx, const Node& n) { return Unroller(ctx, n, Cell::kLstm).Run(); }

}  // namespace

void RegisterRnnConverters(ConverterTable& t) {
  t["RNN"] = Rnn;
  t["GRU"] = Gru;
  t["LSTM"] = Lstm;
}

}  // namespace tessera::onnx_import
