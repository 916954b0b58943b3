#include "plugins/mock_dsp/dispatch/dsp_program.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "plugins/kit/constant_references.h"
#include "plugins/mock_dsp/kernels/dsp_kernels.h"
#include "plugins/mock_dsp/kernels/dsp_tensor.h"
#include "plugins/mock_dsp/shared/cost_model.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/shared/op_support.h"
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

namespace {

// The kernels that move raw bytes (layout ops, SELECT) index dense rows;
// every other kernel goes through LoadFloats/StoreFloats, which read and
// write padded rows in place.
bool ReadsPaddedRows(int32_t op_type) {
  const OpClass c = ClassOf(op_type);
  return c != OpClass::kLayout && c != OpClass::kSelect;
}

}  // namespace

absl::Status RunDspProgram(const DspProgram& p, std::span<const DspIo> inputs, std::span<const DspIo> outputs) {
  const kit::GraphSnapshot& g = p.graph;
  if (inputs.size() != g.inputs.size() || outputs.size() != g.outputs.size())
    return absl::InvalidArgumentError("run: wrong number of inputs or outputs");
  std::vector<uint8_t*> data(g.tensors.size(), nullptr);
  std::vector<int64_t> stride(g.tensors.size(), 0);
  // Intermediates live in scratch (the DSP's TCM, modelled as host memory).
  std::vector<std::unique_ptr<uint8_t[]>> scratch(g.tensors.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    data[g.inputs[i]] = static_cast<uint8_t*>(inputs[i].data);
    stride[g.inputs[i]] = inputs[i].row_stride_bytes;
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    data[g.outputs[i]] = static_cast<uint8_t*>(outputs[i].data);
    stride[g.outputs[i]] = outputs[i].row_stride_bytes;
  }
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
    return DspTensor{g.tensors[t].dtype, g.tensors[t].shape, data[t], stride[t]};
  };
  for (const kit::SnapshotOp& op : g.ops) {
    std::vector<DspTensor> ins, outs;
    for (int32_t t : op.inputs) ins.push_back(view(t));
    for (int32_t t : op.outputs) outs.push_back(view(t));
    // A byte-moving kernel gets dense staging copies of padded tensors
    // (unpacked before, packed after), as a DMA would feed it.
    std::vector<std::vector<uint8_t>> staged;
    std::vector<std::pair<size_t, DspTensor>> pack_after;  // (outs index, padded original)
    if (!ReadsPaddedRows(op.type)) {
      for (DspTensor& v : ins) {
        if (v.data == nullptr || v.dense()) continue;
        staged.emplace_back(LaidOutBytes(v.dtype, v.shape, 0));
        UnpackRows(v, staged.back().data());
        v.data = staged.back().data();
        v.row_stride_bytes = 0;
      }
      for (size_t i = 0; i < outs.size(); ++i) {
        DspTensor& v = outs[i];
        if (v.data == nullptr || v.dense()) continue;
        pack_after.emplace_back(i, v);
        staged.emplace_back(LaidOutBytes(v.dtype, v.shape, 0));
        v.data = staged.back().data();
        v.row_stride_bytes = 0;
      }
    }
    absl::Status s = RunDspOp(op.type, op.attrs, ins, outs);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("mock_dsp: op id ", op.id, ": ", s.message()));
    for (const auto& [i, padded] : pack_after) PackRows(outs[i].data, padded);
  }
  return absl::OkStatus();
}

}  // namespace tessera::mock_dsp
