#include "framework/compiler/quantize/activation_fusion.h"

#include <algorithm>
#include <optional>

#include "framework/compiler/quantize/op_inspection.h"
#include "framework/core/graph/tensor_pruning.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::quantize {
namespace {

// The fused activation attributes equivalent to `act`, or nullopt.
std::optional<std::map<int32_t, Attribute>> ActivationAttrs(const Graph& g, const Op& act) {
  if (act.type == TSR_OP_RELU && act.inputs.size() == 1)
    return std::map<int32_t, Attribute>{{TSR_ATTR_ACTIVATION, Attribute{{TSR_ACTIVATION_RELU}, {}}}};
  if (act.type != TSR_OP_CLIP || act.inputs.empty()) return std::nullopt;
  const std::optional<std::pair<float, float>> bounds = ClipBounds(g, act);
  if (!bounds) return std::nullopt;  // a runtime bound cannot become an attribute
  const auto [lo, hi] = *bounds;
  return std::map<int32_t, Attribute>{{TSR_ATTR_ACTIVATION, Attribute{{TSR_ACTIVATION_CLIP}, {}}},
                                      {TSR_ATTR_CLIP_MIN, Attribute{{}, {lo}}},
                                      {TSR_ATTR_CLIP_MAX, Attribute{{}, {hi}}}};
}

bool HasActivation(const Op& op) {
  const Attribute* a = op.FindAttr(TSR_ATTR_ACTIVATION);
  return a != nullptr && !a->ints.empty() && a->ints[0] != TSR_ACTIVATION_NONE;
}

}  // namespace

FusionResult FuseActivations(const Graph& graph) {
  FusionResult r{graph, 0};
  Graph& g = r.graph;
  const std::vector<std::vector<int32_t>> consumers = g.ConsumerIndex();
  std::vector<bool> is_output(g.tensors.size(), false);
  for (int32_t t : g.outputs) is_output[t] = true;
  std::vector<bool> removed(g.ops.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    Op& producer = g.ops[i];
    if (!IsMatrixOp(producer.type) || producer.outputs.size() != 1 || HasActivation(producer)) continue;
    const int32_t y = producer.outputs[0];
    if (g.tensors[y].dtype != TSR_DTYPE_F32 || is_output[y] || consumers[y].size() != 1) continue;
    const int32_t c = consumers[y][0];
    Op& act = g.ops[c];
    if (act.inputs.empty() || act.inputs[0] != y || act.outputs.size() != 1) continue;
    if (std::count(act.inputs.begin(), act.inputs.end(), y) != 1) continue;
    std::optional<std::map<int32_t, Attribute>> attrs = ActivationAttrs(g, act);
    if (!attrs) continue;
    for (auto& [key, value] : *attrs) producer.attrs[key] = value;
    producer.outputs[0] = act.outputs[0];
    removed[c] = true;
    ++r.fused;
  }
  std::vector<Op> kept;
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(g.ops[i]));
  g.ops = std::move(kept);
  PruneUnusedTensors(g);
  return r;
}

}  // namespace tessera::quantize
