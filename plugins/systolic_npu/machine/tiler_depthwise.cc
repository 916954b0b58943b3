#include "plugins/systolic_npu/machine/tiler_depthwise.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "plugins/systolic_npu/machine/tiler_gemm_core.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic::internal {

namespace {

// Input rows [lo, hi) that output rows [oh0, oh1) read.
struct Band {
  int64_t oh0 = 0, oh1 = 0, lo = 0, hi = 0;
};

Band BandOf(const Conv2dLayer& L, int64_t oh0, int64_t oh1) {
  Band b{oh0, oh1, 0, 0};
  b.lo = std::max<int64_t>(0, oh0 * L.stride_h - L.pad_top);
  b.hi = std::min<int64_t>(L.in_h, (oh1 - 1) * L.stride_h - L.pad_top + L.dilation_h * (L.kernel_h - 1) + 1);
  b.hi = std::max(b.hi, b.lo + 1);  // a band entirely in the padding still loads one row
  return b;
}

int64_t ChannelTile(const Conv2dLayer& L, const SystolicNpuConfig& npu) {
  return std::min<int64_t>(npu.array_cols, L.in_channels);
}

// Whether `rows` output rows of one channel tile fit half the input and
// accumulator banks (operands of `es` bytes; results 4 bytes).
bool BandFits(const Conv2dLayer& L, const SystolicNpuConfig& npu, int64_t rows) {
  const SramMap sm = MakeSramMap(npu);
  const uint64_t es = L.dtype == TSR_DTYPE_I8 ? 1 : 2;
  const uint64_t ct = static_cast<uint64_t>(ChannelTile(L, npu));
  const Band b = BandOf(L, 0, rows);
  const int64_t span = (rows - 1) * L.stride_h + L.dilation_h * (L.kernel_h - 1) + 1;
  const uint64_t in_rows = static_cast<uint64_t>(std::max(std::min<int64_t>(L.in_h, span), b.hi - b.lo));
  return in_rows * L.in_w * ct * es <= sm.in_half && static_cast<uint64_t>(rows * L.out_w()) * ct * 4 <= sm.acc_half &&
         static_cast<uint64_t>(L.kernel_h * L.kernel_w) * ct * es <= sm.w_half;
}

}  // namespace

bool IsVectorDepthwise(const Conv2dLayer& L, const SystolicNpuConfig& npu) {
  return L.groups > 1 && L.groups == L.in_channels && L.groups == L.out_channels &&
         L.weights_placement == OperandPlacement::kPretiled && L.bias_placement == OperandPlacement::kPretiled &&
         (L.out_h() - 1) * L.stride_h - L.pad_top < L.in_h &&  // every output row reads an input row
         BandFits(L, npu, 1);
}

absl::Status EmitDepthwiseConv(const Conv2dLayer& L, const LayerRefs& refs, const SystolicNpuConfig& npu, Program& p,
                               EntryPoint& e) {
  const bool q = L.dtype == TSR_DTYPE_I8;
  const int64_t C = L.in_channels, OH = L.out_h(), OW = L.out_w();
  const int64_t taps = L.kernel_h * L.kernel_w;
  GemmCore g;
  g.M = OH * OW;
  g.K = taps;
  g.N = C;
  g.mdtype = q ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
  g.io_dtype = L.dtype;
  // The panel of channel tile j is B[tap][channel]: conv weights
  // [C][1][kH][kW] read as W[n * taps + k].
  WeightAccessor w;
  w.f = [&](int64_t k, int64_t n) { return LoadWeight(L.weights, L.weights_dtype, static_cast<size_t>(n * taps + k)); };
  w.q = [&](int64_t k, int64_t n) { return static_cast<int8_t>(L.weights[static_cast<size_t>(n * taps + k)]); };
  const Epilogue ep{&L.bias_f, &L.bias_q, &L.weight_scales, 0, L.input_q, L.output_q, L.activation};
  PrepareConstants(g, w, ep, npu, p);

  const SramMap sm = MakeSramMap(npu);
  const uint64_t es = NpuDtypeSize(g.mdtype), ie = NpuDtypeSize(L.dtype);
  const int64_t ct = ChannelTile(L, npu);
  // The most output rows per band that fit (IsVectorDepthwise: one does).
  auto fits = [&](int64_t rows) { return BandFits(L, npu, rows); };
  int64_t band = 1;
  while (band < OH && fits(band * 2)) band *= 2;
  while (band < OH && fits(band + 1)) ++band;

  std::map<std::tuple<int64_t, int64_t, int64_t>, uint32_t> descs;  // (rows, pad_top, out rows)
  auto desc_of = [&](const Band& b) {
    const int64_t pad_top = L.pad_top + b.lo - b.oh0 * L.stride_h;
    auto [it, fresh] = descs.try_emplace({b.hi - b.lo, pad_top, b.oh1 - b.oh0}, 0);
    if (fresh) {
      PoolDesc d;
      d.in_h = static_cast<int32_t>(b.hi - b.lo);
      d.in_w = static_cast<int32_t>(L.in_w);
      d.kernel_h = static_cast<int32_t>(L.kernel_h);
      d.kernel_w = static_cast<int32_t>(L.kernel_w);
      d.stride_h = static_cast<int32_t>(L.stride_h);
      d.stride_w = static_cast<int32_t>(L.stride_w);
      d.dilation_h = static_cast<int32_t>(L.dilation_h);
      d.dilation_w = static_cast<int32_t>(L.dilation_w);
      d.pad_top = static_cast<int32_t>(pad_top);
      d.pad_left = static_cast<int32_t>(L.pad_left);
      d.out_h = static_cast<int32_t>(b.oh1 - b.oh0);
      d.out_w = static_cast<int32_t>(OW);
      d.pad_value = q ? L.input_q.zero_point : 0;  // folded into the bias by PrepareConstants
      it->second = p.AddDescriptor(ConstantKind::kPoolDesc, d);
    }
    return it->second;
  };

  int in_t = 0, acc_t = 0, w_t = 0, par_t = 0;
  for (int64_t c0 = 0, j = 0; c0 < C; c0 += ct, ++j) {
    const uint32_t nj = static_cast<uint32_t>(std::min<int64_t>(ct, C - c0));
    const uint32_t wt = sm.w(w_t);
    w_t ^= 1;
    auto wload = LoadWeightTile(g, p, j, c0, nj, 0, static_cast<uint32_t>(taps), wt);
    if (!wload.ok()) return wload.status();
    e.code.push_back(*wload);
    const uint32_t par = sm.param(par_t);
    if (g.params.present) {
      par_t ^= 1;
      auto pload = LoadParams(g, p, j, c0, nj, par);
      if (!pload.ok()) return pload.status();
      e.code.push_back(*pload);
    }
    for (int64_t b = 0; b < L.batch; ++b) {
      for (int64_t oh0 = 0; oh0 < OH; oh0 += band) {
        const Band bd = BandOf(L, oh0, std::min(OH, oh0 + band));
        const uint32_t src = sm.in(in_t), acc = sm.acc(acc_t);
        in_t ^= 1;
        acc_t ^= 1;
        const uint64_t plane = static_cast<uint64_t>(L.in_h * L.in_w);
        const uint64_t cols = static_cast<uint64_t>((bd.hi - bd.lo) * L.in_w);
        const uint64_t ioff = refs.input.offset + ((b * C + c0) * plane + bd.lo * L.in_w) * ie;
        if (auto s = CheckOffset(ioff, "input"); !s.ok()) return s;
        e.code.push_back(MakeDmaLoadStrided(src, refs.input.region, static_cast<uint32_t>(ioff), nj,
                                            static_cast<uint32_t>(cols), static_cast<uint32_t>(plane), 1, L.dtype,
                                            g.mdtype));
        Instruction dw = MakeVector(VectorOp::kDepthwise, g.mdtype, q ? TSR_DTYPE_I32 : TSR_DTYPE_F32, src, wt, acc, nj,
                                    static_cast<uint32_t>(cols), desc_of(bd));
        dw.f[6] = static_cast<uint32_t>(taps);
        e.code.push_back(dw);
        const uint32_t mi = static_cast<uint32_t>((bd.oh1 - bd.oh0) * OW);
        const int32_t store_dtype = EmitEpilogue(g, acc, par, mi, nj, e);
        const uint64_t ooff = refs.output.offset + ((b * C + c0) * OH * OW + bd.oh0 * OW) * ie;
        if (auto s = CheckOffset(ooff, "output"); !s.ok()) return s;
        e.code.push_back(MakeDmaStore(acc, refs.output.region, static_cast<uint32_t>(ooff), mi, nj, 1,
                                      static_cast<uint32_t>(OH * OW), store_dtype, L.dtype));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic::internal
