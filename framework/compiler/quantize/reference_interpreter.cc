#include "framework/compiler/quantize/reference_interpreter.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "support/reference_kernels/kernel_api.h"
#include "tessera/ops.h"

namespace tessera::quantize {
namespace {

std::string ShapeText(const std::vector<int64_t>& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

cpu::TensorRef RefOf(const Tensor& t, const uint8_t* data) {
  cpu::TensorRef r;
  r.dtype = t.dtype;
  r.shape = t.shape;
  r.data = const_cast<uint8_t*>(data);  // kernels only read inputs
  r.quant = cpu::QuantParams{t.quant.scales, t.quant.zero_points, t.quant.axis};
  return r;
}

cpu::Attributes AttributesOf(const Op& op) {
  cpu::Attributes a;
  for (const auto& [key, value] : op.attrs) {
    if (!value.floats.empty())
      a.SetFloats(key, value.floats);
    else
      a.SetInts(key, value.ints);
  }
  return a;
}

}  // namespace

absl::Status CheckInputsMatch(const Graph& graph, const std::vector<HostTensor>& inputs, const std::string& what) {
  if (inputs.size() != graph.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the model takes ", graph.inputs.size(), " inputs, got ", inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& want = graph.tensors[graph.inputs[i]];
    const HostTensor& got = inputs[i];
    if (got.dtype != want.dtype || got.shape != want.shape)
      return absl::InvalidArgumentError(absl::StrCat(what, ": input ", i, " ('", want.name, "') must be ",
                                                     DTypeName(want.dtype), " ", ShapeText(want.shape), ", got ",
                                                     DTypeName(got.dtype), " ", ShapeText(got.shape)));
    if (got.data.size() != want.byte_size())
      return absl::InvalidArgumentError(absl::StrCat(what, ": input ", i, " ('", want.name, "') holds ",
                                                     got.data.size(), " bytes, its shape needs ", want.byte_size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>> RunOnReferenceKernels(const Graph& graph, const std::vector<HostTensor>& inputs,
                                                              const TensorVisitor& visit) {
  if (absl::Status s = CheckInputsMatch(graph, inputs, "reference run"); !s.ok()) return s;
  // The last op reading each tensor, so intermediates can be freed early
  // (graph outputs are never freed).
  std::vector<int64_t> last_use(graph.tensors.size(), -1);
  for (size_t i = 0; i < graph.ops.size(); ++i)
    for (int32_t t : graph.ops[i].inputs)
      if (t >= 0) last_use[t] = static_cast<int64_t>(i);
  for (int32_t t : graph.outputs) last_use[t] = static_cast<int64_t>(graph.ops.size());

  std::vector<HostTensor> values(graph.tensors.size());
  std::vector<bool> ready(graph.tensors.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[graph.inputs[i]] = inputs[i];
    ready[graph.inputs[i]] = true;
    if (visit) visit(graph.inputs[i], inputs[i]);
  }
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    if (op.type == TSR_OP_DISPATCH)
      return absl::InvalidArgumentError("the reference interpreter runs uncompiled graphs only (found a DISPATCH op)");
    std::vector<cpu::TensorRef> in;
    for (int32_t t : op.inputs) {
      if (t < 0) {
        in.emplace_back();
        continue;
      }
      const Tensor& tensor = graph.tensors[t];
      if (tensor.is_constant) {
        in.push_back(RefOf(tensor, tensor.data.data()));
        continue;
      }
      if (!ready[t])
        return absl::InvalidArgumentError(
            absl::StrCat(OpTypeName(op.type), " (op ", op.id, ") reads '", tensor.name, "' before it is produced"));
      in.push_back(RefOf(tensor, values[t].data.data()));
    }
    std::vector<cpu::TensorRef> out;
    for (int32_t t : op.outputs) {
      const Tensor& tensor = graph.tensors[t];
      values[t] = HostTensor{tensor.name, tensor.dtype, tensor.shape, std::vector<uint8_t>(tensor.byte_size())};
      out.push_back(RefOf(tensor, values[t].data.data()));
    }
    absl::Status s = cpu::RunReferenceOp(op.type, AttributesOf(op), in, out);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(OpTypeName(op.type), " (op ", op.id, "): ", s.message()));
    for (int32_t t : op.outputs) {
      ready[t] = true;
      if (visit) visit(t, values[t]);
    }
    for (int32_t t : op.inputs)
      if (t >= 0 && last_use[t] == static_cast<int64_t>(i)) values[t] = HostTensor{};
  }
  std::vector<HostTensor> outputs;
  for (int32_t t : graph.outputs) {
    if (!ready[t])
      return absl::InvalidArgumentError(absl::StrCat("graph output '", graph.tensors[t].name, "' is never produced"));
    outputs.push_back(values[t]);
  }
  return outputs;
}

}  // namespace tessera::quantize
