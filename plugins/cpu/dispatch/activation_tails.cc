#include "plugins/cpu/dispatch/activation_tails.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

class TailMatcher {
 public:
  TailMatcher(const CpuProgram& p, const std::vector<std::vector<size_t>>& readers, int32_t y)
      : p_(p), readers_(readers), y_(y) {}

  // Tensor t may be written inside the tail: y's shape and dtype, and not
  // a graph output unless it is the tail's last (the fused op writes that
  // one).
  bool Written(int32_t t, bool last) const {
    const kit::SnapshotTensor& a = p_.graph.tensors[static_cast<size_t>(t)];
    const kit::SnapshotTensor& y = p_.graph.tensors[static_cast<size_t>(y_)];
    return (last || p_.output_slot[static_cast<size_t>(t)] < 0) && a.dtype == y.dtype && a.shape == y.shape;
  }

  // The only reader of t, or -1.
  int64_t OnlyReader(int32_t t) const {
    return readers_[static_cast<size_t>(t)].size() == 1 ? static_cast<int64_t>(readers_[static_cast<size_t>(t)][0])
                                                       : -1;
  }

  const kit::SnapshotOp& Op(size_t o) const { return p_.graph.ops[o]; }

  // Op o is `type` with one output of y's kind (a tail step).
  bool Step(size_t o, int32_t type, bool last = false) const {
    const kit::SnapshotOp& op = Op(o);
    return op.type == type && op.outputs.size() == 1 && Written(op.outputs[0], last);
  }

  // The value of a one-element f32 constant.
  std::optional<float> Scalar(int32_t t) const {
    if (t < 0) return std::nullopt;
    const kit::SnapshotTensor& c = p_.graph.tensors[static_cast<size_t>(t)];
    if (!c.is_constant || c.dtype != TSR_DTYPE_F32 || c.constant.size() != sizeof(float)) return std::nullopt;
    float v;
    std::memcpy(&v, c.constant.data(), sizeof v);
    return v;
  }

  // Binary op o reads `x` and a scalar constant (either order): the scalar.
  std::optional<float> WithScalar(size_t o, int32_t x) const {
    const kit::SnapshotOp& op = Op(o);
    if (op.inputs.size() != 2) return std::nullopt;
    if (op.inputs[0] == x) return Scalar(op.inputs[1]);
    if (op.inputs[1] == x) return Scalar(op.inputs[0]);
    return std::nullopt;
  }

  // Binary op o reads a and b, in either order.
  bool Reads(size_t o, int32_t a, int32_t b) const {
    const kit::SnapshotOp& op = Op(o);
    return op.inputs.size() == 2 && ((op.inputs[0] == a && op.inputs[1] == b) || (op.inputs[0] == b && op.inputs[1] == a));
  }

  // The last step of a gated tail: MUL(y, gate), gate's only reader.
  bool MultipliesY(size_t mul, int32_t gate, bool last) const {
    return OnlyReader(gate) == static_cast<int64_t>(mul) && Step(mul, TSR_OP_MUL, last) && Reads(mul, y_, gate);
  }

  // CLIP(x) with attribute bounds exactly [lo, hi].
  bool ClipOf(size_t o, int32_t x, float lo, float hi) const {
    const kit::SnapshotOp& op = Op(o);
    const Attributes& a = p_.op_attrs[o];
    return Step(o, TSR_OP_CLIP) && op.inputs.size() == 1 && op.inputs[0] == x &&
           a.GetFloat(TSR_ATTR_CLIP_MIN, NAN) == lo && a.GetFloat(TSR_ATTR_CLIP_MAX, NAN) == hi;
  }

  // y * CLIP(y + 3, 0, 6) * (1/6), or .../ 6.
  std::optional<ActivationTail> HardSwishFromRelu6() const {
    const std::vector<size_t>& r = readers_[static_cast<size_t>(y_)];
    if (r.size() != 2) return std::nullopt;
    for (int first = 0; first < 2; ++first) {
      const size_t add = r[first], mul = r[1 - first];
      if (!Step(add, TSR_OP_ADD) || WithScalar(add, y_) != 3.0f) continue;
      const int64_t clip = OnlyReader(Op(add).outputs[0]);
      if (clip < 0 || !ClipOf(static_cast<size_t>(clip), Op(add).outputs[0], 0.0f, 6.0f)) continue;
      const int32_t relu6 = Op(static_cast<size_t>(clip)).outputs[0];
      if (!MultipliesY(mul, relu6, /*last=*/false)) continue;
      const int64_t scale = OnlyReader(Op(mul).outputs[0]);
      if (scale < 0) continue;
      const size_t s = static_cast<size_t>(scale);
      const std::optional<float> by = WithScalar(s, Op(mul).outputs[0]);
      const bool sixth = (Step(s, TSR_OP_MUL, true) && by.has_value() && std::fabs(*by - 1.0f / 6.0f) <= 1e-7f) ||
                         (Step(s, TSR_OP_DIV, true) && Op(s).inputs[0] == Op(mul).outputs[0] && by == 6.0f);
      if (!sixth) continue;
      return HardSwish({add, static_cast<size_t>(clip), mul, s});
    }
    return std::nullopt;
  }

  // y * CLIP(y * (1/6) + 0.5, 0, 1).
  std::optional<ActivationTail> HardSwishFromHardSigmoid() const {
    const std::vector<size_t>& r = readers_[static_cast<size_t>(y_)];
    if (r.size() != 2) return std::nullopt;
    for (int first = 0; first < 2; ++first) {
      const size_t scale = r[first], mul = r[1 - first];
      const std::optional<float> by = WithScalar(scale, y_);
      if (!Step(scale, TSR_OP_MUL) || !by.has_value() || std::fabs(*by - 1.0f / 6.0f) > 1e-7f) continue;
      const int64_t add = OnlyReader(Op(scale).outputs[0]);
      if (add < 0 || !Step(static_cast<size_t>(add), TSR_OP_ADD) ||
          WithScalar(static_cast<size_t>(add), Op(scale).outputs[0]) != 0.5f)
        continue;
      const int32_t shifted = Op(static_cast<size_t>(add)).outputs[0];
      const int64_t clip = OnlyReader(shifted);
      if (clip < 0 || !ClipOf(static_cast<size_t>(clip), shifted, 0.0f, 1.0f)) continue;
      const int32_t gate = Op(static_cast<size_t>(clip)).outputs[0];
      if (!MultipliesY(mul, gate, /*last=*/true)) continue;
      return HardSwish({scale, static_cast<size_t>(add), static_cast<size_t>(clip), mul});
    }
    return std::nullopt;
  }

  // y * SIGMOID(alpha * y), the MUL by alpha optional (SiLU when absent).
  std::optional<ActivationTail> Swish() const {
    const std::vector<size_t>& r = readers_[static_cast<size_t>(y_)];
    if (r.size() != 2) return std::nullopt;
    for (int first = 0; first < 2; ++first) {
      const size_t head = r[first], mul = r[1 - first];
      std::vector<size_t> ops;
      float alpha = 1.0f;
      int32_t into_sigmoid = y_;
      size_t sigmoid = head;
      if (Step(head, TSR_OP_MUL)) {
        const std::optional<float> a = WithScalar(head, y_);
        const int64_t next = OnlyReader(Op(head).outputs[0]);
        if (!a.has_value() || !std::isfinite(*a) || next < 0) continue;
        alpha = *a;
        ops.push_back(head);
        into_sigmoid = Op(head).outputs[0];
        sigmoid = static_cast<size_t>(next);
      }
      if (!Step(sigmoid, TSR_OP_SIGMOID) || Op(sigmoid).inputs.size() != 1 || Op(sigmoid).inputs[0] != into_sigmoid)
        continue;
      const int32_t gate = Op(sigmoid).outputs[0];
      if (!MultipliesY(mul, gate, /*last=*/true)) continue;
      ops.push_back(sigmoid);
      ops.push_back(mul);
      ActivationTail t;
      t.output = Op(mul).outputs[0];
      t.ops = std::move(ops);
      t.kind = fast::kActivationSwish;
      t.alpha = alpha;
      return t;
    }
    return std::nullopt;
  }

  // Binary op o reads `x` and a scalar constant within 1e-6 relative of
  // `value` (exporters round sqrt(2/pi) and 0.044715 differently).
  bool WithScalarNear(size_t o, int32_t x, float value) const {
    const std::optional<float> c = WithScalar(o, x);
    return c.has_value() && std::fabs(*c - value) <= 1e-6f * std::fabs(value);
  }

  // The op reading t, when it is t's only reader and a one-output `type`
  // step; -1 otherwise.
  int64_t NextStep(int32_t t, int32_t type, bool last = false) const {
    const int64_t o = OnlyReader(t);
    return o >= 0 && Step(static_cast<size_t>(o), type, last) ? o : -1;
  }

  // (0.5 * y) * (1 + TANH(sqrt(2/pi) * (y + 0.044715 * POW(y, 3)))): y's
  // readers are the POW, the inner ADD and the MUL by 0.5.
  std::optional<ActivationTail> GeluTanh() const {
    const std::vector<size_t>& r = readers_[static_cast<size_t>(y_)];
    if (r.size() != 3) return std::nullopt;
    int64_t pow = -1, add = -1, half = -1;
    for (size_t o : r) {
      if (Step(o, TSR_OP_POW) && Op(o).inputs.size() == 2 && Op(o).inputs[0] == y_ && Scalar(Op(o).inputs[1]) == 3.0f)
        pow = static_cast<int64_t>(o);
      else if (Step(o, TSR_OP_MUL) && WithScalar(o, y_) == 0.5f) half = static_cast<int64_t>(o);
      else if (Step(o, TSR_OP_ADD)) add = static_cast<int64_t>(o);
    }
    if (pow < 0 || add < 0 || half < 0) return std::nullopt;
    const int32_t cube = Op(static_cast<size_t>(pow)).outputs[0];
    const int64_t scaled = NextStep(cube, TSR_OP_MUL);
    if (scaled < 0 || !WithScalarNear(static_cast<size_t>(scaled), cube, 0.044715f)) return std::nullopt;
    if (OnlyReader(Op(static_cast<size_t>(scaled)).outputs[0]) != add ||
        !Reads(static_cast<size_t>(add), y_, Op(static_cast<size_t>(scaled)).outputs[0]))
      return std::nullopt;
    const int32_t inner = Op(static_cast<size_t>(add)).outputs[0];
    const int64_t arg = NextStep(inner, TSR_OP_MUL);
    if (arg < 0 || !WithScalarNear(static_cast<size_t>(arg), inner, 0.7978845608f)) return std::nullopt;
    const int32_t arg_out = Op(static_cast<size_t>(arg)).outputs[0];
    const int64_t tanh = NextStep(arg_out, TSR_OP_TANH);
    if (tanh < 0) return std::nullopt;
    const int32_t t = Op(static_cast<size_t>(tanh)).outputs[0];
    const int64_t plus_one = NextStep(t, TSR_OP_ADD);
    if (plus_one < 0 || WithScalar(static_cast<size_t>(plus_one), t) != 1.0f) return std::nullopt;
    const int32_t gate = Op(static_cast<size_t>(plus_one)).outputs[0];
    const int32_t half_y = Op(static_cast<size_t>(half)).outputs[0];
    const int64_t product = NextStep(gate, TSR_OP_MUL, /*last=*/true);
    if (product < 0 || OnlyReader(half_y) != product || !Reads(static_cast<size_t>(product), half_y, gate))
      return std::nullopt;
    ActivationTail tail;
    tail.ops = {static_cast<size_t>(pow),  static_cast<size_t>(scaled),   static_cast<size_t>(add),
                static_cast<size_t>(arg),  static_cast<size_t>(tanh),     static_cast<size_t>(plus_one),
                static_cast<size_t>(half), static_cast<size_t>(product)};
    std::sort(tail.ops.begin(), tail.ops.end());
    tail.output = Op(static_cast<size_t>(product)).outputs[0];
    tail.kind = fast::kActivationGeluTanh;
    return tail;
  }

  // Extends `t` (ending at tensor t.output) by the scalar affine steps
  // that follow it. Each step's input must be read only by it and not be
  // a graph output (it stops being written); a step with a non-finite
  // constant, or c / v, ends the run.
  void ExtendLinear(ActivationTail& t) const {
    while (true) {
      const int32_t v = t.output;
      if (p_.output_slot[static_cast<size_t>(v)] >= 0) return;
      const int64_t next = OnlyReader(v);
      if (next < 0) return;
      const size_t o = static_cast<size_t>(next);
      const kit::SnapshotOp& op = Op(o);
      if (!Step(o, op.type, /*last=*/true) || op.inputs.size() != 2) return;
      const std::optional<float> c = WithScalar(o, v);
      if (!c.has_value() || !std::isfinite(*c)) return;
      const bool v_first = op.inputs[0] == v;
      float a = t.linear_alpha, b = t.linear_beta;
      switch (op.type) {
        case TSR_OP_MUL: a *= *c, b *= *c; break;
        case TSR_OP_ADD: b += *c; break;
        case TSR_OP_SUB:  // v - c, or c - v
          if (v_first) b -= *c;
          else a = -a, b = *c - b;
          break;
        case TSR_OP_DIV:  // v / c only; c / v is not affine
          if (!v_first || *c == 0.0f) return;
          a /= *c, b /= *c;
          break;
        default: return;
      }
      if (!std::isfinite(a) || !std::isfinite(b)) return;
      t.linear_alpha = a, t.linear_beta = b, t.has_linear = true;
      t.ops.push_back(o);
      t.output = op.outputs[0];
    }
  }

  // No activation: the affine steps alone, if any.
  std::optional<ActivationTail> LinearOnly() const {
    ActivationTail t;
    t.output = y_;
    t.kind = TSR_ACTIVATION_NONE;
    ExtendLinear(t);
    if (!t.has_linear) return std::nullopt;
    return t;
  }

  std::optional<ActivationTail> ReluOrClip() const {
    const int64_t a = OnlyReader(y_);
    if (a < 0) return std::nullopt;
    const size_t o = static_cast<size_t>(a);
    const kit::SnapshotOp& act = Op(o);
    if ((act.type != TSR_OP_RELU && act.type != TSR_OP_CLIP) || act.inputs.size() != 1 || !Step(o, act.type, true))
      return std::nullopt;
    ActivationTail t;
    t.ops = {o};
    t.output = act.outputs[0];
    t.kind = act.type == TSR_OP_RELU ? TSR_ACTIVATION_RELU : TSR_ACTIVATION_CLIP;
    const Attributes& attrs = p_.op_attrs[o];
    t.has_min = attrs.Has(TSR_ATTR_CLIP_MIN);
    t.has_max = attrs.Has(TSR_ATTR_CLIP_MAX);
    t.clip_min = attrs.GetFloat(TSR_ATTR_CLIP_MIN, 0.0f);
    t.clip_max = attrs.GetFloat(TSR_ATTR_CLIP_MAX, 0.0f);
    return t;
  }

 private:
  ActivationTail HardSwish(std::vector<size_t> ops) const {
    ActivationTail t;
    t.output = Op(ops.back()).outputs[0];
    t.ops = std::move(ops);
    t.kind = fast::kActivationHardSwish;
    return t;
  }

  const CpuProgram& p_;
  const std::vector<std::vector<size_t>>& readers_;
  const int32_t y_;
};

}  // namespace

Attributes ActivationTail::Apply(Attributes attrs) const {
  attrs.SetInts(TSR_ATTR_ACTIVATION, {kind});
  if (kind == fast::kActivationSwish) attrs.SetFloats(fast::kAttrSwishAlpha, {alpha});
  if (has_min) attrs.SetFloats(TSR_ATTR_CLIP_MIN, {clip_min});
  if (has_max) attrs.SetFloats(TSR_ATTR_CLIP_MAX, {clip_max});
  if (has_linear) {
    attrs.SetFloats(fast::kAttrLinearAlpha, {linear_alpha});
    attrs.SetFloats(fast::kAttrLinearBeta, {linear_beta});
  }
  return attrs;
}

std::optional<ActivationTail> FindActivationTail(const CpuProgram& p, const std::vector<std::vector<size_t>>& readers,
                                                 size_t o) {
  const kit::SnapshotOp& op = p.graph.ops[o];
  if (op.outputs.size() != 1 || p.output_slot[static_cast<size_t>(op.outputs[0])] >= 0) return std::nullopt;
  const TailMatcher m(p, readers, op.outputs[0]);
  std::optional<ActivationTail> t = m.ReluOrClip();
  if (!t) t = m.HardSwishFromRelu6();
  if (!t) t = m.HardSwishFromHardSigmoid();
  if (!t) t = m.Swish();
  if (!t) t = m.GeluTanh();
  if (!t) return m.LinearOnly();
  m.ExtendLinear(*t);
  return t;
}

}  // namespace tessera::cpu
