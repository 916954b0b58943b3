// Regions: convolutions, pools and broadcasting binary ops prepared as one
// plan whose internal tensors keep the layout the convolutions choose
// (NHWC for oneDNN's brgconv on AVX-512, channel-blocked on AVX2). A
// residual block (x + f(x)) or a squeeze-and-excitation branch
// (x * sigmoid(conv(pool(x)))) reads a tensor several times; as separate
// fast ops each read was an NCHW<->blocked reorder and the binary ops ran on
// NCHW with a per-channel broadcast, the slowest pattern oneDNN's binary
// kernel has (docs/benchmarks.md).
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

Dims DimsOf(const TensorRef& t) { return {t.shape.begin(), t.shape.end()}; }

// The format tag `d` is laid out in, among those a region's activations
// take (plain NCHW, NHWC, channels blocked by 16 or 8), or undef.
memory::format_tag TagOf(const memory::desc& d) {
  const Dims dims = d.dims();
  if (dims.size() != 4) return memory::format_tag::undef;
  for (memory::format_tag tag :
       {memory::format_tag::abcd, memory::format_tag::acdb, memory::format_tag::aBcd16b, memory::format_tag::aBcd8b})
    if (memory::desc(dims, memory::data_type::f32, tag) == d) return tag;
  return memory::format_tag::undef;
}

bool IsBinary(int32_t op) { return op == TSR_OP_ADD || op == TSR_OP_SUB || op == TSR_OP_MUL || op == TSR_OP_DIV; }

// ADD/SUB/MUL/DIV inside a region. The operand of the output's shape (the
// first, or for ADD and MUL either) keeps its layout and the result takes
// it; the other operand is brought into that layout: as it is when it has
// the output's shape too, else (one value per channel or one value, its
// spatial dims 1) the same format tag over its own dims, which is how
// oneDNN's JIT binary kernel takes a broadcast operand. `acts[i]` is input
// i's activation, nullopt for a constant.
Act AppendBinary(PlanOp& plan, const dnnl::engine& engine, const RegionLink& l,
                 const std::vector<std::optional<Act>>& acts, int output) {
  const int32_t op = l.op_type;
  if (l.inputs.size() != 2) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, l.inputs);
  RequireF32(op, {&l.output, 1});
  const Dims y = DimsOf(l.output);
  if (y.size() != 4) Refuse(absl::StrCat(OpTypeName(op), ": region binary ops are 4-D"));
  auto rank4 = [&](const std::vector<int64_t>& s) {
    if (s.size() > 4) Refuse(absl::StrCat(OpTypeName(op), ": operand rank"));
    Dims d(4 - s.size(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return d;
  };
  int base = 0, other = 1;
  Dims db = rank4(l.inputs[0].shape), dother = rank4(l.inputs[1].shape);
  if (db != y) {
    if (op != TSR_OP_ADD && op != TSR_OP_MUL) Refuse(absl::StrCat(OpTypeName(op), ": first input broadcasts"));
    std::swap(base, other);
    std::swap(db, dother);
  }
  if (db != y || !acts[base]) Refuse(absl::StrCat(OpTypeName(op), ": no activation of the output's shape"));
  const bool full = dother == y;
  if (!full && !(dother[2] == 1 && dother[3] == 1 && (dother[1] == 1 || dother[1] == y[1]) &&
                 (dother[0] == 1 || dother[0] == y[0])))
    Refuse(absl::StrCat(OpTypeName(op), ": broadcast ", ShapeText(dother), " is not per channel"));
  const Act& a = *acts[base];
  memory::desc want = a.desc;
  if (!full) {
    const memory::format_tag tag = TagOf(a.desc);
    want = tag == memory::format_tag::undef ? Plain(dother) : memory::desc(dother, memory::data_type::f32, tag);
  }
  int other_slot;
  if (acts[other]) {
    if (!full && acts[other]->desc.dims() != dother) Refuse(absl::StrCat(OpTypeName(op), ": operand rank"));
    other_slot = Into(plan, engine, *acts[other], want).slot;
  } else {
    other_slot = plan.AddConstant(Pack(engine, Plain(dother), l.inputs[other].data, want));
  }
  const dnnl::algorithm alg = BinaryAlgorithm(op);
  // No post-ops: the binary ops carry no activation (the reference kernels
  // read none), whatever attributes the link has.
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, a.desc, want, a.desc), attr, engine);
  // oneDNN's reference binary kernel is several times slower than a reorder
  // plus the JIT one: a region would lose what it saves.
  if (std::string(pd.impl_info_str()).rfind("jit", 0) != 0)
    Refuse(absl::StrCat(OpTypeName(op), ": no oneDNN JIT kernel for ", ShapeText(dother), " in this layout (",
                        pd.impl_info_str(), ")"));
  const Act out = Destination(plan, pd.dst_desc(), Plain(y), output);
  std::vector<std::pair<int, int>> args = {
      {DNNL_ARG_SRC_0, a.slot}, {DNNL_ARG_SRC_1, other_slot}, {DNNL_ARG_DST, out.slot}};
  plan.AddScratchpad(pd.scratchpad_desc(), args);
  plan.AddStep(dnnl::binary(pd), std::move(args));
  return out;
}

}  // namespace

std::unique_ptr<FastOp> PrepareRegion(const dnnl::engine& engine, std::span<const RegionLink> links,
                                      std::span<const TensorRef> inputs, int threads) {
  if (links.empty()) Refuse("region: no links");
  std::string name;
  for (size_t k = 0; k < links.size(); ++k) name += (k ? "+" : "") + std::string(OpTypeName(links[k].op_type));
  auto plan = std::make_unique<PlanOp>(name, engine);
  std::vector<Act> input_acts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    RequireF32(TSR_OP_UNKNOWN, {&inputs[i], 1});
    if (inputs[i].shape.size() != 4 || inputs[i].data != nullptr) Refuse("region: inputs are 4-D activations");
    const memory::desc plain = Plain(DimsOf(inputs[i]));
    input_acts.push_back({plan->AddSlot(SlotKind::kInput, static_cast<int>(i), plain), plain});
  }
  std::vector<Act> acts;
  std::vector<bool> output_taken;
  for (size_t k = 0; k < links.size(); ++k) {
    const RegionLink& l = links[k];
    if (l.region_output >= 0) {
      if (static_cast<size_t>(l.region_output) >= output_taken.size()) output_taken.resize(l.region_output + 1, false);
      if (output_taken[l.region_output]) Refuse(absl::StrCat("region: output ", l.region_output, " written twice"));
      output_taken[l.region_output] = true;
    }
    // Each non-constant input's activation, from an earlier link or a
    // region input, of the shape the link declares.
    std::vector<std::optional<Act>> in(l.inputs.size());
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      if (!Present(l.inputs, i) || l.inputs[i].data != nullptr) continue;
      if (i >= l.sources.size()) Refuse(absl::StrCat("region: link ", k, " input ", i, " has no source"));
      const GroupOperand& s = l.sources[i];
      const Act* a =
          s.link >= 0
              ? (static_cast<size_t>(s.link) < k ? &acts[s.link] : nullptr)
              : (s.input >= 0 && static_cast<size_t>(s.input) < input_acts.size() ? &input_acts[s.input] : nullptr);
      if (a == nullptr) Refuse(absl::StrCat("region: link ", k, " input ", i, " reads nothing before it"));
      if (a->desc.dims() != DimsOf(l.inputs[i]))
        Refuse(absl::StrCat("region: link ", k, " input ", i, " shapes do not connect"));
      in[i] = *a;
    }
    // oneDNN sizes a primitive's thread team when it is created, so a
    // serial link is created, and run, with one thread.
    const int link_threads = l.parallel ? threads : 1;
    const ScopedThreads created_with(link_threads);
    const size_t first_step = plan->step_count();
    if (IsBinary(l.op_type)) {
      acts.push_back(AppendBinary(*plan, engine, l, in, l.region_output));
    } else {
      if (in.empty() || !in[0]) Refuse(absl::StrCat("region: link ", k, " input 0 is no activation"));
      for (size_t i = 1; i < in.size(); ++i)
        if (in[i]) Refuse(absl::StrCat("region: link ", k, ": runtime weights inside a region"));
      acts.push_back(
          AppendConvOrPool(*plan, engine, l.op_type, l.attrs, l.inputs, {&l.output, 1}, *in[0], l.region_output));
    }
    if (l.region_output >= 0) Finish(*plan, engine, acts.back(), Plain(DimsOf(l.output)), l.region_output);
    if (link_threads != threads) plan->SetThreadsFrom(first_step, link_threads);
  }
  if (std::find(output_taken.begin(), output_taken.end(), false) != output_taken.end() || output_taken.empty())
    Refuse("region: its outputs are not numbered 0, 1, ...");
  return plan;
}

}  // namespace tessera::cpu::fast::detail
