#include "runtime/dsp_program.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/cost_model.h"
#include "constant_references.h"
#include "common/dsp_options.h"
#include "common/op_support.h"
#include "kernels/dsp_kernels.h"
#include "tessera/common.h"

namespace tessera::mock_dsp {

absl::StatusOr<DspProgram> LoadDspProgram(std::span<const uint8_t> encoded, const DspSoc& soc) {
  absl::StatusOr<kit::GraphSnapshot> g = kit::DecodeSnapshot(encoded);
  if (!g.ok()) return g.status();
  // The DSP's compiler never names external constants, and its dispatch gets
  // no bindings: bytes that do are refused here, not read as empty weights.
  if (absl::Status s = kit::ResolveConstantReferences(*g, {}); !s.ok()) return s;
  DspProgram p;
  p.graph = *std::move(g);
  for (const kit::SnapshotTensor& t : p.graph.tensors) {
    p.tensor_bytes.push_back(static_cast<uint64_t>(kit::TensorByteSize(t)));  // decoded: always sized
    p.has_f16 |= t.dtype == TSR_DTYPE_F16;
  }
  for (const kit::SnapshotOp& op : p.graph.ops) {
    // The compiler claimed only ops that pass JudgeOp; bytes that say
    // otherwise were not made by it.
    const Verdict v = JudgeOp(p.graph, op);
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat("op id ", op.id, ": ", v.detail));
    p.cycles += OpCycles(soc, p.graph, op);
  }
  return p;
}

absl::Status RunDspProgram(const DspProgram& p, std::span<void* const> inputs, std::span<void* const> outputs) {
  const kit::GraphSnapshot& g = p.graph;
  if (inputs.size() != g.inputs.size() || outputs.size() != g.outputs.size())
    return absl::InvalidArgumentError("run: wrong number of inputs or outputs");
  std::vector<uint8_t*> data(g.tensors.size(), nullptr);
  // Intermediates live in scratch (the DSP's TCM, modelled as host memory).
  std::vector<std::unique_ptr<uint8_t[]>> scratch(g.tensors.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) data[g.inputs[i]] = static_cast<uint8_t*>(inputs[i]);
  for (size_t i = 0; i < g.outputs.size(); ++i) data[g.outputs[i]] = static_cast<uint8_t*>(outputs[i]);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (data[t] != nullptr) continue;
    if (g.tensors[t].is_constant) {
      // Kernels never write their inputs.
      data[t] = const_cast<uint8_t*>(g.tensors[t].constant.data());
    } else {
      scratch[t] = std::make_unique<uint8_t[]>(std::max<uint64_t>(p.tensor_bytes[t], 1));
      data[t] = scratch[t].get();
    }
  }
  auto view = [&](int32_t t) {
    if (t < 0) return DspTensor{};
    return DspTensor{g.tensors[t].dtype, g.tensors[t].shape, data[t]};
  };
  for (const kit::SnapshotOp& op : g.ops) {
    std::vector<DspTensor> ins, outs;
    for (int32_t t : op.inputs) ins.push_back(view(t));
    for (int32_t t : op.outputs) outs.push_back(view(t));
    absl::Status s = RunDspOp(op.type, op.attrs, ins, outs);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("mock_dsp: op id ", op.id, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessera::mock_dsp
