// CONV_2D, ONNX layout: X [N, C, H, W], W [M, C/groups, kH, kW], optional
// bias [M]; output [N, M, OH, OW] with
//   OH = floor((H + pad_top + pad_bottom - dh*(kH-1) - 1) / sh) + 1.
// Attributes: STRIDES [sh, sw] (1,1), DILATIONS [dh, dw] (1,1), PADS
// [top, left, bottom, right] (0s), GROUPS (1), ACTIVATION (NONE).
// Float: f64 accumulation, bias, activation, one rounding. i8/u8: the
// integer pipeline of fused.h with per-channel weights along axis 0.
#include "absl/strings/str_cat.h"
#include "support/reference_kernels/fixed_ints_attr.h"
#include "support/reference_kernels/fused.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

struct ConvGeometry {
  int64_t n, c, h, w;     // input
  int64_t m, cg, kh, kw;  // weights (cg = C / groups)
  int64_t groups;
  int64_t sh, sw, dh, dw;
  int64_t pt, pl, pb, pr;
  int64_t oh, ow;
};

absl::StatusOr<ConvGeometry> MakeGeometry(int32_t op, const Attributes& attrs, const TensorRef& x, const TensorRef& w) {
  if (x.shape.size() != 4 || w.shape.size() != 4)
    return OpError(op, absl::StrCat("input ", ShapeStr(x.shape), " and weights ", ShapeStr(w.shape),
                                    " must both be rank 4 (NCHW, MCkHkW)"));
  ConvGeometry g;
  g.n = x.shape[0];
  g.c = x.shape[1];
  g.h = x.shape[2];
  g.w = x.shape[3];
  g.m = w.shape[0];
  g.cg = w.shape[1];
  g.kh = w.shape[2];
  g.kw = w.shape[3];
  g.groups = attrs.GetInt(TSR_ATTR_GROUPS, 1);
  if (g.groups < 1 || g.c % g.groups != 0 || g.m % g.groups != 0)
    return OpError(op, absl::StrCat("groups ", g.groups, " must divide C=", g.c, " and M=", g.m));
  if (g.cg != g.c / g.groups)
    return OpError(op, absl::StrCat("weights dim 1 is ", g.cg, " but C/groups is ", g.c / g.groups));
  auto st = FixedIntsAttr(op, attrs, TSR_ATTR_STRIDES, "STRIDES", 2, 1, 1);
  if (!st.ok()) return st.status();
  auto dl = FixedIntsAttr(op, attrs, TSR_ATTR_DILATIONS, "DILATIONS", 2, 1, 1);
  if (!dl.ok()) return dl.status();
  auto pd = FixedIntsAttr(op, attrs, TSR_ATTR_PADS, "PADS", 4, 0, 0);
  if (!pd.ok()) return pd.status();
  g.sh = (*st)[0];
  g.sw = (*st)[1];
  g.dh = (*dl)[0];
  g.dw = (*dl)[1];
  g.pt = (*pd)[0];
  g.pl = (*pd)[1];
  g.pb = (*pd)[2];
  g.pr = (*pd)[3];
  const int64_t eh = g.h + g.pt + g.pb - g.dh * (g.kh - 1) - 1;
  const int64_t ew = g.w + g.pl + g.pr - g.dw * (g.kw - 1) - 1;
  if (eh < 0 || ew < 0 || g.kh < 1 || g.kw < 1)
    return OpError(op, absl::StrCat("kernel ", g.kh, "x", g.kw, " (dilated) exceeds padded input ", g.h + g.pt + g.pb,
                                    "x", g.w + g.pl + g.pr));
  g.oh = eh / g.sh + 1;
  g.ow = ew / g.sw + 1;
  return g;
}

// Calls fn(n, m, oh, ow, out_index) for every output and
// tap(x_index, w_index) for every in-bounds tap (padding contributes 0).
template <typename Begin, typename Tap, typename End>
void ForEachConvTap(const ConvGeometry& g, Begin begin, Tap tap, End end) {
  const int64_t mg = g.m / g.groups;
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t m = 0; m < g.m; ++m) {
      const int64_t grp = m / mg;
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          begin();
          for (int64_t ci = 0; ci < g.cg; ++ci) {
            const int64_t c = grp * g.cg + ci;
            for (int64_t i = 0; i < g.kh; ++i) {
              const int64_t ih = oh * g.sh - g.pt + i * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t iw = ow * g.sw - g.pl + j * g.dw;
                if (iw < 0 || iw >= g.w) continue;
                tap(((n * g.c + c) * g.h + ih) * g.w + iw, ((m * g.cg + ci) * g.kh + i) * g.kw + j);
              }
            }
          }
          end(m, ((n * g.m + m) * g.oh + oh) * g.ow + ow);
        }
    }
}

}  // namespace

absl::Status CheckConv2D(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 3, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  return CheckComputeTypes(op, inputs[0], inputs[1], IsPresent(inputs, 2) ? &inputs[2] : nullptr, outputs[0]);
}

absl::Status RunConv2D(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &w = inputs[1], &y = outputs[0];
  const TensorRef* bias = IsPresent(inputs, 2) ? &inputs[2] : nullptr;
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  auto g = MakeGeometry(op, attrs, x, w);
  if (!g.ok()) return g.status();
  const Shape out = {g->n, g->m, g->oh, g->ow};
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != g->m))
    return OpError(op, absl::StrCat("bias shape ", ShapeStr(bias->shape), " must be [", g->m, "]"));
  auto act = ParseActivation(op, attrs);
  if (!act.ok()) return act.status();

  if (IsFloatDType(x.dtype)) {
    const std::vector<float> X = LoadFloats(x), W = LoadFloats(w);
    const std::vector<float> B = bias ? LoadFloats(*bias) : std::vector<float>(g->m, 0.0f);
    double acc = 0;
    ForEachConvTap(
        *g, [&] { acc = 0; }, [&](int64_t xi, int64_t wi) { acc += static_cast<double>(X[xi]) * W[wi]; },
        [&](int64_t m, int64_t o) { StoreFloat(y, o, static_cast<float>(act->Apply(acc + B[m]))); });
    return absl::OkStatus();
  }

  auto p = MakeIntegerPipeline(op, x, w, y, 0, g->m, *act);
  if (!p.ok()) return p.status();
  std::vector<int32_t> X(x.element_count()), W(w.element_count());
  for (size_t i = 0; i < X.size(); ++i) X[i] = static_cast<int32_t>(LoadInt(x, i)) - p->x_zero_point;
  const int64_t per_m = g->cg * g->kh * g->kw;
  for (size_t i = 0; i < W.size(); ++i) W[i] = static_cast<int32_t>(LoadInt(w, i)) - p->w_zero_point[i / per_m];
  int64_t acc = 0;
  ForEachConvTap(
      *g, [&] { acc = 0; }, [&](int64_t xi, int64_t wi) { acc += static_cast<int64_t>(X[xi]) * W[wi]; },
      [&](int64_t m, int64_t o) {
        const int64_t bm = bias ? LoadInt(*bias, m) : 0;
        StoreInt(y, o, p->Finish(WrapToInt32(acc + bm), m));
      });
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
