#include "plugins/cpu/fast_kernels/dnnl_plan.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_join.h"
#include "support/math/checked_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {

[[noreturn]] void Refuse(std::string why) { throw NotHandled{std::move(why)}; }

std::string ShapeText(std::span<const int64_t> s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

Dims RowMajorStrides(const Dims& dims) {
  // Dims computed from op attributes (a pool's output from its pads and
  // strides) need not be a verified tensor's, and their strides overflowed
  // (fuzz/regressions/cpu_dispatch_load/pool_strides_overflow.bin): beyond
  // the tensor size limit no real buffer matches them.
  if (!checked::TensorBytes(dims, sizeof(float)))
    Refuse(absl::StrCat("dims ", ShapeText(dims), " exceed the tensor size limit"));
  // A zero dimension makes the total size 0 however large the others are,
  // so each stride is checked too (fuzz: [0, 30064, 7e18] overflowed here).
  Dims s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    const std::optional<int64_t> stride = checked::Mul<int64_t>(s[i + 1], dims[i + 1]);
    if (!stride || *stride > checked::kMaxTensorBytes)
      Refuse(absl::StrCat("dims ", ShapeText(dims), ": a stride exceeds the tensor size limit"));
    s[i] = *stride;
  }
  return s;
}

memory::desc Plain(const Dims& dims) { return memory::desc(dims, memory::data_type::f32, RowMajorStrides(dims)); }
memory::desc Any(const Dims& dims) { return memory::desc(dims, memory::data_type::f32, memory::format_tag::any); }

bool Present(std::span<const TensorRef> ins, size_t i) { return i < ins.size() && ins[i].dtype != TSR_DTYPE_UNKNOWN; }

void RequireF32(int32_t op, std::span<const TensorRef> tensors) {
  for (const TensorRef& t : tensors) {
    if (t.dtype == TSR_DTYPE_UNKNOWN) continue;  // omitted optional input
    if (t.dtype != TSR_DTYPE_F32)
      Refuse(absl::StrCat(OpTypeName(op), ": dtype ", DTypeName(t.dtype), " (fast path is f32 only)"));
    if (t.quant.quantized()) Refuse(absl::StrCat(OpTypeName(op), ": quantized tensors"));
    for (int64_t d : t.shape)
      if (d <= 0) Refuse(absl::StrCat(OpTypeName(op), ": empty tensor ", ShapeText(t.shape)));
  }
}

void RequireOutputShape(int32_t op, const TensorRef& out, const std::vector<int64_t>& expected) {
  if (out.shape != expected)
    Refuse(absl::StrCat(OpTypeName(op), ": output shape ", ShapeText(out.shape), " is not ", ShapeText(expected)));
}

std::vector<int64_t> PairOrDefault(const Attributes& attrs, int32_t key, size_t len, int64_t dflt, int64_t min_value,
                                   const char* what) {
  auto v = attrs.GetInts(key);
  if (v.empty()) return std::vector<int64_t>(len, dflt);
  if (v.size() != len) Refuse(absl::StrCat(what, " length"));
  for (int64_t e : v)
    if (e < min_value || e > kMaxWindowAttribute) Refuse(absl::StrCat(what, " value ", e));
  return {v.begin(), v.end()};
}

dnnl::algorithm BinaryAlgorithm(int32_t op) {
  switch (op) {
    case TSR_OP_ADD:
      return dnnl::algorithm::binary_add;
    case TSR_OP_SUB:
      return dnnl::algorithm::binary_sub;
    case TSR_OP_MUL:
      return dnnl::algorithm::binary_mul;
    case TSR_OP_DIV:
      return dnnl::algorithm::binary_div;
    default:
      Refuse(absl::StrCat(OpTypeName(op), ": not a binary arithmetic op"));
  }
}

dnnl::primitive_attr ComputeAttr(int32_t op, const Attributes& attrs) {
  dnnl::post_ops po;
  const int64_t kind = attrs.GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE);
  if (kind == TSR_ACTIVATION_RELU) {
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  } else if (kind == TSR_ACTIVATION_CLIP) {
    const float inf = std::numeric_limits<float>::infinity();
    const float lo = attrs.GetFloat(TSR_ATTR_CLIP_MIN, -inf);
    const float hi = attrs.GetFloat(TSR_ATTR_CLIP_MAX, inf);
    if (std::isnan(lo) || std::isnan(hi) || lo > hi)
      Refuse(absl::StrCat(OpTypeName(op), ": CLIP bounds ", lo, ", ", hi));
    if (!(std::isinf(lo) && std::isinf(hi))) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, lo, hi);
  } else if (kind == kActivationHardSwish) {
    // oneDNN 2.x ignores alpha and beta here (y * relu6(y + 3) / 6); 3.x
    // reads y * clip(alpha * y + beta, 0, 1), which these make the same.
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_hardswish, 1.0f / 6.0f, 0.5f);
  } else if (kind == kActivationSwish) {
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, attrs.GetFloat(kAttrSwishAlpha, 1.0f), 0.0f);
  } else if (kind == kActivationGeluTanh) {
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
  } else if (kind != TSR_ACTIVATION_NONE) {
    Refuse(absl::StrCat(OpTypeName(op), ": activation ", kind));
  }
  if (attrs.Has(kAttrLinearAlpha) || attrs.Has(kAttrLinearBeta)) {
    const float alpha = attrs.GetFloat(kAttrLinearAlpha, 1.0f), beta = attrs.GetFloat(kAttrLinearBeta, 0.0f);
    if (!std::isfinite(alpha) || !std::isfinite(beta))
      Refuse(absl::StrCat(OpTypeName(op), ": affine tail ", alpha, " * v + ", beta));
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, beta);
  }
  dnnl::primitive_attr a;
  a.set_post_ops(po);
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

memory Pack(const dnnl::engine& engine, const memory::desc& user, const void* data, const memory::desc& want) {
  memory src(user, engine, const_cast<void*>(data));  // read only
  memory dst(want, engine);
  dnnl::stream s(engine);
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return dst;
}

int BindInput(PlanOp& plan, const dnnl::engine& engine, const TensorRef& t, int index, const memory::desc& user,
              const memory::desc& want) {
  if (t.data != nullptr) return plan.AddConstant(Pack(engine, user, t.data, want));
  return plan.AddSlot(SlotKind::kInput, index, user);
}

Act Into(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& want) {
  if (a.desc == want) return a;
  if (const int done = plan.Converted(a.slot, want); done >= 0) return {done, want};
  const int t = plan.AddSlot(SlotKind::kTemp, -1, want);
  plan.AddStep(dnnl::reorder(dnnl::reorder::primitive_desc(engine, a.desc, engine, want)),
               {{DNNL_ARG_FROM, a.slot}, {DNNL_ARG_TO, t}});
  plan.NoteConversion(a.slot, want, t);
  return {t, want};
}

void Finish(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& plain, int output) {
  if (a.is_output) return;
  const int out = plan.AddSlot(SlotKind::kOutput, output, plain);
  plan.AddStep(dnnl::reorder(dnnl::reorder::primitive_desc(engine, a.desc, engine, plain)),
               {{DNNL_ARG_FROM, a.slot}, {DNNL_ARG_TO, out}});
}

Act Destination(PlanOp& plan, const memory::desc& desc, const memory::desc& plain, int output) {
  if (output >= 0 && desc == plain) return {plan.AddSlot(SlotKind::kOutput, output, plain), plain, true};
  return {plan.AddSlot(SlotKind::kTemp, -1, desc), desc};
}

}  // namespace tessera::cpu::fast::detail
