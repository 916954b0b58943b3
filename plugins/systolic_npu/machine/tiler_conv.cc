// CONV_2D lowering (see tiler.h): per image and group one GEMM over the
// IM2COL view of the input; the GEMM itself is tiler_gemm_core.cc.
#include "plugins/systolic_npu/machine/tiler.h"
#include "plugins/systolic_npu/machine/tiler_depthwise.h"
#include "plugins/systolic_npu/machine/tiler_gemm_core.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic {
namespace {

using internal::InvalidLayer;

Im2colDesc MakeIm2colDesc(const Conv2dLayer& L) {
  Im2colDesc d;
  d.channels = static_cast<int32_t>(L.in_channels / L.groups);
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
  d.out_h = static_cast<int32_t>(L.out_h());
  d.out_w = static_cast<int32_t>(L.out_w());
  // INT8 pads with the input zero point (it cancels in the bias fold);
  // float pads with +0.0.
  d.pad_value = L.dtype == TSR_DTYPE_I8 ? L.input_q.zero_point : 0;
  d.channel_stride = static_cast<int32_t>(L.in_h * L.in_w);
  return d;
}

}  // namespace

int64_t Conv2dLayer::out_h() const {
  return (in_h + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
}
int64_t Conv2dLayer::out_w() const {
  return (in_w + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
}

absl::Status EmitConv2d(const Conv2dLayer& L, const LayerRefs& refs, const SystolicNpuConfig& npu,
                        const TilerOptions& opt, Program& p, EntryPoint& e) {
  const int64_t lim = int64_t{1} << 16;
  auto in_range = [&](int64_t v, int64_t lo) { return v >= lo && v <= lim; };
  if (!in_range(L.batch, 1) || !in_range(L.in_channels, 1) || !in_range(L.in_h, 1) || !in_range(L.in_w, 1) ||
      !in_range(L.out_channels, 1) || !in_range(L.kernel_h, 1) || !in_range(L.kernel_w, 1) ||
      !in_range(L.stride_h, 1) || !in_range(L.stride_w, 1) || !in_range(L.dilation_h, 1) ||
      !in_range(L.dilation_w, 1) || !in_range(L.pad_top, 0) || !in_range(L.pad_left, 0) || !in_range(L.pad_bottom, 0) ||
      !in_range(L.pad_right, 0) || !in_range(L.groups, 1))
    return InvalidLayer("conv attributes out of range");
  if (L.in_channels % L.groups || L.out_channels % L.groups) return InvalidLayer("channels not divisible by groups");
  const int64_t OH = L.out_h(), OW = L.out_w();
  if (OH < 1 || OW < 1) return InvalidLayer("conv output would be empty");
  const int64_t Cg = L.in_channels / L.groups, OCg = L.out_channels / L.groups;
  const int64_t K = Cg * L.kernel_h * L.kernel_w;
  if (auto s = internal::CheckLayerOperands({L.dtype, L.weights_dtype, L.weights.size(), L.out_channels * K,
                                             L.out_channels, L.weights_placement, L.bias_placement, L.bias_f, L.bias_q,
                                             L.weight_scales, L.input_q, L.output_q, L.activation});
      !s.ok())
    return s;
  if (internal::IsVectorDepthwise(L, npu)) return internal::EmitDepthwiseConv(L, refs, npu, p, e);
  const bool q = L.dtype == TSR_DTYPE_I8;
  const uint64_t ie = NpuDtypeSize(L.dtype);
  const uint32_t desc = p.AddDescriptor(ConstantKind::kIm2colDesc, MakeIm2colDesc(L));
  for (int64_t gi = 0; gi < L.groups; ++gi) {
    internal::GemmCore base;
    base.M = OH * OW;
    base.K = K;
    base.N = OCg;
    base.mdtype = q ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
    base.io_dtype = L.dtype;
    base.im2col = true;
    base.im2col_desc = desc;
    base.a_region = refs.input.region;
    base.out_region = refs.output.region;
    base.out_row_stride = 1;
    base.out_col_stride = static_cast<uint64_t>(OH * OW);
    // B[k][oc] = W[gi * OCg + oc][k]: row stride 1, column stride K.
    base.weights.placement = L.weights_placement;
    if (L.weights_placement == OperandPlacement::kDram) {
      base.weights.dram = refs.weights;
      base.weights.dram.offset += static_cast<uint64_t>(gi * OCg * K) * ie;
      base.weights.dram_dtype = L.dtype;
      base.weights.k_stride = 1;
      base.weights.n_stride = static_cast<uint64_t>(K);
    }
    base.params.placement = L.bias_placement;
    if (L.bias_placement == OperandPlacement::kDram) {
      base.params.present = true;
      base.params.dram = refs.bias;
      base.params.dram.offset += static_cast<uint64_t>(gi * OCg) * ie;
      base.params.dram_dtype = L.dtype;
    }
    internal::WeightAccessor w;
    w.f = [&](int64_t k, int64_t n) {
      return internal::LoadWeight(L.weights, L.weights_dtype, static_cast<size_t>((gi * OCg + n) * K + k));
    };
    w.q = [&](int64_t k, int64_t n) {
      return static_cast<int8_t>(L.weights[static_cast<size_t>((gi * OCg + n) * K + k)]);
    };
    internal::Epilogue ep{&L.bias_f, &L.bias_q, &L.weight_scales, gi * OCg, L.input_q, L.output_q, L.activation};
    internal::PrepareConstants(base, w, ep, npu, p);
    for (int64_t b = 0; b < L.batch; ++b) {
      internal::GemmCore g = base;
      g.a_offset = refs.input.offset + ((b * L.in_channels + gi * Cg) * L.in_h * L.in_w) * ie;
      g.out_offset = refs.output.offset + ((b * L.out_channels + gi * OCg) * OH * OW) * ie;
      if (auto s = internal::CheckOffset(g.a_offset, "input"); !s.ok()) return s;
      if (auto s = internal::EmitGemmCore(g, npu, opt, p, e); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic
