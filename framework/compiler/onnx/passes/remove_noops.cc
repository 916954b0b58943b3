#include "framework/compiler/onnx/passes/remove_noops.h"

#include <algorithm>
#include <vector>

#include "framework/compiler/onnx/passes/graph_edit.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

// RESHAPE, SQUEEZE and UNSQUEEZE copy the bytes unchanged and take the
// output shape as given (docs/ops.md, Layout ops): each is a reshape.
bool IsReshapeLike(const Op& op) {
  return (op.type == TSR_OP_RESHAPE || op.type == TSR_OP_SQUEEZE || op.type == TSR_OP_UNSQUEEZE) &&
         !op.inputs.empty() && op.inputs[0] >= 0 && op.outputs.size() == 1;
}

bool IsIdentity(const Graph& g, const Op& op) {
  if (!IsReshapeLike(op) && !(op.type == TSR_OP_CAST && op.inputs.size() == 1 && op.outputs.size() == 1)) return false;
  const Tensor& x = g.tensors[op.inputs[0]];
  const Tensor& y = g.tensors[op.outputs[0]];
  return x.dtype == y.dtype && x.shape == y.shape && SameQuantization(x, y);
}

// One sweep in op order. A bypassed op's output becomes an alias of its
// input, which every later reader then reads instead (readers come after
// writers), so no rescan is needed; reader counts are kept as upper bounds
// (an op that ends up reading one value twice counts twice), which only
// ever keeps an op that could have gone.
class Sweep {
 public:
  explicit Sweep(Graph& g)
      : g_(g),
        producer_(g.ProducerIndex()),
        readers_(g.tensors.size(), 0),
        alias_(g.tensors.size(), -1),
        is_output_(g.tensors.size(), false),
        erase_(g.ops.size(), false) {
    for (const Op& op : g.ops)
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        ++ImportPassWork();
        const int32_t t = op.inputs[k];
        if (t >= 0 && std::find(op.inputs.begin(), op.inputs.begin() + k, t) == op.inputs.begin() + k) ++readers_[t];
      }
    for (int32_t t : g.outputs) is_output_[t] = true;
  }

  int64_t Run() {
    int64_t changed = 0;
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      ++ImportPassWork();
      const int32_t op = static_cast<int32_t>(i);
      for (int32_t& t : g_.ops[i].inputs)
        if (t >= 0) t = Resolve(t);
      if (Bypass(op)) {
        ++changed;
        continue;
      }
      if (!Collapse(op)) continue;
      ++changed;
      if (Bypass(op)) ++changed;
    }
    if (changed > 0) EraseOps(g_, erase_);
    return changed;
  }

 private:
  int32_t Resolve(int32_t t) {
    int32_t root = t;
    while (alias_[root] >= 0) root = alias_[root];
    while (alias_[t] >= 0) {  // path compression: each alias chain is walked once
      const int32_t next = alias_[t];
      alias_[t] = root;
      t = next;
    }
    return root;
  }

  bool OnlyFeeds(int32_t t) const { return !is_output_[t] && readers_[t] == 1; }

  // Op `op` computes y = x: its readers read x instead; when y is a graph
  // output, x's producer writes y instead (so the output keeps its name and
  // stays an op result), which needs x read by this op alone.
  bool Bypass(int32_t op) {
    if (!IsIdentity(g_, g_.ops[op])) return false;
    const int32_t x = g_.ops[op].inputs[0], y = g_.ops[op].outputs[0];
    if (is_output_[y]) {
      const int32_t p = producer_[x];
      if (p < 0 || !OnlyFeeds(x)) return false;  // e.g. the importer's copy of an input to an output
      std::replace(g_.ops[p].outputs.begin(), g_.ops[p].outputs.end(), x, y);
      producer_[y] = p;
    } else {
      alias_[y] = x;
      readers_[x] += readers_[y] - 1;
    }
    erase_[op] = true;
    return true;
  }

  // A reshape of a reshape becomes one RESHAPE of the first one's source;
  // the first one goes when nothing else reads it.
  bool Collapse(int32_t index) {
    Op& op = g_.ops[index];
    if (!IsReshapeLike(op)) return false;
    const int32_t middle = op.inputs[0];
    const int32_t inner = producer_[middle];
    if (inner < 0 || erase_[inner] || !IsReshapeLike(g_.ops[inner])) return false;
    const int32_t source = g_.ops[inner].inputs[0];
    const Tensor& y = g_.tensors[op.outputs[0]];
    if (!SameQuantization(g_.tensors[source], y) || !SameQuantization(g_.tensors[middle], y)) return false;
    op.type = TSR_OP_RESHAPE;
    op.inputs = {source};
    op.attrs = {{TSR_ATTR_SHAPE, Attribute{y.shape, {}}}};
    if (OnlyFeeds(middle)) {
      erase_[inner] = true;
    } else {
      ++readers_[source];
    }
    --readers_[middle];
    return true;
  }

  Graph& g_;
  std::vector<int32_t> producer_, readers_, alias_;
  std::vector<bool> is_output_, erase_;
};

}  // namespace

int64_t RemoveNoOps(Graph& graph) { return Sweep(graph).Run(); }

}  // namespace tessera::onnx_import
