#include "dispatch/cpu_program.h"

#include "absl/strings/str_cat.h"
#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

TensorRef Ref(const kit::SnapshotTensor& t, void* data) {
  TensorRef r;
  r.dtype = t.dtype;
  r.shape = t.shape;
  r.data = data;
  r.quant.scales = t.quant.scales;
  r.quant.zero_points = t.quant.zero_points;
  r.quant.axis = t.quant.axis;
  return r;
}

}  // namespace

absl::StatusOr<CpuProgram> LoadCpuProgram(std::span<const uint8_t> encoded) {
  absl::StatusOr<kit::GraphSnapshot> g = kit::DecodeSnapshot(encoded);
  if (!g.ok()) return g.status();
  CpuProgram p;
  p.graph = *std::move(g);
  const size_t n = p.graph.tensors.size();
  p.tensor_bytes.resize(n);
  p.input_slot.assign(n, -1);
  p.output_slot.assign(n, -1);
  for (size_t t = 0; t < n; ++t)
    p.tensor_bytes[t] = static_cast<size_t>(kit::ElementCount(p.graph.tensors[t].shape)) *
                        kit::DTypeByteSize(p.graph.tensors[t].dtype);
  for (size_t i = 0; i < p.graph.inputs.size(); ++i) p.input_slot[p.graph.inputs[i]] = static_cast<int32_t>(i);
  for (size_t i = 0; i < p.graph.outputs.size(); ++i) p.output_slot[p.graph.outputs[i]] = static_cast<int32_t>(i);
  // Every tensor an op reads must be an input, a constant, or written by an
  // earlier op: the interpreter relies on it.
  std::vector<bool> ready(n, false);
  for (size_t t = 0; t < n; ++t) ready[t] = p.graph.tensors[t].is_constant || p.input_slot[t] >= 0;
  for (size_t o = 0; o < p.graph.ops.size(); ++o) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    for (int32_t t : op.inputs)
      if (t >= 0 && !ready[t])
        return absl::InvalidArgumentError(absl::StrCat("cpu program: op ", o, " reads tensor ", t, " before it is written"));
    for (int32_t t : op.outputs) {
      if (p.graph.tensors[t].is_constant || p.input_slot[t] >= 0)
        return absl::InvalidArgumentError(absl::StrCat("cpu program: op ", o, " writes a constant or an input"));
      ready[t] = true;
    }
    Attributes attrs;
    for (const auto& [key, value] : op.attrs) {
      if (!value.ints.empty() || value.floats.empty()) attrs.SetInts(key, value.ints);
      if (!value.floats.empty()) attrs.SetFloats(key, value.floats);
    }
    p.op_attrs.push_back(std::move(attrs));
  }
  for (int32_t t : p.graph.outputs)
    if (!ready[t]) return absl::InvalidArgumentError("cpu program: an output is never written");
  return p;
}

absl::Status RunCpuProgram(const CpuProgram& p, std::span<void* const> inputs, std::span<void* const> outputs,
                           std::vector<std::vector<uint8_t>>& scratch) {
  const size_t n = p.graph.tensors.size();
  if (inputs.size() != p.graph.inputs.size() || outputs.size() != p.graph.outputs.size())
    return absl::InvalidArgumentError("cpu program: wrong number of attached buffers");
  scratch.resize(n);
  std::vector<void*> data(n, nullptr);
  for (size_t t = 0; t < n; ++t) {
    const kit::SnapshotTensor& tensor = p.graph.tensors[t];
    if (tensor.is_constant) {
      // Kernels never write their inputs; constants stay read-only.
      data[t] = const_cast<uint8_t*>(tensor.constant.data());
    } else if (p.input_slot[t] >= 0) {
      data[t] = inputs[p.input_slot[t]];
    } else if (p.output_slot[t] >= 0) {
      data[t] = outputs[p.output_slot[t]];
    } else {
      // Intermediates get 8-byte-aligned storage (vector<uint8_t> from new).
      if (scratch[t].size() != p.tensor_bytes[t]) scratch[t].assign(p.tensor_bytes[t], 0);
      data[t] = scratch[t].data();
    }
  }
  std::vector<TensorRef> ins, outs;
  for (size_t o = 0; o < p.graph.ops.size(); ++o) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    ins.clear();
    outs.clear();
    for (int32_t t : op.inputs) ins.push_back(t >= 0 ? Ref(p.graph.tensors[t], data[t]) : TensorRef{});
    for (int32_t t : op.outputs) outs.push_back(Ref(p.graph.tensors[t], data[t]));
    absl::Status s = RunReferenceOp(op.type, p.op_attrs[o], ins, outs);
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat("op id ", op.id, " (", OpTypeName(op.type), "): ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu
