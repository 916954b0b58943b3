// GEMM and CONV_2D lowerings (see tiler.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "fp16.h"
#include "tiler.h"
#include "tiler_internal.h"

namespace tessera::systolic {
namespace {

using internal::CheckOffset;
using internal::SramMap;

absl::Status Invalid(const std::string& m) {
  return absl::InvalidArgumentError("systolic_npu tiler: " + m);
}

int32_t FloatBits(float f) {
  int32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Everything the core GEMM emitter needs, independent of FC vs conv.
struct GemmCore {
  int64_t M = 0, K = 0, N = 0;
  int32_t mdtype = TSR_DTYPE_F16;   // matrix-unit operand dtype
  int32_t io_dtype = TSR_DTYPE_F32; // DRAM dtype of A and the output
  // A source.
  bool im2col = false;
  uint8_t a_region = 0;
  uint64_t a_offset = 0, a_row_stride = 0;  // strided: elements per row
  uint32_t im2col_desc = kNoConstant;
  // Output (elements).
  uint8_t out_region = 0;
  uint64_t out_offset = 0, out_row_stride = 0, out_col_stride = 1;
  // Constant pool: per column tile, the K x nt weight panel and params.
  std::vector<uint32_t> panels, params;
  bool has_params = false;
  // Post-processing.
  Activation act = Activation::kNone;
  uint32_t clip_desc = kNoConstant;     // float path
  uint32_t requant_desc = kNoConstant;  // int8 path
};

// Quantization / weights of one GEMM as B[k][n] accessors.
struct WeightSource {
  std::function<float(int64_t k, int64_t n)> f;    // float path
  std::function<int8_t(int64_t k, int64_t n)> q;   // int8 path
};

struct Epilogue {
  const std::vector<float>* bias_f = nullptr;    // indexed by n + n_base
  const std::vector<int32_t>* bias_q = nullptr;
  const std::vector<float>* weight_scales = nullptr;
  int64_t n_base = 0;  // channel offset (conv groups)
  QuantSpec in_q, out_q;
  ActivationSpec act;
};

// Builds the constant pool entries (weight panels and per-tile params).
absl::Status PrepareConstants(GemmCore& g, const WeightSource& w,
                              const Epilogue& ep, const SystolicNpuConfig& npu,
                              Program& p) {
  const int64_t C = npu.array_cols;
  const bool q = g.mdtype == TSR_DTYPE_I8;
  for (int64_t n0 = 0; n0 < g.N; n0 += C) {
    const int64_t nj = std::min(C, g.N - n0);
    if (q) {
      std::vector<int8_t> panel(static_cast<size_t>(g.K * nj));
      std::vector<int32_t> params(static_cast<size_t>(3 * nj));
      for (int64_t n = 0; n < nj; ++n) {
        int64_t colsum = 0;
        for (int64_t k = 0; k < g.K; ++k) {
          const int8_t v = w.q(k, n0 + n);
          panel[k * nj + n] = v;
          colsum += v;
        }
        const int64_t ch = ep.n_base + n0 + n;
        const int64_t bias = ep.bias_q && !ep.bias_q->empty() ? (*ep.bias_q)[ch] : 0;
        // Fold the input zero point: sum (a - za) w = sum a w - za sum w.
        params[n] = static_cast<int32_t>(static_cast<uint32_t>(bias) -
                                         static_cast<uint32_t>(ep.in_q.zero_point * colsum));
        const float ws = ep.weight_scales->size() == 1 ? (*ep.weight_scales)[0]
                                                       : (*ep.weight_scales)[ch];
        const QuantizedMultiplier qm = QuantizeMultiplier(
            static_cast<double>(ep.in_q.scale) * ws / ep.out_q.scale);
        params[nj + n] = qm.multiplier;
        params[2 * nj + n] = qm.shift;
      }
      g.panels.push_back(p.AddData(panel.data(), panel.size(), TSR_DTYPE_I8));
      g.params.push_back(p.AddData(params.data(), params.size() * 4, TSR_DTYPE_I32));
      g.has_params = true;
    } else {
      std::vector<uint16_t> panel(static_cast<size_t>(g.K * nj));
      for (int64_t k = 0; k < g.K; ++k)
        for (int64_t n = 0; n < nj; ++n) panel[k * nj + n] = FloatToHalf(w.f(k, n0 + n));
      g.panels.push_back(p.AddData(panel.data(), panel.size() * 2, TSR_DTYPE_F16));
      if (ep.bias_f && !ep.bias_f->empty()) {
        std::vector<float> b(ep.bias_f->begin() + ep.n_base + n0,
                             ep.bias_f->begin() + ep.n_base + n0 + nj);
        g.params.push_back(p.AddData(b.data(), b.size() * 4, TSR_DTYPE_F32));
        g.has_params = true;
      }
    }
  }
  if (q) {
    const QuantRange r = QuantizedActivationRange(ep.act.kind, ep.act.clip_min, ep.act.clip_max,
                                                  ep.out_q.scale, ep.out_q.zero_point);
    g.requant_desc = p.AddDescriptor(ConstantKind::kRequantDesc,
                                     RequantDesc{ep.out_q.zero_point, r.min, r.max});
  } else {
    g.act = ep.act.kind;
    if (g.act == Activation::kClip)
      g.clip_desc = p.AddDescriptor(
          ConstantKind::kClipDesc,
          ClipDesc{FloatBits(ep.act.clip_min), FloatBits(ep.act.clip_max)});
  }
  return absl::OkStatus();
}

absl::Status EmitGemmCore(const GemmCore& g, const SystolicNpuConfig& npu,
                          const TilerOptions& opt, const Program& p,
                          EntryPoint& e) {
  const SramMap sm = internal::MakeSramMap(npu);
  const int64_t R = npu.array_rows, C = npu.array_cols;
  const bool q = g.mdtype == TSR_DTYPE_I8;
  const uint64_t es = NpuDtypeSize(g.mdtype);
  const uint64_t ie = NpuDtypeSize(g.io_dtype);
  const bool ws = opt.dataflow == Dataflow::kWeightStationary;
  const int64_t nt = std::min<int64_t>(g.N, C);
  int64_t mt = 0, kt = 0;
  if (ws) {
    kt = std::min<int64_t>(g.K, R);
    mt = std::min<int64_t>({g.M, static_cast<int64_t>(sm.in_half / (kt * es)),
                            static_cast<int64_t>(sm.acc_half / (nt * 4))});
    if (static_cast<uint64_t>(kt * nt) * es > sm.w_half) mt = 0;
  } else {
    mt = std::min<int64_t>(g.M, R);
    kt = std::min<int64_t>({g.K, static_cast<int64_t>(sm.in_half / (mt * es)),
                            static_cast<int64_t>(sm.w_half / (nt * es))});
    if (static_cast<uint64_t>(mt * nt) * 4 > sm.acc_half) kt = 0;
  }
  if (mt <= 0 || kt <= 0)
    return absl::ResourceExhaustedError(absl::StrCat(
        "systolic_npu tiler: a ", g.M, "x", g.K, "x", g.N, " GEMM tile does not fit the SRAM banks"));
  const bool strip = ws && static_cast<uint64_t>(g.K * nt) * es <= sm.w_half;
  const Dataflow df = opt.dataflow;
  int in_t = 0, w_t = 0, acc_t = 0, par_t = 0;
  for (int64_t n0 = 0, j = 0; n0 < g.N; n0 += C, ++j) {
    const uint32_t nj = static_cast<uint32_t>(std::min<int64_t>(C, g.N - n0));
    const uint64_t panel_off = p.constants[g.panels[j]].offset;
    const uint32_t par = sm.param(par_t);
    if (g.has_params) {
      par_t ^= 1;
      const Constant& pc = p.constants[g.params[j]];
      if (auto s = CheckOffset(pc.offset, "constant pool"); !s.ok()) return s;
      e.code.push_back(MakeDmaLoadStrided(par, 0, static_cast<uint32_t>(pc.offset), 1,
                                          q ? 3 * nj : nj, 0, 1, q ? TSR_DTYPE_I32 : TSR_DTYPE_F32,
                                          q ? TSR_DTYPE_I32 : TSR_DTYPE_F32));
    }
    if (auto s = CheckOffset(panel_off + g.K * nj * es, "constant pool"); !s.ok()) return s;
    uint32_t strip_buf = 0;
    if (strip) {
      strip_buf = sm.w(w_t);
      w_t ^= 1;
      e.code.push_back(MakeDmaLoadStrided(strip_buf, 0, static_cast<uint32_t>(panel_off),
                                          static_cast<uint32_t>(g.K), nj, nj, 1, g.mdtype,
                                          g.mdtype));
    }
    for (int64_t m0 = 0; m0 < g.M; m0 += mt) {
      const uint32_t mi = static_cast<uint32_t>(std::min<int64_t>(mt, g.M - m0));
      const uint32_t acc = sm.acc(acc_t);
      acc_t ^= 1;
      for (int64_t k0 = 0; k0 < g.K; k0 += kt) {
        const uint32_t ki = static_cast<uint32_t>(std::min<int64_t>(kt, g.K - k0));
        const uint32_t a = sm.in(in_t);
        in_t ^= 1;
        if (g.im2col) {
          e.code.push_back(MakeDmaLoadIm2col(a, g.a_region, static_cast<uint32_t>(g.a_offset), mi,
                                             ki, g.im2col_desc, static_cast<uint32_t>(m0),
                                             static_cast<uint32_t>(k0), g.io_dtype, g.mdtype));
        } else {
          const uint64_t off = g.a_offset + (m0 * g.a_row_stride + k0) * ie;
          if (auto s = CheckOffset(off, "input"); !s.ok()) return s;
          e.code.push_back(MakeDmaLoadStrided(a, g.a_region, static_cast<uint32_t>(off), mi, ki,
                                              static_cast<uint32_t>(g.a_row_stride), 1,
                                              g.io_dtype, g.mdtype));
        }
        uint32_t wt;
        if (strip) {
          wt = strip_buf + static_cast<uint32_t>(k0 * nj * es);
        } else {
          wt = sm.w(w_t);
          w_t ^= 1;
          e.code.push_back(MakeDmaLoadStrided(wt, 0,
                                              static_cast<uint32_t>(panel_off + k0 * nj * es), ki,
                                              nj, nj, 1, g.mdtype, g.mdtype));
        }
        e.code.push_back(MakeMatmulTile(static_cast<uint8_t>(df), g.mdtype, k0 > 0, a, wt, acc,
                                        mi, ki, nj));
      }
      int32_t store_dtype;
      if (q) {
        e.code.push_back(MakeVector(VectorOp::kBiasAdd, TSR_DTYPE_I32, TSR_DTYPE_I32, acc, par,
                                    acc, mi, nj));
        e.code.push_back(MakeVector(VectorOp::kRequantize, TSR_DTYPE_I32, TSR_DTYPE_I8, acc,
                                    par + nj * 4, acc, mi, nj, g.requant_desc));
        store_dtype = TSR_DTYPE_I8;
      } else {
        if (g.has_params)
          e.code.push_back(MakeVector(VectorOp::kBiasAdd, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, par,
                                      acc, mi, nj));
        if (g.act == Activation::kRelu)
          e.code.push_back(MakeVector(VectorOp::kRelu, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, 0, acc,
                                      mi, nj));
        if (g.act == Activation::kClip)
          e.code.push_back(MakeVector(VectorOp::kClip, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, 0, acc,
                                      mi, nj, g.clip_desc));
        store_dtype = TSR_DTYPE_F32;
      }
      const uint64_t off =
          g.out_offset + (m0 * g.out_row_stride + n0 * g.out_col_stride) * ie;
      if (auto s = CheckOffset(off, "output"); !s.ok()) return s;
      e.code.push_back(MakeDmaStore(acc, g.out_region, static_cast<uint32_t>(off), mi, nj,
                                    static_cast<uint32_t>(g.out_row_stride),
                                    static_cast<uint32_t>(g.out_col_stride), store_dtype,
                                    g.io_dtype));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCommon(int32_t dtype, int32_t weights_dtype, size_t weights_bytes,
                         int64_t weight_elems, int64_t channels,
                         const std::vector<float>& bias_f, const std::vector<int32_t>& bias_q,
                         const std::vector<float>& weight_scales, QuantSpec in_q,
                         QuantSpec out_q, const ActivationSpec& act) {
  if (dtype != TSR_DTYPE_F32 && dtype != TSR_DTYPE_F16 && dtype != TSR_DTYPE_I8)
    return Invalid("dtype must be f32, f16 or i8");
  const bool q = dtype == TSR_DTYPE_I8;
  if (q ? weights_dtype != TSR_DTYPE_I8
        : (weights_dtype != TSR_DTYPE_F32 && weights_dtype != TSR_DTYPE_F16))
    return Invalid("weights dtype does not match the layer dtype");
  if (weights_bytes != static_cast<size_t>(weight_elems) * NpuDtypeSize(weights_dtype))
    return Invalid(absl::StrCat("weights have ", weights_bytes, " bytes, want ",
                                weight_elems * NpuDtypeSize(weights_dtype)));
  if (q) {
    if (!bias_f.empty()) return Invalid("quantized layers take an int32 bias");
    if (!bias_q.empty() && static_cast<int64_t>(bias_q.size()) != channels)
      return Invalid("bias size does not match the output channels");
    if (weight_scales.size() != 1 && static_cast<int64_t>(weight_scales.size()) != channels)
      return Invalid("weight scales must be per-tensor or per-channel");
    for (float s : weight_scales)
      if (!(s > 0) || !std::isfinite(s)) return Invalid("weight scales must be positive");
    if (!(in_q.scale > 0) || !(out_q.scale > 0) || !std::isfinite(in_q.scale) ||
        !std::isfinite(out_q.scale))
      return Invalid("activation scales must be positive");
    if (in_q.zero_point < -128 || in_q.zero_point > 127 || out_q.zero_point < -128 ||
        out_q.zero_point > 127)
      return Invalid("zero points must be int8");
  } else {
    if (!bias_q.empty()) return Invalid("float layers take a float bias");
    if (!bias_f.empty() && static_cast<int64_t>(bias_f.size()) != channels)
      return Invalid("bias size does not match the output channels");
  }
  if (act.kind == Activation::kClip && !(act.clip_min <= act.clip_max))
    return Invalid("clip_min > clip_max");
  return absl::OkStatus();
}

float LoadWeight(const std::vector<uint8_t>& w, int32_t dtype, size_t i) {
  if (dtype == TSR_DTYPE_F16) {
    uint16_t h;
    std::memcpy(&h, w.data() + 2 * i, 2);
    return HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, w.data() + 4 * i, 4);
  return f;
}

}  // namespace

int64_t Conv2dLayer::out_h() const {
  return (in_h + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
}
int64_t Conv2dLayer::out_w() const {
  return (in_w + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
}

absl::Status EmitGemm(const GemmLayer& L, TensorRef input, TensorRef output,
                      const SystolicNpuConfig& npu, const TilerOptions& opt,
                      Program& p, EntryPoint& e) {
  const int64_t lim = int64_t{1} << 30;
  if (L.M < 1 || L.K < 1 || L.N < 1 || L.M > lim || L.K > lim || L.N > lim)
    return Invalid("GEMM dimensions must be in [1, 2^30]");
  if (auto s = CheckCommon(L.dtype, L.weights_dtype, L.weights.size(), L.K * L.N, L.N, L.bias_f,
                           L.bias_q, L.weight_scales, L.input_q, L.output_q, L.activation);
      !s.ok())
    return s;
  GemmCore g;
  g.M = L.M; g.K = L.K; g.N = L.N;
  g.mdtype = L.dtype == TSR_DTYPE_I8 ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
  g.io_dtype = L.dtype;
  g.a_region = input.region;
  g.a_offset = input.offset;
  g.a_row_stride = static_cast<uint64_t>(L.K);
  g.out_region = output.region;
  g.out_offset = output.offset;
  g.out_row_stride = static_cast<uint64_t>(L.N);
  g.out_col_stride = 1;
  const bool nk = L.weight_layout == WeightLayout::kNK;
  auto idx = [&](int64_t k, int64_t n) -> size_t {
    return static_cast<size_t>(nk ? n * L.K + k : k * L.N + n);
  };
  WeightSource ws;
  ws.f = [&](int64_t k, int64_t n) { return LoadWeight(L.weights, L.weights_dtype, idx(k, n)); };
  ws.q = [&](int64_t k, int64_t n) { return static_cast<int8_t>(L.weights[idx(k, n)]); };
  Epilogue ep{&L.bias_f, &L.bias_q, &L.weight_scales, 0, L.input_q, L.output_q, L.activation};
  if (auto s = PrepareConstants(g, ws, ep, npu, p); !s.ok()) return s;
  return EmitGemmCore(g, npu, opt, p, e);
}

absl::Status EmitConv2d(const Conv2dLayer& L, TensorRef input, TensorRef output,
                        const SystolicNpuConfig& npu, const TilerOptions& opt,
                        Program& p, EntryPoint& e) {
  const int64_t lim = int64_t{1} << 16;
  auto in_range = [&](int64_t v, int64_t lo) { return v >= lo && v <= lim; };
  if (!in_range(L.batch, 1) || !in_range(L.in_channels, 1) || !in_range(L.in_h, 1) ||
      !in_range(L.in_w, 1) || !in_range(L.out_channels, 1) || !in_range(L.kernel_h, 1) ||
      !in_range(L.kernel_w, 1) || !in_range(L.stride_h, 1) || !in_range(L.stride_w, 1) ||
      !in_range(L.dilation_h, 1) || !in_range(L.dilation_w, 1) || !in_range(L.pad_top, 0) ||
      !in_range(L.pad_left, 0) || !in_range(L.pad_bottom, 0) || !in_range(L.pad_right, 0) ||
      !in_range(L.groups, 1))
    return Invalid("conv attributes out of range");
  if (L.in_channels % L.groups || L.out_channels % L.groups)
    return Invalid("channels not divisible by groups");
  const int64_t OH = L.out_h(), OW = L.out_w();
  if (OH < 1 || OW < 1) return Invalid("conv output would be empty");
  const int64_t Cg = L.in_channels / L.groups, OCg = L.out_channels / L.groups;
  const int64_t K = Cg * L.kernel_h * L.kernel_w;
  if (auto s = CheckCommon(L.dtype, L.weights_dtype, L.weights.size(), L.out_channels * K,
                           L.out_channels, L.bias_f, L.bias_q, L.weight_scales, L.input_q,
                           L.output_q, L.activation);
      !s.ok())
    return s;
  const bool q = L.dtype == TSR_DTYPE_I8;
  const uint64_t ie = NpuDtypeSize(L.dtype);
  Im2colDesc d;
  d.channels = static_cast<int32_t>(Cg);
  d.in_h = static_cast<int32_t>(L.in_h);
  d.in_w = static_cast<int32_t>(L.in_w);
  d.kernel_h = static_cast<int32_t>(L.kernel_h);
  d.kernel_w = static_cast<int32_t>(L.kernel_w);
  d.stride_h = static_cast<int32_t>(L.stride_h);
  d.stride_w = static_cast<int32_t>(L.stride_w);
  d.dilation_h = static_cast<int32_t>(L.dilation_h);
  d.dilation_w = static_cast<int32_t>(L.dilation_w);
  d.pad_top = static_cast<int32_t>(L.pad_top);
  d.pad_left = static_cast<int32_t>(L.pad_left);
  d.out_h = static_cast<int32_t>(OH);
  d.out_w = static_cast<int32_t>(OW);
  d.pad_value = q ? L.input_q.zero_point : 0;  // zero (f16/f32 +0.0)
  d.channel_stride = static_cast<int32_t>(L.in_h * L.in_w);
  const uint32_t desc = p.AddDescriptor(ConstantKind::kIm2colDesc, d);
  for (int64_t gi = 0; gi < L.groups; ++gi) {
    GemmCore base;
    base.M = OH * OW; base.K = K; base.N = OCg;
    base.mdtype = q ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
    base.io_dtype = L.dtype;
    base.im2col = true;
    base.im2col_desc = desc;
    base.a_region = input.region;
    base.out_region = output.region;
    base.out_row_stride = 1;
    base.out_col_stride = static_cast<uint64_t>(OH * OW);
    WeightSource ws;
    ws.f = [&](int64_t k, int64_t n) {
      return LoadWeight(L.weights, L.weights_dtype, static_cast<size_t>((gi * OCg + n) * K + k));
    };
    ws.q = [&](int64_t k, int64_t n) {
      return static_cast<int8_t>(L.weights[static_cast<size_t>((gi * OCg + n) * K + k)]);
    };
    Epilogue ep{&L.bias_f, &L.bias_q, &L.weight_scales, gi * OCg, L.input_q, L.output_q,
                L.activation};
    if (auto s = PrepareConstants(base, ws, ep, npu, p); !s.ok()) return s;
    for (int64_t b = 0; b < L.batch; ++b) {
      GemmCore g = base;
      g.a_offset = input.offset + ((b * L.in_channels + gi * Cg) * L.in_h * L.in_w) * ie;
      g.out_offset = output.offset + ((b * L.out_channels + gi * OCg) * OH * OW) * ie;
      if (auto s = CheckOffset(g.a_offset, "input"); !s.ok()) return s;
      if (auto s = EmitGemmCore(g, npu, opt, p, e); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic
