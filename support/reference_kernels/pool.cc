// MAX_POOL_2D / AVG_POOL_2D on NCHW and GLOBAL_AVG_POOL (rank >= 3).
// Attributes: KERNEL_SHAPE [kh, kw] (required), STRIDES (1,1), PADS
// [top, left, bottom, right] (0s), DILATIONS (1,1), CEIL_MODE (0),
// COUNT_INCLUDE_PAD (avg, 0).
// Output size with e = d*(k-1)+1 and span = H + pt + pb - e:
//   floor mode: span / s + 1
//   ceil mode:  ceil(span / s) + 1, minus one when the last window would
//               start at or beyond H + pt (ONNX / PyTorch rule).
// Max pool never selects padding (NaN propagates). Avg pool divides by the
// number of in-bounds taps, or with COUNT_INCLUDE_PAD by the taps inside the
// padded extent [-pt, H + pb) (taps beyond that, possible in ceil mode,
// never count). Float sums are accumulated in f64.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"
#include "support/reference_kernels/quantized.h"

namespace tessera::cpu::internal {
namespace {

struct PoolAxis {
  int64_t in, k, s, d, pb, pe, out;
};

absl::StatusOr<PoolAxis> MakeAxis(int32_t op, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                                  bool ceil_mode) {
  PoolAxis a{in, k, s, d, pb, pe, 0};
  if (k < 1 || s < 1 || d < 1 || pb < 0 || pe < 0)
    return OpError(op, "kernel, strides and dilations must be >= 1, pads >= 0");
  const int64_t span = in + pb + pe - (d * (k - 1) + 1);
  if (span < 0) return OpError(op, absl::StrCat("window ", d * (k - 1) + 1, " exceeds padded input ", in + pb + pe));
  if (ceil_mode) {
    a.out = (span + s - 1) / s + 1;
    if ((a.out - 1) * s >= in + pb) --a.out;
  } else {
    a.out = span / s + 1;
  }
  return a;
}

absl::StatusOr<std::vector<int64_t>> IntsAttr(int32_t op, const Attributes& attrs, int32_t key, const char* name,
                                              size_t len, int64_t dflt, bool required) {
  auto v = attrs.GetInts(key);
  if (v.empty()) {
    if (required) return OpError(op, absl::StrCat(name, " is required"));
    return std::vector<int64_t>(len, dflt);
  }
  if (v.size() != len) return OpError(op, absl::StrCat(name, " must have ", len, " values, got ", v.size()));
  return std::vector<int64_t>(v.begin(), v.end());
}

}  // namespace

absl::Status CheckPool2D(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  bool ok = IsFloatDType(d);
  if (op == TSR_OP_MAX_POOL_2D) ok = ok || d == TSR_DTYPE_I8 || d == TSR_DTYPE_U8;
  if (!ok) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  return absl::OkStatus();
}

absl::Status RunPool2D(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  if (x.shape.size() != 4) return OpError(op, absl::StrCat("input must be NCHW, got ", ShapeStr(x.shape)));
  auto ks = IntsAttr(op, attrs, TSR_ATTR_KERNEL_SHAPE, "KERNEL_SHAPE", 2, 1, true);
  if (!ks.ok()) return ks.status();
  auto st = IntsAttr(op, attrs, TSR_ATTR_STRIDES, "STRIDES", 2, 1, false);
  if (!st.ok()) return st.status();
  auto dl = IntsAttr(op, attrs, TSR_ATTR_DILATIONS, "DILATIONS", 2, 1, false);
  if (!dl.ok()) return dl.status();
  auto pd = IntsAttr(op, attrs, TSR_ATTR_PADS, "PADS", 4, 0, false);
  if (!pd.ok()) return pd.status();
  const bool ceil_mode = attrs.GetInt(TSR_ATTR_CEIL_MODE, 0) != 0;
  const bool include_pad = attrs.GetInt(TSR_ATTR_COUNT_INCLUDE_PAD, 0) != 0;
  auto ah = MakeAxis(op, x.shape[2], (*ks)[0], (*st)[0], (*dl)[0], (*pd)[0], (*pd)[2], ceil_mode);
  if (!ah.ok()) return ah.status();
  auto aw = MakeAxis(op, x.shape[3], (*ks)[1], (*st)[1], (*dl)[1], (*pd)[1], (*pd)[3], ceil_mode);
  if (!aw.ok()) return aw.status();
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const Shape out = {N, C, ah->out, aw->out};
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const bool is_max = op == TSR_OP_MAX_POOL_2D;
  const bool is_float = IsFloatDType(x.dtype);

  for (int64_t nc = 0; nc < N * C; ++nc) {
    for (int64_t oh = 0; oh < ah->out; ++oh) {
      for (int64_t ow = 0; ow < aw->out; ++ow) {
        double fmax = -std::numeric_limits<double>::infinity();
        int64_t imax = IntDTypeMin(x.dtype);
        double sum = 0;
        int64_t n_in = 0, n_padded = 0;
        for (int64_t i = 0; i < ah->k; ++i) {
          const int64_t ih = oh * ah->s - ah->pb + i * ah->d;
          if (ih >= H + ah->pe) continue;  // beyond the padded extent
          for (int64_t j = 0; j < aw->k; ++j) {
            const int64_t iw = ow * aw->s - aw->pb + j * aw->d;
            if (iw >= W + aw->pe) continue;
            ++n_padded;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            ++n_in;
            const int64_t xi = (nc * H + ih) * W + iw;
            if (!is_float) {
              imax = std::max(imax, LoadInt(x, xi));
              continue;
            }
            const double v = LoadFloat(x, xi);
            if (is_max) {
              if (std::isnan(v) || v > fmax) fmax = std::isnan(fmax) ? fmax : v;
            } else {
              sum += v;
            }
          }
        }
        const int64_t o = (nc * ah->out + oh) * aw->out + ow;
        if (!is_float) {
          StoreInt(y, o, imax);
        } else if (is_max) {
          StoreFloat(y, o, static_cast<float>(fmax));
        } else {
          const int64_t div = include_pad ? n_padded : n_in;
          StoreFloat(y, o, static_cast<float>(sum / static_cast<double>(div)));
        }
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// docs/ops.md "Quantized GLOBAL_AVG_POOL": an exact int32 sum of (q - zp_x)
// per channel, then one fixed-point requantize by s_x / (count * s_y), the
// matmul/conv pipeline's MultiplyByQuantizedMultiplier (TFLite's int8 MEAN).
absl::Status RunQuantizedGlobalAvgPool(int32_t op, const TensorRef& x, const TensorRef& y, int64_t rows, int64_t per) {
  // 255 * per must stay an int32 sum (the accumulator the pipeline assumes).
  if (per < 1 || per > (int64_t{1} << 23))
    return OpError(op, absl::StrCat("quantized: ", per, " elements per channel (1 to 2^23, an int32 sum)"));
  auto zp = [](const TensorRef& t) -> int64_t { return t.quant.zero_points.empty() ? 0 : t.quant.zero_points[0]; };
  const QuantizedMultiplier m = QuantizeMultiplier(static_cast<double>(x.quant.scales[0]) /
                                                   (static_cast<double>(per) * static_cast<double>(y.quant.scales[0])));
  const int64_t xz = zp(x), yz = zp(y);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t acc = 0;
    for (int64_t i = 0; i < per; ++i) acc += LoadInt(x, r * per + i) - xz;
    const int64_t v = int64_t{MultiplyByQuantizedMultiplier(static_cast<int32_t>(acc), m)} + yz;
    StoreInt(y, r, SaturateTo(y.dtype, v));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckGlobalAvgPool(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  const bool quantized =
      (d == TSR_DTYPE_I8 || d == TSR_DTYPE_U8) && (inputs[0].quant.quantized() || outputs[0].quant.quantized());
  if (!IsFloatDType(d) && !quantized) return UnsupportedDType(op, d);
  if (quantized) {
    for (const TensorRef* t : {&inputs[0], &outputs[0]}) {
      if (t->quant.scales.size() != 1) return OpError(op, "quantized input and output need per-tensor quant params");
      if (!(t->quant.scales[0] > 0.0f) || !std::isfinite(t->quant.scales[0]))
        return OpError(op, "quantization scale must be finite and > 0");
    }
  }
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  return absl::OkStatus();
}

absl::Status RunGlobalAvgPool(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                              std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  if (x.shape.size() < 3) return OpError(op, absl::StrCat("input rank must be >= 3, got ", ShapeStr(x.shape)));
  Shape out(x.shape.size(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const int64_t rows = x.shape[0] * x.shape[1];
  const int64_t per = ShapeElements(std::span(x.shape).subspan(2));
  if (!IsFloatDType(x.dtype)) return RunQuantizedGlobalAvgPool(op, x, y, rows, per);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < per; ++i) sum += LoadFloat(x, r * per + i);
    StoreFloat(y, r, static_cast<float>(sum / static_cast<double>(per)));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
