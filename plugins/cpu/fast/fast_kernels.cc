#include "fast/fast_kernels.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tessera/ops.h"

namespace tessera::cpu::fast {
namespace {

using dnnl::memory;
using Dims = memory::dims;

// ---- A prepared op: slots (memories) and steps (primitives) ---------------

enum class SlotKind { kInput, kOutput, kConstant, kTemp };

struct Slot {
  SlotKind kind = SlotKind::kTemp;
  int index = -1;      // op input/output index (kInput/kOutput)
  memory::desc desc;
  memory constant;     // kConstant: owned, packed
};

struct Step {
  dnnl::primitive primitive;
  std::vector<std::pair<int, int>> args;  // (DNNL_ARG_*, slot)
};

class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    p_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  }
  ~AlignedBuffer() { std::free(p_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class PlanState : public FastOpState {
 public:
  dnnl::stream stream;
  std::vector<memory> memories;                       // per slot
  std::vector<std::unique_ptr<AlignedBuffer>> temps;  // backing kTemp slots
  std::vector<std::vector<dnnl_exec_arg_t>> args;     // per step
};

class PlanOp : public FastOp {
 public:
  PlanOp(std::string name, dnnl::engine engine) : name_(std::move(name)), engine_(std::move(engine)) {}
  const char* name() const override { return name_.c_str(); }

  int AddSlot(SlotKind kind, int index, const memory::desc& desc) {
    slots_.push_back({kind, index, desc, {}});
    return static_cast<int>(slots_.size()) - 1;
  }
  int AddConstant(memory packed) {
    slots_.push_back({SlotKind::kConstant, -1, packed.get_desc(), packed});
    return static_cast<int>(slots_.size()) - 1;
  }
  // The primitive's scratchpad, when it wants one (scratchpad_mode::user).
  void AddScratchpad(const memory::desc& desc, std::vector<std::pair<int, int>>& args) {
    if (desc.get_size() == 0) return;
    args.push_back({DNNL_ARG_SCRATCHPAD, AddSlot(SlotKind::kTemp, -1, desc)});
  }
  void AddStep(dnnl::primitive p, std::vector<std::pair<int, int>> args) {
    steps_.push_back({std::move(p), std::move(args)});
  }

  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override {
    try {
      auto st = std::make_unique<PlanState>();
      st->stream = dnnl::stream(engine_);
      for (const Slot& s : slots_) {
        switch (s.kind) {
          case SlotKind::kConstant:
            st->memories.push_back(s.constant);
            break;
          case SlotKind::kTemp:
            st->temps.push_back(std::make_unique<AlignedBuffer>(s.desc.get_size()));
            if (st->temps.back()->get() == nullptr) return absl::ResourceExhaustedError("fast kernels: out of memory");
            st->memories.emplace_back(s.desc, engine_, st->temps.back()->get());
            break;
          default:  // bound to the caller's pointer on every run
            st->memories.emplace_back(s.desc, engine_, static_cast<void*>(nullptr));
            break;
        }
      }
      for (const Step& step : steps_) {
        std::vector<dnnl_exec_arg_t> a;
        for (auto [arg, slot] : step.args) a.push_back({arg, st->memories[slot].get()});
        st->args.push_back(std::move(a));
      }
      return std::unique_ptr<FastOpState>(std::move(st));
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat(name_, ": oneDNN state: ", e.what()));
    }
  }

  absl::Status Run(FastOpState& state, std::span<void* const> inputs, std::span<void* const> outputs) const override {
    auto& st = static_cast<PlanState&>(state);
    for (size_t s = 0; s < slots_.size(); ++s) {
      const Slot& slot = slots_[s];
      void* p = nullptr;
      if (slot.kind == SlotKind::kInput) {
        p = static_cast<size_t>(slot.index) < inputs.size() ? inputs[slot.index] : nullptr;
      } else if (slot.kind == SlotKind::kOutput) {
        p = static_cast<size_t>(slot.index) < outputs.size() ? outputs[slot.index] : nullptr;
      } else {
        continue;
      }
      if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat(name_, ": tensor not bound"));
      if (dnnl_memory_set_data_handle(st.memories[s].get(), p) != dnnl_success)
        return absl::InternalError(absl::StrCat(name_, ": oneDNN rejected a buffer"));
    }
    for (size_t i = 0; i < steps_.size(); ++i) {
      const dnnl_status_t rc = dnnl_primitive_execute(steps_[i].primitive.get(), st.stream.get(),
                                                      static_cast<int>(st.args[i].size()), st.args[i].data());
      if (rc != dnnl_success) return absl::InternalError(absl::StrCat(name_, ": oneDNN execute failed (", rc, ")"));
    }
    if (dnnl_stream_wait(st.stream.get()) != dnnl_success) return absl::InternalError(absl::StrCat(name_, ": oneDNN wait failed"));
    return absl::OkStatus();
  }

 private:
  std::string name_;
  dnnl::engine engine_;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
};

// ---- Helpers ----------------------------------------------------------------

// Thrown (and caught in Prepare) when the fast path does not handle an op.
struct NotHandled {
  std::string why;
};

[[noreturn]] void Refuse(std::string why) { throw NotHandled{std::move(why)}; }

std::string ShapeText(std::span<const int64_t> s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

Dims RowMajorStrides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

memory::desc Plain(const Dims& dims) { return memory::desc(dims, memory::data_type::f32, RowMajorStrides(dims)); }
memory::desc Any(const Dims& dims) { return memory::desc(dims, memory::data_type::f32, memory::format_tag::any); }

bool Present(std::span<const TensorRef> ins, size_t i) {
  return i < ins.size() && ins[i].dtype != TSR_DTYPE_UNKNOWN;
}

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

// Fused activation as an eltwise post-op.
dnnl::primitive_attr ComputeAttr(int32_t op, const Attributes& attrs) {
  dnnl::post_ops po;
  const int64_t kind = attrs.GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE);
  if (kind == TSR_ACTIVATION_RELU) {
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  } else if (kind == TSR_ACTIVATION_CLIP) {
    const float inf = std::numeric_limits<float>::infinity();
    const float lo = attrs.GetFloat(TSR_ATTR_CLIP_MIN, -inf);
    const float hi = attrs.GetFloat(TSR_ATTR_CLIP_MAX, inf);
    if (std::isnan(lo) || std::isnan(hi) || lo > hi) Refuse(absl::StrCat(OpTypeName(op), ": CLIP bounds ", lo, ", ", hi));
    if (!(std::isinf(lo) && std::isinf(hi))) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, lo, hi);
  } else if (kind != TSR_ACTIVATION_NONE) {
    Refuse(absl::StrCat(OpTypeName(op), ": activation ", kind));
  }
  dnnl::primitive_attr a;
  a.set_post_ops(po);
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

// Copies (reorders) constant data given in `user` layout into a new,
// library-owned memory of layout `want`: done once, at load.
memory Pack(const dnnl::engine& engine, const memory::desc& user, const void* data, const memory::desc& want) {
  memory src(user, engine, const_cast<void*>(data));  // read only
  memory dst(want, engine);
  dnnl::stream s(engine);
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return dst;
}

// Binds an op input: packed constant when the tensor is constant, else
// the caller's pointer in `user` layout (the primitive must accept it).
int BindInput(PlanOp& plan, const dnnl::engine& engine, const TensorRef& t, int index, const memory::desc& user,
              const memory::desc& want) {
  if (t.data != nullptr) return plan.AddConstant(Pack(engine, user, t.data, want));
  return plan.AddSlot(SlotKind::kInput, index, user);
}

// ---- FULLY_CONNECTED and MATMUL ---------------------------------------------

std::unique_ptr<FastOp> MatmulPlan(int32_t op, const dnnl::engine& engine, const Attributes& attrs,
                                   const TensorRef& a, const memory::desc& a_md, const TensorRef& b,
                                   const memory::desc& b_user_md, const TensorRef* bias, const memory::desc& bias_md,
                                   const memory::desc& dst_md) {
  const memory::desc b_want = b.data != nullptr ? Any(b_user_md.dims()) : b_user_md;
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const dnnl::matmul::desc d = bias ? dnnl::matmul::desc(a_md, b_want, bias_md, dst_md)
                                    : dnnl::matmul::desc(a_md, b_want, dst_md);
  const dnnl::matmul::primitive_desc pd(d, attr, engine);
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, BindInput(*plan, engine, a, 0, a_md, a_md)});
  args.push_back({DNNL_ARG_WEIGHTS, BindInput(*plan, engine, b, 1, b_user_md, pd.weights_desc())});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(*plan, engine, *bias, 2, bias_md, bias_md)});
  args.push_back({DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, dst_md)});
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::matmul(pd), std::move(args));
  return plan;
}

// rows [M, K] (row-major) x constant weights -> [M, N] as a 1x1 convolution
// over a 1 x M "image" in channels-last layout (NHWC with C = K): the
// activations need no reorder, the weights are packed once into the
// blocked layout the convolution prefers, and the JIT 1x1 kernels run
// (on AVX2, oneDNN 2.6's matmul/inner product fall back to a plain sgemm
// that repacks the weights on every call, ~2.5x slower here). `w_user`
// describes the weights as {N, K, 1, 1}. nullptr when oneDNN only offers a
// reference or gemm-based implementation.
std::unique_ptr<FastOp> RowsTimesWeightsAsConv(int32_t op, const dnnl::engine& engine, const Attributes& attrs,
                                               int64_t m, int64_t k, int64_t n, const TensorRef& w,
                                               const memory::desc& w_user, const TensorRef* bias) {
  if (w.data == nullptr) return nullptr;  // runtime weights: matmul reads them in place
  const memory::desc src({1, k, 1, m}, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc dst({1, n, 1, m}, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc bias_md = Plain({n});
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          src, Any({n, k, 1, 1}), bias ? bias_md : memory::desc(), dst, {1, 1},
                                          {0, 0}, {0, 0});
  dnnl::convolution_forward::primitive_desc cpd;
  try {
    cpd = dnnl::convolution_forward::primitive_desc(d, attr, engine);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  const std::string impl = cpd.impl_info_str();
  if (impl.find("1x1") == std::string::npos && impl.find("brg") == std::string::npos) return nullptr;
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, plan->AddSlot(SlotKind::kInput, 0, src)});
  args.push_back({DNNL_ARG_WEIGHTS, plan->AddConstant(Pack(engine, w_user, w.data, cpd.weights_desc()))});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(*plan, engine, *bias, 2, bias_md, cpd.bias_desc())});
  args.push_back({DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, dst)});
  plan->AddScratchpad(cpd.scratchpad_desc(), args);
  plan->AddStep(dnnl::convolution_forward(cpd), std::move(args));
  return plan;
}

std::unique_ptr<FastOp> PrepareFullyConnected(const dnnl::engine& engine, const Attributes& attrs,
                                              std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_FULLY_CONNECTED;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("FULLY_CONNECTED: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const TensorRef& w = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (x.shape.empty() || w.shape.size() != 2 || x.shape.back() != w.shape[1])
    Refuse(absl::StrCat("FULLY_CONNECTED: shapes ", ShapeText(x.shape), " and ", ShapeText(w.shape)));
  const int64_t k = w.shape[1], n = w.shape[0];
  if (bias && bias->shape != std::vector<int64_t>{n}) Refuse("FULLY_CONNECTED: bias shape");
  int64_t m = 1;
  for (size_t i = 0; i + 1 < x.shape.size(); ++i) m *= x.shape[i];
  std::vector<int64_t> expected(x.shape.begin(), x.shape.end() - 1);
  expected.push_back(n);
  RequireOutputShape(op, outs[0], expected);
  if (auto conv = RowsTimesWeightsAsConv(op, engine, attrs, m, k, n, w, Plain({n, k, 1, 1}), bias)) return conv;
  // W [N, K] row-major is the {K, N} matrix in "ba" layout.
  const memory::desc w_user({k, n}, memory::data_type::f32, memory::format_tag::ba);
  return MatmulPlan(op, engine, attrs, x, Plain({m, k}), w, w_user, bias, Plain({1, n}), Plain({m, n}));
}

std::unique_ptr<FastOp> PrepareMatmul(const dnnl::engine& engine, const Attributes& attrs,
                                      std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_MATMUL;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("MATMUL: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& a = ins[0];
  const TensorRef& b = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (a.shape.empty() || b.shape.empty()) Refuse("MATMUL: rank 0");
  Dims as(a.shape.begin(), a.shape.end()), bs(b.shape.begin(), b.shape.end());
  const bool drop_m = as.size() == 1, drop_n = bs.size() == 1;
  if (drop_m) as.insert(as.begin(), 1);
  if (drop_n) bs.push_back(1);
  const size_t r = std::max(as.size(), bs.size());
  as.insert(as.begin(), r - as.size(), 1);
  bs.insert(bs.begin(), r - bs.size(), 1);
  if (as[r - 1] != bs[r - 2]) Refuse(absl::StrCat("MATMUL: shapes ", ShapeText(a.shape), " and ", ShapeText(b.shape)));
  Dims ds(r);
  std::vector<int64_t> expected;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) Refuse("MATMUL: batch dims do not broadcast");
    ds[i] = std::max(as[i], bs[i]);
    expected.push_back(ds[i]);
  }
  ds[r - 2] = as[r - 2];
  ds[r - 1] = bs[r - 1];
  if (!drop_m) expected.push_back(ds[r - 2]);
  if (!drop_n) expected.push_back(ds[r - 1]);
  RequireOutputShape(op, outs[0], expected);
  if (bias && bias->shape != std::vector<int64_t>{ds[r - 1]}) Refuse("MATMUL: bias shape");
  // A constant 2-D B: every row of A times the same weights.
  if (b.data != nullptr && b.shape.size() == 2 && !drop_n) {
    const int64_t k = bs[r - 2], n = bs[r - 1];
    const int64_t rows = a.element_count() / k;
    // B [K, N] row-major described as {N, K, 1, 1}.
    const memory::desc w_user({n, k, 1, 1}, memory::data_type::f32, Dims{1, n, 1, 1});
    if (auto conv = RowsTimesWeightsAsConv(op, engine, attrs, rows, k, n, b, w_user, bias)) return conv;
  }
  Dims bias_dims(r, 1);
  bias_dims[r - 1] = ds[r - 1];
  return MatmulPlan(op, engine, attrs, a, Plain(as), b, Plain(bs), bias, Plain(bias_dims), Plain(ds));
}

// ---- CONV_2D ------------------------------------------------------------------

std::vector<int64_t> PairOrDefault(const Attributes& attrs, int32_t key, size_t len, int64_t dflt, int64_t min_value,
                                   const char* what) {
  auto v = attrs.GetInts(key);
  if (v.empty()) return std::vector<int64_t>(len, dflt);
  if (v.size() != len) Refuse(absl::StrCat(what, " length"));
  for (int64_t e : v)
    if (e < min_value) Refuse(absl::StrCat(what, " value ", e));
  return {v.begin(), v.end()};
}

// An activation tensor inside a plan: its slot and layout.
struct Act {
  int slot;
  memory::desc desc;
  bool is_output = false;
};

// `a` in layout `want`: itself, or a temporary it is reordered into.
Act Into(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& want) {
  if (a.desc == want) return a;
  const int t = plan.AddSlot(SlotKind::kTemp, -1, want);
  plan.AddStep(dnnl::reorder(dnnl::reorder::primitive_desc(engine, a.desc, engine, want)),
               {{DNNL_ARG_FROM, a.slot}, {DNNL_ARG_TO, t}});
  return {t, want};
}

// Ends a plan: the last activation goes to output 0 in plain layout.
void Finish(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& plain) {
  if (a.is_output) return;
  const int out = plan.AddSlot(SlotKind::kOutput, 0, plain);
  plan.AddStep(dnnl::reorder(dnnl::reorder::primitive_desc(engine, a.desc, engine, plain)),
               {{DNNL_ARG_FROM, a.slot}, {DNNL_ARG_TO, out}});
}

// A destination: output 0 directly when this is the last primitive and it
// writes the plain layout, else a temporary in the primitive's layout.
Act Destination(PlanOp& plan, const memory::desc& desc, const memory::desc& plain, bool last) {
  if (last && desc == plain) return {plan.AddSlot(SlotKind::kOutput, 0, plain), plain, true};
  return {plan.AddSlot(SlotKind::kTemp, -1, desc), desc};
}

// Appends a CONV_2D reading `src`. The convolution picks its preferred
// activation layouts (blocked on AVX2/AVX-512); `src` is reordered into
// it when needed, and the result stays in it (see Finish and PrepareChain).
Act AppendConv(PlanOp& plan, const dnnl::engine& engine, const Attributes& attrs, std::span<const TensorRef> ins,
               std::span<const TensorRef> outs, const Act& src, bool last) {
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
  const int64_t eh = h + pd[0] + pd[2] - dl[0] * (kh - 1) - 1;
  const int64_t ew = wd + pd[1] + pd[3] - dl[1] * (kw - 1) - 1;
  if (eh < 0 || ew < 0) Refuse("CONV_2D: kernel exceeds padded input");
  const int64_t oh = eh / st[0] + 1, ow = ew / st[1] + 1;
  RequireOutputShape(op, outs[0], {n, m, oh, ow});
  if (bias && bias->shape != std::vector<int64_t>{m}) Refuse("CONV_2D: bias shape");

  const Dims src_dims{n, c, h, wd}, dst_dims{n, m, oh, ow};
  const Dims w_dims = g == 1 ? Dims{m, c, kh, kw} : Dims{g, m / g, cg, kh, kw};
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const memory::desc bias_md = Plain({m});
  const dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, Any(src_dims), Any(w_dims),
      bias ? bias_md : memory::desc(), Any(dst_dims), {st[0], st[1]}, {dl[0] - 1, dl[1] - 1}, {pd[0], pd[1]},
      {pd[2], pd[3]});
  const dnnl::convolution_forward::primitive_desc cpd(d, attr, engine);
  const Act in = Into(plan, engine, src, cpd.src_desc());
  const Act out = Destination(plan, cpd.dst_desc(), Plain(dst_dims), last);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, in.slot});
  args.push_back({DNNL_ARG_WEIGHTS, BindInput(plan, engine, w, 1, Plain(w_dims), cpd.weights_desc())});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(plan, engine, *bias, 2, bias_md, cpd.bias_desc())});
  args.push_back({DNNL_ARG_DST, out.slot});
  plan.AddScratchpad(cpd.scratchpad_desc(), args);
  plan.AddStep(dnnl::convolution_forward(cpd), std::move(args));
  return out;
}

// Activations arrive and leave in NCHW; when the convolution prefers a
// blocked layout they are reordered around it (cheaper than running a
// plain-layout convolution: see docs/benchmarks.md).
std::unique_ptr<FastOp> PrepareConv(const dnnl::engine& engine, const Attributes& attrs,
                                    std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  auto plan = std::make_unique<PlanOp>("CONV_2D", engine);
  if (ins.empty() || outs.empty()) Refuse("CONV_2D: arity");
  // Weights or bias that arrive at run time (graph inputs, as in some ONNX
  // node tests) go to the reference kernel: this path packs them at load.
  for (size_t i = 1; i < ins.size(); ++i)
    if (Present(ins, i) && ins[i].data == nullptr) Refuse("CONV_2D: runtime weights or bias");
  const memory::desc src_plain = Plain({ins[0].shape.begin(), ins[0].shape.end()});
  const Act in{plan->AddSlot(SlotKind::kInput, 0, src_plain), src_plain};
  const Act out = AppendConv(*plan, engine, attrs, ins, outs, in, /*last=*/true);
  Finish(*plan, engine, out, Plain({outs[0].shape.begin(), outs[0].shape.end()}));
  return plan;
}

// ---- MAX_POOL_2D / AVG_POOL_2D ------------------------------------------------

// True when every window along one spatial axis sees at least one real tap.
bool EveryWindowHasATap(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pad_begin) {
  for (int64_t o = 0; o < out; ++o) {
    bool any = false;
    for (int64_t j = 0; j < k && !any; ++j) {
      const int64_t i = o * s - pad_begin + j * d;
      any = i >= 0 && i < in;
    }
    if (!any) return false;
  }
  return true;
}

// SLICE (attribute form, positive steps) as a reorder from a strided view
// of the input: exact.
std::unique_ptr<FastOp> PrepareSlice(const dnnl::engine& engine, const Attributes& attrs,
                                     std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SLICE;
  if (ins.size() != 1 || outs.size() != 1) Refuse("SLICE: starts/ends given as inputs");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0 || x.data != nullptr) Refuse("SLICE: rank 0 or constant input");
  const auto starts = attrs.GetInts(TSR_ATTR_STARTS), ends = attrs.GetInts(TSR_ATTR_ENDS);
  std::vector<int64_t> axes(attrs.GetInts(TSR_ATTR_AXES).begin(), attrs.GetInts(TSR_ATTR_AXES).end());
  std::vector<int64_t> steps(attrs.GetInts(TSR_ATTR_STEPS).begin(), attrs.GetInts(TSR_ATTR_STEPS).end());
  const size_t n = starts.size();
  if (n == 0 || ends.size() != n) Refuse("SLICE: STARTS/ENDS");
  if (axes.empty())
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(n, 1);
  if (axes.size() != n || steps.size() != n) Refuse("SLICE: AXES/STEPS length");
  const Dims in_dims(x.shape.begin(), x.shape.end());
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims out_dims = in_dims, view_strides = in_strides;
  int64_t offset = 0;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (ax < 0 || ax >= rank || seen[ax]) Refuse("SLICE: axes");
    seen[ax] = true;
    const int64_t dim = in_dims[ax], st = steps[i];
    if (st <= 0) Refuse("SLICE: non-positive step");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    b = std::clamp<int64_t>(b, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    const int64_t count = e > b ? (e - b + st - 1) / st : 0;
    if (count == 0) Refuse("SLICE: empty");
    out_dims[ax] = count;
    view_strides[ax] = in_strides[ax] * st;
    offset += b * in_strides[ax];
  }
  RequireOutputShape(op, outs[0], {out_dims.begin(), out_dims.end()});
  memory::desc view(out_dims, memory::data_type::f32, view_strides);
  view.data.offset0 = offset;
  const dnnl::reorder::primitive_desc pd(engine, view, engine, Plain(out_dims));
  auto plan = std::make_unique<PlanOp>("SLICE", engine);
  plan->AddStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, plan->AddSlot(SlotKind::kInput, 0, view)},
                                    {DNNL_ARG_TO, plan->AddSlot(SlotKind::kOutput, 0, Plain(out_dims))}});
  return plan;
}

// SELECT (f32 values, bool condition, numpy broadcasting): oneDNN 2.6 has
// no select primitive, and this is a pure memory-bound copy, so a direct
// loop over the output with per-input broadcast strides. Exact.
class SelectOp : public FastOp {
 public:
  SelectOp(Dims out, std::array<Dims, 3> strides) : out_(std::move(out)), strides_(std::move(strides)) {}
  const char* name() const override { return "SELECT"; }
  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override { return std::make_unique<FastOpState>(); }
  absl::Status Run(FastOpState&, std::span<void* const> inputs, std::span<void* const> outputs) const override {
    if (inputs.size() != 3 || outputs.size() != 1) return absl::InvalidArgumentError("SELECT: tensors not bound");
    const auto* c = static_cast<const uint8_t*>(inputs[0]);
    const auto* x = static_cast<const float*>(inputs[1]);
    const auto* y = static_cast<const float*>(inputs[2]);
    auto* out = static_cast<float*>(outputs[0]);
    const size_t r = out_.size();
    const int64_t inner = out_[r - 1];
    const int64_t cs = strides_[0][r - 1], xs = strides_[1][r - 1], ys = strides_[2][r - 1];
    std::vector<int64_t> idx(r, 0);
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < r; ++i) rows *= out_[i];
    for (int64_t row = 0; row < rows; ++row) {
      int64_t co = 0, xo = 0, yo = 0;
      for (size_t i = 0; i + 1 < r; ++i) {
        co += idx[i] * strides_[0][i];
        xo += idx[i] * strides_[1][i];
        yo += idx[i] * strides_[2][i];
      }
      for (int64_t j = 0; j < inner; ++j) out[j] = c[co + j * cs] ? x[xo + j * xs] : y[yo + j * ys];
      out += inner;
      for (int i = static_cast<int>(r) - 2; i >= 0; --i) {
        if (++idx[i] < out_[i]) break;
        idx[i] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  Dims out_;
  std::array<Dims, 3> strides_;  // per input, 0 along broadcast dims
};

std::unique_ptr<FastOp> PrepareSelect(std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SELECT;
  if (ins.size() != 3 || outs.size() != 1) Refuse("SELECT: arity");
  if (ins[0].dtype != TSR_DTYPE_BOOL) Refuse("SELECT: condition dtype");
  RequireF32(op, ins.subspan(1));
  RequireF32(op, outs);
  size_t r = 0;
  for (const TensorRef& t : ins) r = std::max(r, t.shape.size());
  if (r == 0) Refuse("SELECT: scalars");
  Dims out(r, 1);
  std::array<Dims, 3> padded;
  for (size_t k = 0; k < 3; ++k) {
    if (ins[k].quant.quantized()) Refuse("SELECT: quantized");
    padded[k] = Dims(r - ins[k].shape.size(), 1);
    padded[k].insert(padded[k].end(), ins[k].shape.begin(), ins[k].shape.end());
    for (int64_t d : padded[k])
      if (d <= 0) Refuse("SELECT: empty tensor");
  }
  for (size_t i = 0; i < r; ++i) {
    for (size_t k = 0; k < 3; ++k) {
      const int64_t d = padded[k][i];
      if (d != 1 && out[i] != 1 && d != out[i]) Refuse("SELECT: shapes do not broadcast");
      out[i] = std::max(out[i], d);
    }
  }
  RequireOutputShape(op, outs[0], {out.begin(), out.end()});
  std::array<Dims, 3> strides;
  for (size_t k = 0; k < 3; ++k) {
    strides[k] = RowMajorStrides(padded[k]);
    for (size_t i = 0; i < r; ++i)
      if (padded[k][i] == 1) strides[k][i] = 0;
  }
  return std::make_unique<SelectOp>(out, strides);
}

// A pooling primitive in a channel-blocked layout: oneDNN 2.6 pools NCHW
// with a plain loop ("simple_nchw", ~15x slower here), while its JIT
// kernels want channels blocked by the vector width. A plain `src` is
// reordered into that layout; a blocked one (from a convolution) is used
// as it is; the result keeps the layout.
Act AppendPoolPrimitive(PlanOp& plan, const dnnl::engine& engine, dnnl::algorithm alg, const Dims& src_dims,
                        const Dims& dst_dims, const Dims& strides, const Dims& kernel, const Dims& dilation,
                        const Dims& pad_l, const Dims& pad_r, const Act& src, bool last) {
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
  const Act out = Destination(plan, ppd.dst_desc(), Plain(dst_dims), last);
  std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, in.slot}, {DNNL_ARG_DST, out.slot}};
  plan.AddScratchpad(ppd.scratchpad_desc(), args);
  plan.AddStep(dnnl::pooling_v2_forward(ppd), std::move(args));
  return out;
}

Act AppendPool(PlanOp& plan, int32_t op, const dnnl::engine& engine, const Attributes& attrs,
               std::span<const TensorRef> ins, std::span<const TensorRef> outs, const Act& src, bool last) {
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
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  int64_t out[2], pad_end[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t e = dl[a] * (ks[a] - 1) + 1;
    const int64_t span = in[a] + pd[a] + pd[a + 2] - e;
    if (span < 0) Refuse("pool: window exceeds padded input");
    int64_t o = ceil_mode ? (span + st[a] - 1) / st[a] + 1 : span / st[a] + 1;
    if (ceil_mode && (o - 1) * st[a] >= in[a] + pd[a]) --o;
    out[a] = o;
    // oneDNN derives the output size with floor; the end padding that gives
    // exactly `o` windows (taps past the real input are never read).
    pad_end[a] = (o - 1) * st[a] + e - in[a] - pd[a];
    if (pad_end[a] < 0) pad_end[a] = 0;
    if (include_pad && pad_end[a] != pd[a + 2]) Refuse("pool: COUNT_INCLUDE_PAD with ceil-mode windows");
    if (!EveryWindowHasATap(in[a], o, ks[a], st[a], dl[a], pd[a])) Refuse("pool: a window sees only padding");
    if (op == TSR_OP_AVG_POOL_2D && dl[a] != 1) Refuse("AVG_POOL_2D: dilation");
  }
  const Dims src_dims{x.shape[0], x.shape[1], in[0], in[1]};
  const Dims dst_dims{x.shape[0], x.shape[1], out[0], out[1]};
  RequireOutputShape(op, outs[0], {dst_dims.begin(), dst_dims.end()});
  const dnnl::algorithm alg = op == TSR_OP_MAX_POOL_2D ? dnnl::algorithm::pooling_max
                              : include_pad             ? dnnl::algorithm::pooling_avg_include_padding
                                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  return AppendPoolPrimitive(plan, engine, alg, src_dims, dst_dims, {st[0], st[1]}, {ks[0], ks[1]},
                             {dl[0] - 1, dl[1] - 1}, {pd[0], pd[1]}, {pad_end[0], pad_end[1]}, src, last);
}

// GLOBAL_AVG_POOL on [N, C, H, W]: an average pool whose window is the
// whole image.
Act AppendGlobalAvgPool(PlanOp& plan, const dnnl::engine& engine, std::span<const TensorRef> ins,
                        std::span<const TensorRef> outs, const Act& src, bool last) {
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
                             {x.shape[2], x.shape[3]}, {0, 0}, {0, 0}, {0, 0}, src, last);
}

bool Chainable(int32_t op) {
  return op == TSR_OP_CONV_2D || op == TSR_OP_MAX_POOL_2D || op == TSR_OP_AVG_POOL_2D ||
         op == TSR_OP_GLOBAL_AVG_POOL;
}

Act AppendChainable(PlanOp& plan, const dnnl::engine& engine, const ChainLink& link, const Act& src, bool last) {
  switch (link.op_type) {
    case TSR_OP_CONV_2D: return AppendConv(plan, engine, link.attrs, link.inputs, link.outputs, src, last);
    case TSR_OP_GLOBAL_AVG_POOL: return AppendGlobalAvgPool(plan, engine, link.inputs, link.outputs, src, last);
    default: return AppendPool(plan, link.op_type, engine, link.attrs, link.inputs, link.outputs, src, last);
  }
}

// One op, or a chain of them whose intermediates never leave the layout
// the primitives prefer (no reorders between them).
std::unique_ptr<FastOp> PrepareChainable(const dnnl::engine& engine, std::span<const ChainLink> links) {
  if (links.empty()) Refuse("empty chain");
  std::string name;
  for (size_t k = 0; k < links.size(); ++k) {
    const ChainLink& l = links[k];
    if (!Chainable(l.op_type)) Refuse(absl::StrCat(OpTypeName(l.op_type), ": not a convolution or pool"));
    if (l.inputs.empty() || l.outputs.size() != 1 || l.inputs[0].data != nullptr) Refuse("chain: input 0");
    if (k > 0) {
      if (l.inputs[0].shape != links[k - 1].outputs[0].shape) Refuse("chain: shapes do not connect");
      for (size_t i = 1; i < l.inputs.size(); ++i)
        if (Present(l.inputs, i) && l.inputs[i].data == nullptr) Refuse("chain: runtime weights inside a chain");
    }
    name += (k ? "+" : "") + std::string(OpTypeName(l.op_type));
  }
  auto plan = std::make_unique<PlanOp>(name, engine);
  const memory::desc src_plain = Plain({links[0].inputs[0].shape.begin(), links[0].inputs[0].shape.end()});
  Act a{plan->AddSlot(SlotKind::kInput, 0, src_plain), src_plain};
  for (size_t k = 0; k < links.size(); ++k) a = AppendChainable(*plan, engine, links[k], a, k + 1 == links.size());
  const TensorRef& y = links.back().outputs[0];
  Finish(*plan, engine, a, Plain({y.shape.begin(), y.shape.end()}));
  return plan;
}

// ---- Elementwise binary, SOFTMAX, TRANSPOSE ------------------------------------

// ADD SUB MUL DIV on f32 with numpy broadcasting, as oneDNN's binary
// primitive: the first source must have the output's shape and the second
// may broadcast (ADD and MUL swap their operands when only the first one
// broadcasts). IEEE f32 arithmetic, so bit-identical to the reference.
std::unique_ptr<FastOp> PrepareBinary(int32_t op, const dnnl::engine& engine, std::span<const TensorRef> ins,
                                      std::span<const TensorRef> outs) {
  if (ins.size() != 2 || outs.size() != 1) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, ins);
  RequireF32(op, outs);
  const size_t r = std::max(ins[0].shape.size(), ins[1].shape.size());
  if (r == 0) Refuse(absl::StrCat(OpTypeName(op), ": scalars"));
  auto padded = [&](const std::vector<int64_t>& s) {
    Dims d(r - s.size(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return d;
  };
  Dims a = padded(ins[0].shape), b = padded(ins[1].shape), y(r);
  for (size_t i = 0; i < r; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) Refuse(absl::StrCat(OpTypeName(op), ": shapes do not broadcast"));
    y[i] = std::max(a[i], b[i]);
  }
  RequireOutputShape(op, outs[0], std::vector<int64_t>(y.begin(), y.end()));
  int first = 0, second = 1;
  if (a != y) {
    if (b != y || (op != TSR_OP_ADD && op != TSR_OP_MUL)) Refuse(absl::StrCat(OpTypeName(op), ": first input broadcasts"));
    std::swap(first, second);
    std::swap(a, b);
  }
  const dnnl::algorithm alg = op == TSR_OP_ADD   ? dnnl::algorithm::binary_add
                              : op == TSR_OP_SUB ? dnnl::algorithm::binary_sub
                              : op == TSR_OP_MUL ? dnnl::algorithm::binary_mul
                                                 : dnnl::algorithm::binary_div;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, Plain(a), Plain(b), Plain(y)), attr, engine);
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args = {
      {DNNL_ARG_SRC_0, BindInput(*plan, engine, ins[first], first, Plain(a), Plain(a))},
      {DNNL_ARG_SRC_1, BindInput(*plan, engine, ins[second], second, Plain(b), Plain(b))},
      {DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, Plain(y))}};
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::binary(pd), std::move(args));
  return plan;
}

std::unique_ptr<FastOp> PrepareSoftmax(const dnnl::engine& engine, const Attributes& attrs,
                                       std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SOFTMAX;
  if (ins.size() != 1 || outs.size() != 1) Refuse("SOFTMAX: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  if (x.shape.empty() || x.data != nullptr) Refuse("SOFTMAX: rank 0 or constant input");
  RequireOutputShape(op, outs[0], x.shape);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = attrs.GetInt(TSR_ATTR_AXIS, -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) Refuse("SOFTMAX: axis");
  const memory::desc md = Plain({x.shape.begin(), x.shape.end()});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, static_cast<int>(axis)), attr, engine);
  auto plan = std::make_unique<PlanOp>("SOFTMAX", engine);
  std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, plan->AddSlot(SlotKind::kInput, 0, md)},
                                           {DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, md)}};
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::softmax_forward(pd), std::move(args));
  return plan;
}

// TRANSPOSE as a reorder: the input is described in the output's dim order
// with permuted strides, and copied into the plain output. Exact.
std::unique_ptr<FastOp> PrepareTranspose(const dnnl::engine& engine, const Attributes& attrs,
                                         std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_TRANSPOSE;
  if (ins.size() != 1 || outs.size() != 1) Refuse("TRANSPOSE: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const size_t r = x.shape.size();
  if (r == 0 || x.data != nullptr) Refuse("TRANSPOSE: rank 0 or constant input");
  std::vector<int64_t> perm(attrs.GetInts(TSR_ATTR_PERM).begin(), attrs.GetInts(TSR_ATTR_PERM).end());
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) Refuse("TRANSPOSE: PERM length");
  std::vector<bool> seen(r, false);
  for (int64_t& p : perm) {
    if (p < 0) p += static_cast<int64_t>(r);
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[p]) Refuse("TRANSPOSE: PERM is not a permutation");
    seen[p] = true;
  }
  const Dims in_dims(x.shape.begin(), x.shape.end());
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims out_dims(r), view_strides(r);
  for (size_t i = 0; i < r; ++i) {
    out_dims[i] = in_dims[perm[i]];
    view_strides[i] = in_strides[perm[i]];
  }
  RequireOutputShape(op, outs[0], {out_dims.begin(), out_dims.end()});
  const memory::desc view(out_dims, memory::data_type::f32, view_strides);
  const dnnl::reorder::primitive_desc pd(engine, view, engine, Plain(out_dims));
  auto plan = std::make_unique<PlanOp>("TRANSPOSE", engine);
  plan->AddStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, plan->AddSlot(SlotKind::kInput, 0, view)},
                                    {DNNL_ARG_TO, plan->AddSlot(SlotKind::kOutput, 0, Plain(out_dims))}});
  return plan;
}

// ---- The engine -----------------------------------------------------------------

class DnnlEngine : public FastEngine {
 public:
  explicit DnnlEngine(int threads) : threads_(threads), engine_(dnnl::engine::kind::cpu, 0) {}
  int threads() const override { return threads_; }

  std::unique_ptr<FastOp> Prepare(int32_t op_type, const Attributes& attrs, std::span<const TensorRef> inputs,
                                  std::span<const TensorRef> outputs, std::string* why_not) const override {
    ScopedThreads threads(threads_);
    std::string why;
    try {
      switch (op_type) {
        case TSR_OP_FULLY_CONNECTED: return PrepareFullyConnected(engine_, attrs, inputs, outputs);
        case TSR_OP_MATMUL: return PrepareMatmul(engine_, attrs, inputs, outputs);
        case TSR_OP_CONV_2D: return PrepareConv(engine_, attrs, inputs, outputs);
        case TSR_OP_MAX_POOL_2D:
        case TSR_OP_AVG_POOL_2D:
        case TSR_OP_GLOBAL_AVG_POOL: {
          const ChainLink link{op_type, attrs, {inputs.begin(), inputs.end()}, {outputs.begin(), outputs.end()}};
          return PrepareChainable(engine_, {&link, 1});
        }
        case TSR_OP_ADD:
        case TSR_OP_SUB:
        case TSR_OP_MUL:
        case TSR_OP_DIV: return PrepareBinary(op_type, engine_, inputs, outputs);
        case TSR_OP_SOFTMAX: return PrepareSoftmax(engine_, attrs, inputs, outputs);
        case TSR_OP_TRANSPOSE: return PrepareTranspose(engine_, attrs, inputs, outputs);
        case TSR_OP_SLICE: return PrepareSlice(engine_, attrs, inputs, outputs);
        case TSR_OP_SELECT: return PrepareSelect(inputs, outputs);
        default: why = absl::StrCat(OpTypeName(op_type), ": no fast kernel"); break;
      }
    } catch (const NotHandled& e) {
      why = e.why;
    } catch (const dnnl::error& e) {
      why = absl::StrCat(OpTypeName(op_type), ": oneDNN: ", e.what());
    } catch (const std::exception& e) {
      why = absl::StrCat(OpTypeName(op_type), ": ", e.what());
    }
    if (why_not) *why_not = why;
    return nullptr;
  }

  std::unique_ptr<FastOp> PrepareChain(std::span<const ChainLink> links, std::string* why_not) const override {
    ScopedThreads threads(threads_);
    std::string why;
    try {
      return PrepareChainable(engine_, links);
    } catch (const NotHandled& e) {
      why = e.why;
    } catch (const dnnl::error& e) {
      why = absl::StrCat("chain: oneDNN: ", e.what());
    } catch (const std::exception& e) {
      why = absl::StrCat("chain: ", e.what());
    }
    if (why_not) *why_not = why;
    return nullptr;
  }

 private:
  int threads_;
  dnnl::engine engine_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FastEngine>> FastEngine::Create(int threads) {
  if (threads < 1) return absl::InvalidArgumentError(absl::StrCat("fast kernels: threads must be >= 1, not ", threads));
  try {
    return std::unique_ptr<FastEngine>(std::make_unique<DnnlEngine>(threads));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("fast kernels: no oneDNN cpu engine: ", e.what()));
  }
}

ScopedThreads::ScopedThreads(int threads) : previous_(omp_get_max_threads()) {
  if (threads != previous_) omp_set_num_threads(threads);
}

ScopedThreads::~ScopedThreads() {
  if (omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

std::string FastLibraryVersion() {
  const dnnl_version_t* v = dnnl_version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP   ? "OpenMP"
                        : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                        : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential"
                                                             : "other";
  return absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, " (", runtime, " runtime)");
}

}  // namespace tessera::cpu::fast
