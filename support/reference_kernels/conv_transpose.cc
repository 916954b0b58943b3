// CONV_TRANSPOSE_2D (ABI 1.3), ONNX ConvTranspose layout: X [N, C, H, W],
// W [C, M/groups, kH, kW], optional bias [M]; output [N, M, OH, OW] with
//   OH = sh·(H − 1) + dh·(kH − 1) + 1 + output_padding_h − pad_top − pad_bottom.
// Every input element scatters x·w onto output row ih·sh + i·dh − pad_top
// (same for columns); rows outside [0, OH) are dropped, and the
// output-padding rows receive no taps (bias only). Attributes: STRIDES,
// DILATIONS, PADS [top, left, bottom, right], OUTPUT_PADDING [oh, ow],
// GROUPS. Float only: f64 accumulation, one rounding.
#include "absl/strings/str_cat.h"
#include "support/math/checked_math.h"
#include "support/reference_kernels/fixed_ints_attr.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

struct TransposeGeometry {
  int64_t n, c, h, w, m, mg, kh, kw, groups;
  int64_t sh, sw, dh, dw, pt, pl;
  int64_t oh, ow;
};

constexpr int64_t kMaxWindowValue = int64_t{1} << 31;  // keeps the extent arithmetic in int64

// Output extent along one axis; nullopt when it overflows or is < 1.
std::optional<int64_t> TransposedExtent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t op, int64_t pb,
                                        int64_t pe) {
  auto a = checked::Mul<int64_t>(s, in - 1);
  auto b = checked::Mul<int64_t>(d, k - 1);
  if (!a || !b) return std::nullopt;
  auto sum = checked::Add(*a, *b);
  if (!sum) return std::nullopt;
  auto full = checked::Add(*sum, op + 1);
  if (!full) return std::nullopt;
  const int64_t out = *full - pb - pe;  // all terms bounded by 2^31 · 2^31 + 2^33
  if (out < 1) return std::nullopt;
  return out;
}

absl::StatusOr<TransposeGeometry> MakeTransposeGeometry(int32_t op, const Attributes& attrs, const TensorRef& x,
                                                        const TensorRef& w) {
  if (x.shape.size() != 4 || w.shape.size() != 4)
    return OpError(op, absl::StrCat("input ", ShapeStr(x.shape), " and weights ", ShapeStr(w.shape),
                                    " must both be rank 4 (NCHW, C M/g kH kW)"));
  TransposeGeometry g;
  g.n = x.shape[0];
  g.c = x.shape[1];
  g.h = x.shape[2];
  g.w = x.shape[3];
  g.mg = w.shape[1];
  g.kh = w.shape[2];
  g.kw = w.shape[3];
  g.groups = attrs.GetInt(TSR_ATTR_GROUPS, 1);
  if (g.groups < 1 || g.c % g.groups != 0)
    return OpError(op, absl::StrCat("groups ", g.groups, " must divide C=", g.c));
  if (w.shape[0] != g.c) return OpError(op, absl::StrCat("weights dim 0 is ", w.shape[0], " but C is ", g.c));
  if (g.kh < 1 || g.kw < 1 || g.mg < 1 || g.h < 1 || g.w < 1)
    return OpError(op, absl::StrCat("empty input ", ShapeStr(x.shape), " or weights ", ShapeStr(w.shape)));
  auto m = checked::Mul<int64_t>(g.mg, g.groups);
  if (!m) return OpError(op, "M/groups · groups overflows");
  g.m = *m;
  auto st = FixedIntsAttr(op, attrs, TSR_ATTR_STRIDES, "STRIDES", 2, 1, 1, kMaxWindowValue);
  if (!st.ok()) return st.status();
  auto dl = FixedIntsAttr(op, attrs, TSR_ATTR_DILATIONS, "DILATIONS", 2, 1, 1, kMaxWindowValue);
  if (!dl.ok()) return dl.status();
  auto pd = FixedIntsAttr(op, attrs, TSR_ATTR_PADS, "PADS", 4, 0, 0, kMaxWindowValue);
  if (!pd.ok()) return pd.status();
  auto opad = FixedIntsAttr(op, attrs, TSR_ATTR_OUTPUT_PADDING, "OUTPUT_PADDING", 2, 0, 0, kMaxWindowValue);
  if (!opad.ok()) return opad.status();
  g.sh = (*st)[0];
  g.sw = (*st)[1];
  g.dh = (*dl)[0];
  g.dw = (*dl)[1];
  g.pt = (*pd)[0];
  g.pl = (*pd)[1];
  auto oh = TransposedExtent(g.h, g.kh, g.sh, g.dh, (*opad)[0], (*pd)[0], (*pd)[2]);
  auto ow = TransposedExtent(g.w, g.kw, g.sw, g.dw, (*opad)[1], (*pd)[1], (*pd)[3]);
  if (!oh || !ow)
    return OpError(op, absl::StrCat("output extent of input ", ShapeStr(x.shape), " and kernel ", g.kh, "x", g.kw,
                                    " is empty or overflows with these pads, strides and dilations"));
  g.oh = *oh;
  g.ow = *ow;
  return g;
}

}  // namespace

absl::Status CheckConvTranspose2D(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 3, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (IsPresent(inputs[i]) && inputs[i].dtype != inputs[0].dtype)
      return OpError(
          op, absl::StrCat("input ", i, " is ", DTypeName(inputs[i].dtype), ", input 0 ", DTypeName(inputs[0].dtype)));
  if (!IsFloatDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype);
  if (outputs[0].dtype != inputs[0].dtype) return OpError(op, "output dtype must equal the input dtype");
  return absl::OkStatus();
}

absl::Status RunConvTranspose2D(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                                std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &w = inputs[1], &y = outputs[0];
  const TensorRef* bias = IsPresent(inputs, 2) ? &inputs[2] : nullptr;
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  auto g = MakeTransposeGeometry(op, attrs, x, w);
  if (!g.ok()) return g.status();
  const Shape out = {g->n, g->m, g->oh, g->ow};
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != g->m))
    return OpError(op, absl::StrCat("bias shape ", ShapeStr(bias->shape), " must be [", g->m, "]"));
  const std::vector<float> X = LoadFloats(x), W = LoadFloats(w);
  std::vector<double> acc(static_cast<size_t>(y.element_count()), 0.0);
  const int64_t cg = g->c / g->groups;
  for (int64_t n = 0; n < g->n; ++n)
    for (int64_t c = 0; c < g->c; ++c) {
      const int64_t grp = c / cg;
      for (int64_t ih = 0; ih < g->h; ++ih)
        for (int64_t iw = 0; iw < g->w; ++iw) {
          const double xv = X[((n * g->c + c) * g->h + ih) * g->w + iw];
          for (int64_t mi = 0; mi < g->mg; ++mi) {
            const int64_t m = grp * g->mg + mi;
            for (int64_t i = 0; i < g->kh; ++i) {
              const int64_t oh = ih * g->sh + i * g->dh - g->pt;
              if (oh < 0 || oh >= g->oh) continue;
              for (int64_t j = 0; j < g->kw; ++j) {
                const int64_t ow = iw * g->sw + j * g->dw - g->pl;
                if (ow < 0 || ow >= g->ow) continue;
                acc[((n * g->m + m) * g->oh + oh) * g->ow + ow] += xv * W[((c * g->mg + mi) * g->kh + i) * g->kw + j];
              }
            }
          }
        }
    }
  const int64_t plane = g->oh * g->ow;
  for (size_t o = 0; o < acc.size(); ++o) {
    const int64_t m = (static_cast<int64_t>(o) / plane) % g->m;
    const double b = bias ? LoadFloat(*bias, m) : 0.0;
    StoreFloat(y, static_cast<int64_t>(o), static_cast<float>(acc[o] + b));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
