// CONV_2D and MAX/AVG/GLOBAL_AVG pooling: the single ops, and the steps
// that regions (region_kernels.cc) string together in the primitives'
// preferred layout.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "support/math/checked_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {

namespace {

// in + pad_begin + pad_end - (dilation * (kernel - 1) + 1): how far the
// last window may start past the first. Checked: a dimension comes from a
// tensor shape, which with a zero elsewhere in it may be near INT64_MAX.
int64_t PaddedSpan(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t dilation, int64_t kernel, const char* what) {
  std::optional<int64_t> padded = checked::Add(in, pad_begin);
  if (padded) padded = checked::Add(*padded, pad_end);
  std::optional<int64_t> extent = checked::Mul(dilation, kernel - 1);
  if (extent) extent = checked::Add(*extent, int64_t{1});
  std::optional<int64_t> span = padded && extent ? checked::Sub(*padded, *extent) : std::nullopt;
  if (!span) Refuse(absl::StrCat(what, ": window arithmetic overflows"));
  return *span;
}

// Appends a CONV_2D reading `src`. The convolution picks its preferred
// activation layouts (blocked on AVX2/AVX-512); `src` is reordered into
// it when needed, and the result stays in it (see Finish and PrepareRegion).
Act AppendConv(PlanOp& plan, const dnnl::engine& engine, const Attributes& attrs, std::span<const TensorRef> ins,
               std::span<const TensorRef> outs, const Act& src, int output) {
  const int32_t op = TSR_OP_CONV_2D;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("CONV_2D: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const TensorRef& w = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (x.shape.size() != 4 || w.shape.size() != 4) Refuse("CONV_2D: rank");
  if (x.data != nullptr) Refuse("CONV_2D: constant input");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t m = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t g = attrs.GetInt(TSR_ATTR_GROUPS, 1);
  if (g < 1 || c % g != 0 || m % g != 0 || cg != c / g) Refuse("CONV_2D: groups");
  const auto st = PairOrDefault(attrs, TSR_ATTR_STRIDES, 2, 1, 1, "STRIDES");
  const auto dl = PairOrDefault(attrs, TSR_ATTR_DILATIONS, 2, 1, 1, "DILATIONS");
  const auto pd = PairOrDefault(attrs, TSR_ATTR_PADS, 4, 0, 0, "PADS");
  const int64_t eh = PaddedSpan(h, pd[0], pd[2], dl[0], kh, "CONV_2D");
  const int64_t ew = PaddedSpan(wd, pd[1], pd[3], dl[1], kw, "CONV_2D");
  if (eh < 0 || ew < 0) Refuse("CONV_2D: kernel exceeds padded input");
  const int64_t oh = eh / st[0] + 1, ow = ew / st[1] + 1;
  RequireOutputShape(op, outs[0], {n, m, oh, ow});
  if (bias && bias->shape != std::vector<int64_t>{m}) Refuse("CONV_2D: bias shape");

  const Dims src_dims{n, c, h, wd}, dst_dims{n, m, oh, ow};
  const Dims w_dims = g == 1 ? Dims{m, c, kh, kw} : Dims{g, m / g, cg, kh, kw};
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const memory::desc bias_md = Plain({m});
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          Any(src_dims), Any(w_dims), bias ? bias_md : memory::desc(), Any(dst_dims),
                                          {st[0], st[1]}, {dl[0] - 1, dl[1] - 1}, {pd[0], pd[1]}, {pd[2], pd[3]});
  const dnnl::convolution_forward::primitive_desc cpd(d, attr, engine);
  const Act in = Into(plan, engine, src, cpd.src_desc());
  const Act out = Destination(plan, cpd.dst_desc(), Plain(dst_dims), output);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, in.slot});
  args.push_back({DNNL_ARG_WEIGHTS, BindInput(plan, engine, w, 1, Plain(w_dims), cpd.weights_desc())});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(plan, engine, *bias, 2, bias_md, cpd.bias_desc())});
  args.push_back({DNNL_ARG_DST, out.slot});
  plan.AddScratchpad(cpd.scratchpad_desc(), args);
  plan.AddStep(dnnl::convolution_forward(cpd), std::move(args));
  return out;
}

}  // namespace

// Activations arrive and leave in NCHW; when the convolution prefers a
// blocked layout they are reordered around it (cheaper than running a
// plain-layout convolution: see docs/benchmarks.md).
std::unique_ptr<FastOp> PrepareConv(const dnnl::engine& engine, const Attributes& attrs, std::span<const TensorRef> ins,
                                    std::span<const TensorRef> outs) {
  auto plan = std::make_unique<PlanOp>("CONV_2D", engine);
  if (ins.empty() || outs.empty()) Refuse("CONV_2D: arity");
  // Weights or bias that arrive at run time (graph inputs, as in some ONNX
  // node tests) go to the reference kernel: this path packs them at load.
  for (size_t i = 1; i < ins.size(); ++i)
    if (Present(ins, i) && ins[i].data == nullptr) Refuse("CONV_2D: runtime weights or bias");
  const memory::desc src_plain = Plain({ins[0].shape.begin(), ins[0].shape.end()});
  const Act in{plan->AddSlot(SlotKind::kInput, 0, src_plain), src_plain};
  const Act out = AppendConv(*plan, engine, attrs, ins, outs, in, /*output=*/0);
  Finish(*plan, engine, out, Plain({outs[0].shape.begin(), outs[0].shape.end()}));
  return plan;
}

namespace {

// ---- MAX_POOL_2D / AVG_POOL_2D ------------------------------------------------

// True when every window along one spatial axis sees at least one real tap.
// Constant time, not a loop over the windows: `out` comes from the model, and
// a 2^29-row input made loading take seconds
// (fuzz/regressions/cpu_dispatch_load/pool_window_check_hang.bin). With
// d <= in (the caller refuses wider dilations) consecutive taps are at most
// `in` apart, so a window misses the input only when all its taps fall
// before it or all after it; the first window's last tap and the last
// window's first tap are the extreme cases.
bool EveryWindowHasATap(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pad_begin) {
  const int64_t first_window_last_tap = (k - 1) * d - pad_begin;
  const int64_t last_window_first_tap = (out - 1) * s - pad_begin;
  return first_window_last_tap >= 0 && last_window_first_tap < in;
}

// A pooling primitive in a channel-blocked layout: oneDNN 2.6 pools NCHW
// with a plain loop ("simple_nchw", ~15x slower here), while its JIT
// kernels want channels blocked by the vector width. A plain `src` is
// reordered into that layout; a blocked one (from a convolution) is used
// as it is; the result keeps the layout.
Act AppendPoolPrimitive(PlanOp& plan, const dnnl::engine& engine, dnnl::algorithm alg, const Dims& src_dims,
                        const Dims& dst_dims, const Dims& strides, const Dims& kernel, const Dims& dilation,
                        const Dims& pad_l, const Dims& pad_r, const Act& src, int output) {
  const bool wide = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  const memory::format_tag blocked_tag = wide ? memory::format_tag::nChw16c : memory::format_tag::nChw8c;
  const memory::desc src_blocked =
      src.desc == Plain(src_dims) ? memory::desc(src_dims, memory::data_type::f32, blocked_tag) : src.desc;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::pooling_v2_forward::primitive_desc ppd(
      dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference, alg, src_blocked,
                                     memory::desc(dst_dims, memory::data_type::f32, memory::format_tag::any), strides,
                                     kernel, dilation, pad_l, pad_r),
      attr, engine);
  const Act in = Into(plan, engine, src, ppd.src_desc());
  const Act out = Destination(plan, ppd.dst_desc(), Plain(dst_dims), output);
  std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, in.slot}, {DNNL_ARG_DST, out.slot}};
  plan.AddScratchpad(ppd.scratchpad_desc(), args);
  plan.AddStep(dnnl::pooling_v2_forward(ppd), std::move(args));
  return out;
}

Act AppendPool(PlanOp& plan, int32_t op, const dnnl::engine& engine, const Attributes& attrs,
               std::span<const TensorRef> ins, std::span<const TensorRef> outs, const Act& src, int output) {
  if (ins.size() != 1 || outs.size() != 1) Refuse("pool: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  if (x.shape.size() != 4 || x.data != nullptr) Refuse("pool: rank or constant input");
  const auto ks = attrs.GetInts(TSR_ATTR_KERNEL_SHAPE);
  if (ks.size() != 2 || ks[0] < 1 || ks[1] < 1) Refuse("pool: KERNEL_SHAPE");
  const auto st = PairOrDefault(attrs, TSR_ATTR_STRIDES, 2, 1, 1, "STRIDES");
  const auto dl = PairOrDefault(attrs, TSR_ATTR_DILATIONS, 2, 1, 1, "DILATIONS");
  const auto pd = PairOrDefault(attrs, TSR_ATTR_PADS, 4, 0, 0, "PADS");
  const bool ceil_mode = attrs.GetInt(TSR_ATTR_CEIL_MODE, 0) != 0;
  const bool include_pad = op == TSR_OP_AVG_POOL_2D && attrs.GetInt(TSR_ATTR_COUNT_INCLUDE_PAD, 0) != 0;
  // Bounded before any arithmetic (kMaxWindowAttribute).
  for (int a = 0; a < 2; ++a)
    if (ks[a] > kMaxWindowAttribute || st[a] < 1 || st[a] > kMaxWindowAttribute || dl[a] < 1 ||
        dl[a] > kMaxWindowAttribute)
      Refuse("pool: KERNEL_SHAPE, STRIDES or DILATIONS out of range");
  for (int a = 0; a < 4; ++a)
    if (pd[a] < 0 || pd[a] > kMaxWindowAttribute) Refuse("pool: PADS out of range");
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  int64_t out[2], pad_end[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t e = dl[a] * (ks[a] - 1) + 1;  // at most 2^48 + 1
    const int64_t span = PaddedSpan(in[a], pd[a], pd[a + 2], dl[a], ks[a], "pool");
    if (span < 0) Refuse("pool: window exceeds padded input");
    int64_t o = ceil_mode ? (span + st[a] - 1) / st[a] + 1 : span / st[a] + 1;
    if (ceil_mode && (o - 1) * st[a] >= in[a] + pd[a]) --o;
    out[a] = o;
    // oneDNN derives the output size with floor; the end padding that gives
    // exactly `o` windows (taps past the real input are never read).
    pad_end[a] = (o - 1) * st[a] + e - in[a] - pd[a];
    if (pad_end[a] < 0) pad_end[a] = 0;
    if (include_pad && pad_end[a] != pd[a + 2]) Refuse("pool: COUNT_INCLUDE_PAD with ceil-mode windows");
    if (dl[a] > in[a]) Refuse("pool: dilation wider than the input");  // see EveryWindowHasATap
    if (!EveryWindowHasATap(in[a], o, ks[a], st[a], dl[a], pd[a])) Refuse("pool: a window sees only padding");
    if (op == TSR_OP_AVG_POOL_2D && dl[a] != 1) Refuse("AVG_POOL_2D: dilation");
  }
  const Dims src_dims{x.shape[0], x.shape[1], in[0], in[1]};
  const Dims dst_dims{x.shape[0], x.shape[1], out[0], out[1]};
  RequireOutputShape(op, outs[0], {dst_dims.begin(), dst_dims.end()});
  const dnnl::algorithm alg = op == TSR_OP_MAX_POOL_2D ? dnnl::algorithm::pooling_max
                              : include_pad            ? dnnl::algorithm::pooling_avg_include_padding
                                                       : dnnl::algorithm::pooling_avg_exclude_padding;
  return AppendPoolPrimitive(plan, engine, alg, src_dims, dst_dims, {st[0], st[1]}, {ks[0], ks[1]},
                             {dl[0] - 1, dl[1] - 1}, {pd[0], pd[1]}, {pad_end[0], pad_end[1]}, src, output);
}

// GLOBAL_AVG_POOL on [N, C, H, W]: an average pool whose window is the
// whole image.
Act AppendGlobalAvgPool(PlanOp& plan, const dnnl::engine& engine, std::span<const TensorRef> ins,
                        std::span<const TensorRef> outs, const Act& src, int output) {
  const int32_t op = TSR_OP_GLOBAL_AVG_POOL;
  if (ins.size() != 1 || outs.size() != 1) Refuse("GLOBAL_AVG_POOL: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  if (x.shape.size() != 4 || x.data != nullptr) Refuse("GLOBAL_AVG_POOL: rank (4-D only) or constant input");
  const Dims src_dims(x.shape.begin(), x.shape.end());
  const Dims dst_dims{x.shape[0], x.shape[1], 1, 1};
  RequireOutputShape(op, outs[0], {dst_dims.begin(), dst_dims.end()});
  return AppendPoolPrimitive(plan, engine, dnnl::algorithm::pooling_avg_exclude_padding, src_dims, dst_dims, {1, 1},
                             {x.shape[2], x.shape[3]}, {0, 0}, {0, 0}, {0, 0}, src, output);
}

}  // namespace

Act AppendConvOrPool(PlanOp& plan, const dnnl::engine& engine, int32_t op_type, const Attributes& attrs, Ins ins,
                     Outs outs, const Act& src, int output) {
  switch (op_type) {
    case TSR_OP_CONV_2D:
      return AppendConv(plan, engine, attrs, ins, outs, src, output);
    case TSR_OP_GLOBAL_AVG_POOL:
      return AppendGlobalAvgPool(plan, engine, ins, outs, src, output);
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
      return AppendPool(plan, op_type, engine, attrs, ins, outs, src, output);
    default:
      Refuse(absl::StrCat(OpTypeName(op_type), ": not a convolution or pool"));
  }
}

}  // namespace tessera::cpu::fast::detail
