#include "framework/compiler/onnx/passes/fuse_layer_norm.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/passes/graph_edit.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

// The first normalized axis when `op` is a keepdims REDUCE_MEAN over the
// trailing axes of its input, else -1.
int64_t TrailingMeanAxis(const Graph& g, const Op& op) {
  if (op.type != TSR_OP_REDUCE_MEAN || op.inputs.size() != 1 || op.outputs.size() != 1) return -1;
  const Attribute* keep = op.FindAttr(TSR_ATTR_KEEP_DIMS);
  if (keep != nullptr && !keep->ints.empty() && keep->ints[0] == 0) return -1;
  const int64_t rank = static_cast<int64_t>(g.tensors[op.inputs[0]].shape.size());
  if (rank == 0) return -1;
  const Attribute* axes = op.FindAttr(TSR_ATTR_AXES);
  if (axes == nullptr || axes->ints.empty()) return 0;  // every axis
  std::vector<int64_t> a = axes->ints;
  for (int64_t& v : a) v = v < 0 ? v + rank : v;
  const int64_t first = rank - static_cast<int64_t>(a.size());
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t v : a) {
    if (v < first || v >= rank || seen[v]) return -1;
    seen[v] = true;
  }
  return first;
}

bool IsBinary(const Op& op, int32_t type) { return op.type == type && op.inputs.size() == 2 && op.outputs.size() == 1; }

// The other operand of a binary op that reads `t` once, or -1.
int32_t OtherOperand(const Op& op, int32_t t, bool commutes) {
  if (op.inputs[0] == t && op.inputs[1] != t) return op.inputs[1];
  if (commutes && op.inputs[1] == t && op.inputs[0] != t) return op.inputs[0];
  return -1;
}

bool ConstantEquals(const Graph& g, int32_t t, double value) {
  const std::optional<std::vector<double>> v = FloatConstant(g, t);
  return v && v->size() == 1 && (*v)[0] == value;
}

// gamma/beta as LAYER_NORM reads them: broadcasting one-directionally to
// x.shape[axis:]. Leading unit dims (gamma [1, 1, C]) are dropped; nullopt
// when the constant would broadcast over the non-normalized dims.
std::optional<std::vector<int64_t>> AffineShape(const Graph& g, int32_t c, const Tensor& xt, int64_t axis) {
  if (!FloatConstant(g, c) || g.tensors[c].dtype != xt.dtype) return std::nullopt;
  const std::vector<int64_t>& x = xt.shape;
  std::vector<int64_t> s = g.tensors[c].shape;
  if (s.size() > x.size()) return std::nullopt;
  const size_t offset = x.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 1) continue;
    if (static_cast<int64_t>(i + offset) < axis || s[i] != x[i + offset]) return std::nullopt;
  }
  const size_t normalized = x.size() - static_cast<size_t>(axis);
  if (s.size() > normalized) s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() - normalized));
  return s;
}

struct Match {
  std::vector<int32_t> ops;  // every op of the pattern; the last one is replaced
  int32_t x = -1, result = -1;
  int64_t axis = 0;
  float epsilon = 0;
  int32_t gamma = -1, beta = -1;
  std::vector<int64_t> gamma_shape, beta_shape;
};

std::optional<Match> MatchAt(const Graph& g, const UseIndex& uses, int32_t first) {
  const Op& mean = g.ops[first];
  Match m;
  m.axis = TrailingMeanAxis(g, mean);
  if (m.axis < 0) return std::nullopt;
  m.x = mean.inputs[0];
  const Tensor& xt = g.tensors[m.x];
  if (!IsFloatDType(xt.dtype) || xt.quant.quantized()) return std::nullopt;
  auto same_type = [&](int32_t t) {
    const Tensor& v = g.tensors[t];
    return v.dtype == xt.dtype && !v.quant.quantized();
  };
  // Follows `t` to its only reader when that is a `type` op; -1 otherwise.
  auto sole = [&](int32_t t, int32_t type) {
    const int32_t r = uses.SoleReader(t);
    return r >= 0 && g.ops[r].type == type && same_type(g.ops[r].outputs[0]) ? r : -1;
  };
  m.ops.push_back(first);
  const int32_t sub = sole(mean.outputs[0], TSR_OP_SUB);
  if (sub < 0 || !IsBinary(g.ops[sub], TSR_OP_SUB) || g.ops[sub].inputs[0] != m.x) return std::nullopt;
  const int32_t d = g.ops[sub].outputs[0];
  if (uses.is_output(d) || uses.readers(d).size() != 2 || g.tensors[d].shape != xt.shape) return std::nullopt;
  int32_t square = -1, div = -1;
  for (int32_t r : uses.readers(d)) {
    const Op& op = g.ops[r];
    if (IsBinary(op, TSR_OP_DIV) && op.inputs[0] == d && op.inputs[1] != d)
      div = r;
    else if (IsBinary(op, TSR_OP_MUL) && op.inputs[0] == d && op.inputs[1] == d)
      square = r;
    else if (IsBinary(op, TSR_OP_POW) && op.inputs[0] == d && ConstantEquals(g, op.inputs[1], 2.0))
      square = r;
  }
  if (square < 0 || div < 0 || !same_type(g.ops[square].outputs[0])) return std::nullopt;
  const int32_t var = sole(g.ops[square].outputs[0], TSR_OP_REDUCE_MEAN);
  if (var < 0 || TrailingMeanAxis(g, g.ops[var]) != m.axis) return std::nullopt;
  const int32_t add_eps = sole(g.ops[var].outputs[0], TSR_OP_ADD);
  if (add_eps < 0 || !IsBinary(g.ops[add_eps], TSR_OP_ADD)) return std::nullopt;
  const int32_t eps = OtherOperand(g.ops[add_eps], g.ops[var].outputs[0], true);
  const std::optional<std::vector<double>> eps_value = FloatConstant(g, eps);
  if (!eps_value || eps_value->size() != 1) return std::nullopt;
  m.epsilon = static_cast<float>((*eps_value)[0]);
  const int32_t sqrt = sole(g.ops[add_eps].outputs[0], TSR_OP_SQRT);
  if (sqrt < 0 || g.ops[sqrt].inputs.size() != 1 || uses.SoleReader(g.ops[sqrt].outputs[0]) != div) return std::nullopt;
  if (g.ops[div].inputs[1] != g.ops[sqrt].outputs[0] || !same_type(g.ops[div].outputs[0])) return std::nullopt;
  m.ops.insert(m.ops.end(), {sub, square, var, add_eps, sqrt, div});
  m.result = g.ops[div].outputs[0];

  // Optional affine tail: * gamma, then + beta. Each step takes the op
  // reading the result when it is `type` by a fitting constant.
  auto take = [&](int32_t type, int32_t& operand, std::vector<int64_t>& shape) {
    const int32_t op = sole(m.result, type);
    if (op < 0 || !IsBinary(g.ops[op], type)) return false;
    const int32_t c = OtherOperand(g.ops[op], m.result, true);
    std::optional<std::vector<int64_t>> s = c >= 0 ? AffineShape(g, c, xt, m.axis) : std::nullopt;
    if (!s || g.tensors[g.ops[op].outputs[0]].shape != xt.shape) return false;
    operand = c;
    shape = *s;
    m.ops.push_back(op);
    m.result = g.ops[op].outputs[0];
    return true;
  };
  if (take(TSR_OP_MUL, m.gamma, m.gamma_shape)) take(TSR_OP_ADD, m.beta, m.beta_shape);
  return m;
}

// gamma/beta re-shaped for LAYER_NORM (same values, fewer leading unit
// dims), or ones over the normalized dims when the pattern had no gamma.
int32_t AffineOperand(Graph& g, MadeConstants& made, int32_t c, const std::vector<int64_t>& shape, const Match& m,
                      const char* what) {
  const Tensor& x = g.tensors[m.x];
  const int32_t dtype = x.dtype;
  const std::string name = absl::StrCat(x.name, "/layer_norm_", what);
  if (c < 0) {
    std::vector<int64_t> normalized(x.shape.begin() + m.axis, x.shape.end());
    int64_t n = 1;
    for (int64_t d : normalized) n *= d;
    return made.Make(g, -1, name, dtype, std::move(normalized), std::vector<double>(static_cast<size_t>(n), 1.0));
  }
  if (g.tensors[c].shape == shape) return c;
  return made.Make(g, c, name, dtype, shape, *FloatConstant(g, c));
}

// Replaces the pattern `m` by one LAYER_NORM, flagging its other ops in
// `erase`. The sweep's UseIndex stays right for later ops: the pattern's
// values are read only inside it, and LAYER_NORM writes the same result.
void FuseAt(Graph& g, MadeConstants& made, const Match& m, std::vector<bool>& erase) {
  const int32_t gamma = AffineOperand(g, made, m.gamma, m.gamma_shape, m, "scale");
  std::vector<int32_t> inputs{m.x, gamma};
  if (m.beta >= 0) inputs.push_back(AffineOperand(g, made, m.beta, m.beta_shape, m, "bias"));
  Op ln;
  ln.type = TSR_OP_LAYER_NORM;
  ln.inputs = std::move(inputs);
  ln.outputs = {m.result};
  ln.attrs = {{TSR_ATTR_AXIS, Attribute{{m.axis}, {}}}, {TSR_ATTR_EPSILON, Attribute{{}, {m.epsilon}}}};
  ln.id = g.NextOpId();
  // The last op of the pattern comes after every other one and before
  // every reader of the result: LAYER_NORM takes its place.
  for (int32_t op : m.ops) erase[op] = true;
  const int32_t last = m.ops.back();
  erase[last] = false;
  g.ops[last] = std::move(ln);
}

}  // namespace

int64_t FuseLayerNorm(Graph& graph) {
  const UseIndex uses(graph);
  MadeConstants made;
  std::vector<bool> erase(graph.ops.size(), false);
  int64_t fused = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    ++ImportPassWork();
    if (erase[i]) continue;
    const std::optional<Match> m = MatchAt(graph, uses, static_cast<int32_t>(i));
    if (!m) continue;
    bool taken = false;  // by an earlier fusion: cannot happen in a DAG, but cheap to rule out
    for (int32_t op : m->ops) taken = taken || erase[op];
    if (taken) continue;
    FuseAt(graph, made, *m, erase);
    ++fused;
  }
  if (fused > 0) EraseOps(graph, erase);
  return fused;
}

}  // namespace tessera::onnx_import
