#include "plugins/cpu/dispatch/elementwise_groups.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

bool IsGroupable(int32_t type) {
  switch (type) {
    case TSR_OP_ADD: case TSR_OP_SUB: case TSR_OP_MUL: case TSR_OP_DIV: case TSR_OP_MAXIMUM: case TSR_OP_MINIMUM:
    case TSR_OP_POW: case TSR_OP_NEG: case TSR_OP_ABS: case TSR_OP_SQRT: case TSR_OP_RSQRT: case TSR_OP_EXP:
    case TSR_OP_LOG: case TSR_OP_SIN: case TSR_OP_COS: case TSR_OP_TANH: case TSR_OP_SIGMOID: case TSR_OP_RELU:
    case TSR_OP_ERF:
      return true;
  }
  return false;
}

}  // namespace

// Greedy runs of consecutive groupable ops whose outputs are all f32 of one
// shape; each run of two or more that the fast kernels accept becomes one
// fast op at its first op (the others are marked fused into it). Every
// tensor a run reads and does not produce is ready when it starts, since
// the run is consecutive in program order. A link's output leaves the
// group when an op outside it or the graph reads it.
void FuseElementwiseGroups(CpuProgram& p, const fast::FastEngine& engine,
                           const std::vector<std::vector<size_t>>& readers, const std::vector<bool>& excluded) {
  const size_t op_count = p.graph.ops.size();
  auto eligible = [&](size_t o, const std::vector<int64_t>* shape) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    if (!IsGroupable(op.type) || excluded[o] || p.fast_ops[o] || p.fused_into[o] >= 0 || op.outputs.size() != 1)
      return false;
    const kit::SnapshotTensor& out = p.graph.tensors[op.outputs[0]];
    if (out.dtype != TSR_DTYPE_F32 || !out.quant.scales.empty()) return false;
    return shape == nullptr || out.shape == *shape;
  };
  for (size_t first = 0; first < op_count;) {
    if (!eligible(first, nullptr)) {
      ++first;
      continue;
    }
    const std::vector<int64_t> shape = p.graph.tensors[p.graph.ops[first].outputs[0]].shape;
    size_t end = first + 1;
    while (end < op_count && eligible(end, &shape)) ++end;
    if (end - first < 2) {
      first = end;
      continue;
    }
    std::vector<fast::GroupLink> links;
    std::vector<int32_t> group_inputs, group_outputs;
    std::vector<int> link_of(p.graph.tensors.size(), -1);  // tensor -> producing link
    for (size_t o = first; o < end; ++o) {
      const kit::SnapshotOp& op = p.graph.ops[o];
      fast::GroupLink link{op.type, p.op_attrs[o], {}, -1};
      for (int32_t t : op.inputs) {
        fast::GroupOperand operand;
        if (t >= 0 && link_of[t] >= 0) {
          operand.link = link_of[t];
        } else {
          auto it = std::find(group_inputs.begin(), group_inputs.end(), t);
          operand.input = static_cast<int>(it - group_inputs.begin());
          if (it == group_inputs.end()) group_inputs.push_back(t);
        }
        link.operands.push_back(operand);
      }
      const int32_t out = op.outputs[0];
      const bool read_outside = p.output_slot[out] >= 0 || o + 1 == end ||
                                std::any_of(readers[out].begin(), readers[out].end(),
                                            [&](size_t r) { return r < first || r >= end; });
      if (read_outside) {
        link.output = static_cast<int>(group_outputs.size());
        group_outputs.push_back(out);
      }
      link_of[out] = static_cast<int>(links.size());
      links.push_back(std::move(link));
    }
    std::vector<TensorRef> ins, outs;
    bool typed = true;
    for (int32_t t : group_inputs) {
      if (t < 0) typed = false;  // an omitted input: no op here takes one
      if (!typed) break;
      const kit::SnapshotTensor& tensor = p.graph.tensors[t];
      ins.push_back(SnapshotRef(tensor, tensor.is_constant ? ConstantData(tensor) : nullptr));
    }
    for (int32_t t : group_outputs) outs.push_back(SnapshotRef(p.graph.tensors[t], nullptr));
    std::string why;
    std::unique_ptr<fast::FastOp> group = typed ? engine.PrepareElementwiseGroup(links, ins, outs, &why) : nullptr;
    if (group) {
      p.fast_ops[first] = std::move(group);
      p.fast_inputs[first] = group_inputs;
      p.fast_outputs[first] = group_outputs;
      for (size_t o = first + 1; o < end; ++o) p.fused_into[o] = static_cast<int32_t>(first);
      p.fast_op_count += end - first;
    }
    first = end;
  }
}


}  // namespace tessera::cpu
