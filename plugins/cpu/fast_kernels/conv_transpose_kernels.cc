// CONV_TRANSPOSE_2D on oneDNN's deconvolution_forward (f32): oneDNN defines
// deconvolution as the convolution's backward-data pass, i.e. exactly the
// scatter of docs/ops.md: x[n, c, ih, iw] · W[c, m', i, j] lands on output
// row ih·sh + i·dh − top (no kernel flip). Its output extent is
// sh·(H−1) + dh·(kH−1) + 1 − pad_l − pad_r, so ONNX's end pad and output
// padding become one end pad, bottom − output_padding, which may be
// negative (rows no tap reaches: they hold the bias, as in the reference),
// but not by a stride or more.
// The ONNX weights [C, M/g, kH, kW] are oneDNN's iohw (giohw with groups),
// packed once at load. f32 accumulation (the reference accumulates in
// f64); runtime weights, activations and non-f32 go to the reference.
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "support/math/checked_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// sh·(in−1) + dh·(k−1) + 1 + output_padding − pad_begin − pad_end. The
// attributes are bounded (PairOrDefault); `in` and `k` are tensor dims,
// checked.
int64_t TransposedExtent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t out_pad, int64_t pad_begin,
                         int64_t pad_end) {
  std::optional<int64_t> a = checked::Mul<int64_t>(s, in - 1);
  std::optional<int64_t> b = checked::Mul<int64_t>(d, k - 1);
  std::optional<int64_t> sum = a && b ? checked::Add(*a, *b) : std::nullopt;
  if (sum) sum = checked::Add(*sum, 1 + out_pad - pad_begin - pad_end);
  if (!sum || *sum < 1) Refuse("CONV_TRANSPOSE_2D: output extent empty or overflows");
  return *sum;
}

}  // namespace

std::unique_ptr<FastOp> PrepareConvTranspose(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs) {
  const int32_t op = TSR_OP_CONV_TRANSPOSE_2D;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("CONV_TRANSPOSE_2D: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const TensorRef& w = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (x.shape.size() != 4 || w.shape.size() != 4) Refuse("CONV_TRANSPOSE_2D: rank");
  if (x.data != nullptr) Refuse("CONV_TRANSPOSE_2D: constant input");
  // Weights or bias that arrive at run time (graph inputs, as in ONNX's
  // node tests) go to the reference kernel: this path packs them at load.
  if (w.data == nullptr || (bias && bias->data == nullptr)) Refuse("CONV_TRANSPOSE_2D: runtime weights or bias");
  // The reference kernel applies no activation; a fused one is not ours.
  if (attrs.GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE) != TSR_ACTIVATION_NONE)
    Refuse("CONV_TRANSPOSE_2D: fused activation");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t mg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t g = attrs.GetInt(TSR_ATTR_GROUPS, 1);
  if (g < 1 || c % g != 0 || w.shape[0] != c) Refuse("CONV_TRANSPOSE_2D: groups");
  const std::optional<int64_t> m_checked = checked::Mul<int64_t>(mg, g);
  if (!m_checked) Refuse("CONV_TRANSPOSE_2D: output channels overflow");
  const int64_t m = *m_checked;
  const auto st = PairOrDefault(attrs, TSR_ATTR_STRIDES, 2, 1, 1, "STRIDES");
  const auto dl = PairOrDefault(attrs, TSR_ATTR_DILATIONS, 2, 1, 1, "DILATIONS");
  const auto pd = PairOrDefault(attrs, TSR_ATTR_PADS, 4, 0, 0, "PADS");
  const auto opad = PairOrDefault(attrs, TSR_ATTR_OUTPUT_PADDING, 2, 0, 0, "OUTPUT_PADDING");
  const int64_t oh = TransposedExtent(h, kh, st[0], dl[0], opad[0], pd[0], pd[2]);
  const int64_t ow = TransposedExtent(wd, kw, st[1], dl[1], opad[1], pd[1], pd[3]);
  RequireOutputShape(op, outs[0], {n, m, oh, ow});
  // oneDNN takes an end pad down to 1 − stride (padding_r + stride > 0):
  // output padding at least a stride past the end pad (ONNX allows it when
  // the dilation is larger) stays on the reference.
  for (int a = 0; a < 2; ++a)
    if (pd[2 + a] - opad[a] + st[a] <= 0) Refuse("CONV_TRANSPOSE_2D: output padding a stride past the end pad");
  if (bias && bias->shape != std::vector<int64_t>{m}) Refuse("CONV_TRANSPOSE_2D: bias shape");

  auto plan = std::make_unique<PlanOp>("CONV_TRANSPOSE_2D", engine);
  const Dims src_dims{n, c, h, wd}, dst_dims{n, m, oh, ow};
  const Dims w_dims = g == 1 ? Dims{m, c, kh, kw} : Dims{g, mg, c / g, kh, kw};
  const memory::desc w_user(w_dims, memory::data_type::f32,
                            g == 1 ? memory::format_tag::iohw : memory::format_tag::giohw);
  const memory::desc bias_md = Plain({m});
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);  // no post-ops (checked above); user scratchpad
  auto describe = [&](const memory::desc& src, const memory::desc& dst) {
    return dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                             src, Any(w_dims), bias ? bias_md : memory::desc(), dst, {st[0], st[1]},
                                             {dl[0] - 1, dl[1] - 1}, {pd[0], pd[1]},
                                             {pd[2] - opad[0], pd[3] - opad[1]});
  };
  dnnl::deconvolution_forward::primitive_desc dpd(describe(Any(src_dims), Any(dst_dims)), attr, engine);
  // With fewer output channels than the channel block oneDNN picks
  // (aBcd16b on AVX-512), most of the blocked destination is padding: the
  // detector's last upsampling (1 channel, 640x640) wrote 16x the data and
  // took ~10 ms of its ~90. NHWC writes only the real channels; taken when
  // oneDNN has a JIT kernel for it.
  if (dpd.dst_desc().data.padded_dims[1] >= 2 * m) {
    const memory::desc src_nhwc(src_dims, memory::data_type::f32, memory::format_tag::acdb);
    const memory::desc dst_nhwc(dst_dims, memory::data_type::f32, memory::format_tag::acdb);
    try {
      dnnl::deconvolution_forward::primitive_desc nhwc(describe(src_nhwc, dst_nhwc), attr, engine);
      if (std::string(nhwc.impl_info_str()).rfind("jit", 0) == 0) dpd = nhwc;
    } catch (const dnnl::error&) {
      // no NHWC implementation: keep the blocked one
    }
  }
  const memory::desc src_plain = Plain(src_dims);
  const Act in = Into(*plan, engine, {plan->AddSlot(SlotKind::kInput, 0, src_plain), src_plain}, dpd.src_desc());
  const Act out = Destination(*plan, dpd.dst_desc(), Plain(dst_dims), /*output=*/0);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, in.slot});
  args.push_back({DNNL_ARG_WEIGHTS, BindInput(*plan, engine, w, 1, w_user, dpd.weights_desc())});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(*plan, engine, *bias, 2, bias_md, dpd.bias_desc())});
  args.push_back({DNNL_ARG_DST, out.slot});
  plan->AddScratchpad(dpd.scratchpad_desc(), args);
  plan->AddStep(dnnl::deconvolution_forward(dpd), std::move(args));
  Finish(*plan, engine, out, Plain(dst_dims));
  return plan;
}

}  // namespace tessera::cpu::fast::detail
