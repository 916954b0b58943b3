#include "framework/compiler/onnx/passes/fold_batch_norm.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/passes/graph_edit.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

// Where an op's weights keep their output channels.
struct WeightLayout {
  int32_t weights = -1;
  int64_t channels = 0;
  bool channels_last = false;  // MATMUL's B is [K, N]; CONV/FC weights are [M, ...]
  int64_t channel_axis = 0;    // of the op's output
};

bool HasActivation(const Op& op) {
  const Attribute* a = op.FindAttr(TSR_ATTR_ACTIVATION);
  return a != nullptr && !a->ints.empty() && a->ints[0] != TSR_ACTIVATION_NONE;
}

bool Unquantized(const Graph& g, const Op& op) {
  for (int32_t t : op.inputs)
    if (t >= 0 && g.tensors[t].quant.quantized()) return false;
  for (int32_t t : op.outputs)
    if (g.tensors[t].quant.quantized()) return false;
  return true;
}

// The layout of a foldable producer, or nullopt.
std::optional<WeightLayout> LayoutOf(const Graph& g, const Op& op) {
  if (op.outputs.size() != 1 || op.inputs.size() < 2 || op.inputs.size() > 3 || op.inputs[1] < 0) return std::nullopt;
  if (HasActivation(op) || !Unquantized(g, op)) return std::nullopt;
  const Tensor& y = g.tensors[op.outputs[0]];
  const Tensor& w = g.tensors[op.inputs[1]];
  if (!IsFloatDType(y.dtype) || w.dtype != y.dtype || !w.is_constant || y.shape.empty()) return std::nullopt;
  if (op.inputs.size() == 3 && op.inputs[2] >= 0 && !g.tensors[op.inputs[2]].is_constant) return std::nullopt;
  WeightLayout l;
  l.weights = op.inputs[1];
  const int64_t rank = static_cast<int64_t>(y.shape.size());
  switch (op.type) {
    case TSR_OP_CONV_2D:
      if (w.shape.size() != 4 || rank != 4) return std::nullopt;
      l.channels = w.shape[0];
      l.channel_axis = 1;
      break;
    case TSR_OP_FULLY_CONNECTED:
      if (w.shape.size() != 2) return std::nullopt;
      l.channels = w.shape[0];
      l.channel_axis = rank - 1;
      break;
    case TSR_OP_MATMUL:
      if (w.shape.size() != 2) return std::nullopt;
      l.channels = w.shape[1];
      l.channels_last = true;
      l.channel_axis = rank - 1;
      break;
    default:
      return std::nullopt;
  }
  if (l.channels <= 0 || y.shape[l.channel_axis] != l.channels) return std::nullopt;  // empty: nothing to fold
  return l;
}

// The per-channel values of a constant that broadcasts only along
// `channel_axis` of a value of shape `shape`; nullopt otherwise.
std::optional<std::vector<double>> PerChannel(const Graph& g, int32_t c, const std::vector<int64_t>& shape,
                                              int64_t channel_axis, int64_t channels) {
  const std::optional<std::vector<double>> v = FloatConstant(g, c);
  if (!v || v->empty()) return std::nullopt;
  // inf/NaN parameters would spread into every weight of the channel.
  for (double x : *v)
    if (!std::isfinite(x)) return std::nullopt;
  const std::vector<int64_t>& cs = g.tensors[c].shape;
  if (cs.size() > shape.size()) return std::nullopt;
  const size_t offset = shape.size() - cs.size();
  bool per_channel = false;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i] == 1) continue;
    if (static_cast<int64_t>(i + offset) != channel_axis || cs[i] != channels) return std::nullopt;
    per_channel = true;
  }
  if (per_channel) return v;
  return std::vector<double>(static_cast<size_t>(channels), (*v)[0]);
}

// The affine chain y -> y * scale + shift read off the ops after `start`.
struct Chain {
  std::vector<int32_t> ops;
  int32_t result = -1;
  std::vector<double> scale, shift;
};

Chain ReadChain(const Graph& g, const UseIndex& uses, int32_t start, const WeightLayout& l) {
  Chain chain;
  chain.scale.assign(static_cast<size_t>(l.channels), 1.0);
  chain.shift.assign(static_cast<size_t>(l.channels), 0.0);
  int32_t cur = start;
  const Tensor& head = g.tensors[start];
  for (;;) {
    ++ImportPassWork();
    const int32_t r = uses.SoleReader(cur);
    if (r < 0) break;
    const Op& e = g.ops[r];
    if (e.type != TSR_OP_ADD && e.type != TSR_OP_SUB && e.type != TSR_OP_MUL && e.type != TSR_OP_DIV) break;
    if (e.inputs.size() != 2 || e.outputs.size() != 1 || e.inputs[0] == e.inputs[1]) break;
    const bool commutes = e.type == TSR_OP_ADD || e.type == TSR_OP_MUL;
    if (e.inputs[0] != cur && !(commutes && e.inputs[1] == cur)) break;
    const int32_t c = e.inputs[0] == cur ? e.inputs[1] : e.inputs[0];
    const Tensor& out = g.tensors[e.outputs[0]];
    if (c < 0 || out.dtype != head.dtype || out.shape != head.shape || out.quant.quantized()) break;
    const std::optional<std::vector<double>> k = PerChannel(g, c, head.shape, l.channel_axis, l.channels);
    if (!k) break;
    if (e.type == TSR_OP_DIV && std::find(k->begin(), k->end(), 0.0) != k->end()) break;
    for (size_t m = 0; m < k->size(); ++m) {
      const double v = (*k)[m];
      switch (e.type) {
        case TSR_OP_ADD:
          chain.shift[m] += v;
          break;
        case TSR_OP_SUB:
          chain.shift[m] -= v;
          break;
        case TSR_OP_MUL:
          chain.scale[m] *= v;
          chain.shift[m] *= v;
          break;
        default:
          chain.scale[m] /= v;
          chain.shift[m] /= v;
          break;
      }
    }
    chain.ops.push_back(r);
    chain.result = e.outputs[0];
    cur = e.outputs[0];
  }
  return chain;
}

// A RESHAPE right after a CONV_2D that keeps dims 0 and 1, so channels stay
// on axis 1 (1-D Conv reshaping [N, M, 1, L] back to [N, M, L]).
int32_t ChannelKeepingReshape(const Graph& g, const UseIndex& uses, int32_t y) {
  const int32_t r = uses.SoleReader(y);
  if (r < 0) return -1;
  const Op& op = g.ops[r];
  if (op.type != TSR_OP_RESHAPE || op.inputs.empty() || op.inputs[0] != y || op.outputs.size() != 1) return -1;
  const std::vector<int64_t>& in = g.tensors[y].shape;
  const std::vector<int64_t>& out = g.tensors[op.outputs[0]].shape;
  if (out.size() < 2 || out[0] != in[0] || out[1] != in[1] || g.tensors[op.outputs[0]].quant.quantized()) return -1;
  return r;
}

// Folds the chain after op `i` into it, flagging the chain's ops in
// `erase`. The sweep's UseIndex stays right for later ops: a fold only
// rewrites op i's inputs and output tensor and erases ops that read
// nothing but the chain, and no later op reads a chain value.
bool FoldAt(Graph& g, const UseIndex& uses, MadeConstants& made, int32_t i, std::vector<bool>& erase) {
  const std::optional<WeightLayout> layout = LayoutOf(g, g.ops[i]);
  if (!layout) return false;
  const WeightLayout& l = *layout;
  // The op whose output the chain reads: the op, or its 1-D Conv reshape.
  const int32_t reshape = g.ops[i].type == TSR_OP_CONV_2D ? ChannelKeepingReshape(g, uses, g.ops[i].outputs[0]) : -1;
  const int32_t writer = reshape >= 0 ? reshape : i;
  const Chain chain = ReadChain(g, uses, g.ops[writer].outputs[0], l);
  if (chain.ops.empty()) return false;

  const std::optional<std::vector<double>> w = FloatConstant(g, l.weights);
  if (!w) return false;
  const int32_t bias_in = g.ops[i].inputs.size() == 3 ? g.ops[i].inputs[2] : -1;
  std::optional<std::vector<double>> b =
      bias_in >= 0 ? FloatConstant(g, bias_in) : std::vector<double>(static_cast<size_t>(l.channels), 0.0);
  if (!b || static_cast<int64_t>(b->size()) != l.channels) return false;

  std::vector<double> folded = *w;
  const size_t per_channel = folded.size() / static_cast<size_t>(l.channels);
  for (size_t k = 0; k < folded.size(); ++k)
    folded[k] *= chain.scale[l.channels_last ? k % static_cast<size_t>(l.channels) : k / per_channel];
  for (size_t m = 0; m < b->size(); ++m) (*b)[m] = (*b)[m] * chain.scale[m] + chain.shift[m];

  const Tensor& wt = g.tensors[l.weights];
  const int32_t dtype = wt.dtype;
  const std::string base = wt.name;
  std::vector<int64_t> w_shape = wt.shape;
  // Shared: a weight read by N MatMuls each followed by + b stays one
  // constant (the scale is 1), and so does the bias made of b.
  const int32_t new_w = made.Make(g, l.weights, absl::StrCat(base, "/bn_folded"), dtype, std::move(w_shape), folded);
  const int32_t new_b = made.Make(g, bias_in, absl::StrCat(base, "/bn_folded_bias"), dtype, {l.channels}, *b);
  Op& op = g.ops[i];
  op.inputs.resize(3);
  op.inputs[1] = new_w;
  op.inputs[2] = new_b;
  // The chain's result keeps its name and readers; its ops go.
  g.ops[writer].outputs[0] = chain.result;
  for (int32_t e : chain.ops) erase[e] = true;
  return true;
}

}  // namespace

int64_t FoldBatchNorm(Graph& graph) {
  const UseIndex uses(graph);
  MadeConstants made;
  std::vector<bool> erase(graph.ops.size(), false);
  int64_t folded = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    ++ImportPassWork();
    if (!erase[i] && FoldAt(graph, uses, made, static_cast<int32_t>(i), erase)) ++folded;
  }
  if (folded > 0) EraseOps(graph, erase);
  return folded;
}

}  // namespace tessera::onnx_import
