#include "framework/core/graph/graph_verifier.h"

#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "framework/core/base/dtype.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

std::string TensorLabel(const Graph& g, int32_t t) {
  return absl::StrCat("tensor ", t, " ('", g.tensors[t].name, "')");
}

std::string OpLabel(const Op& op, size_t index) {
  return absl::StrCat("op ", index, " (", OpTypeName(op.type), ", id ", op.id, ")");
}

// The constants a DISPATCH op's bytecode references (DispatchConstant): each
// names a constant tensor, once per key. The runtime binds them without a
// copy or a digest, so whatever reaches it must be one of the model's own
// constants.
absl::Status VerifyDispatchConstants(const Graph& g, const Op& op, size_t i) {
  std::set<uint32_t> keys;
  for (const DispatchConstant& c : op.dispatch->constants) {
    if (c.tensor < 0 || static_cast<size_t>(c.tensor) >= g.tensors.size())
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": external constant key ", c.key,
                                                     " names tensor ", c.tensor, ", out of range (", g.tensors.size(),
                                                     " tensors)"));
    if (!g.tensors[c.tensor].is_constant)
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": external constant key ", c.key, " names ",
                                                     TensorLabel(g, c.tensor), ", which is not a constant"));
    if (!keys.insert(c.key).second)
      return absl::InvalidArgumentError(
          absl::StrCat(OpLabel(op, i), ": external constant key ", c.key, " appears twice"));
  }
  return absl::OkStatus();
}

absl::Status VerifyTensor(const Graph& g, int32_t t) {
  const Tensor& tensor = g.tensors[t];
  if (!IsValidDType(tensor.dtype))
    return absl::InvalidArgumentError(absl::StrCat(TensorLabel(g, t), ": unknown dtype ", tensor.dtype));
  if (tensor.shape.size() > kMaxTensorRank)
    return absl::InvalidArgumentError(
        absl::StrCat(TensorLabel(g, t), ": rank ", tensor.shape.size(), " exceeds ", kMaxTensorRank));
  const std::optional<int64_t> elements = ShapeElementCount(tensor.shape);
  if (!elements)
    return absl::InvalidArgumentError(
        absl::StrCat(TensorLabel(g, t), ": shape has a negative or dynamic dimension, or overflows"));
  if (!checked::TensorBytes(tensor.shape, DTypeSize(tensor.dtype), kMaxTensorBytes))
    return absl::InvalidArgumentError(absl::StrCat(TensorLabel(g, t), ": ", *elements, " elements exceed the ",
                                                   kMaxTensorBytes, "-byte tensor limit"));
  const Quantization& q = tensor.quant;
  if (q.scales.size() != q.zero_points.size())
    return absl::InvalidArgumentError(
        absl::StrCat(TensorLabel(g, t), ": quantization scales and zero points differ in count"));
  if (q.scales.size() > 1) {
    if (q.axis < 0 || static_cast<size_t>(q.axis) >= tensor.shape.size() ||
        tensor.shape[q.axis] != static_cast<int64_t>(q.scales.size()))
      return absl::InvalidArgumentError(
          absl::StrCat(TensorLabel(g, t), ": per-channel quantization does not match axis ", q.axis));
  }
  for (float s : q.scales)
    if (!(s > 0.0f))
      return absl::InvalidArgumentError(absl::StrCat(TensorLabel(g, t), ": quantization scale must be positive"));
  if (tensor.is_constant && tensor.data.size() != tensor.byte_size())
    return absl::InvalidArgumentError(absl::StrCat(TensorLabel(g, t), ": constant holds ", tensor.data.size(),
                                                   " bytes, shape needs ", tensor.byte_size()));
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyGraph(const Graph& g) {
  const int32_t tensor_count = static_cast<int32_t>(g.tensors.size());
  for (int32_t t = 0; t < tensor_count; ++t) {
    absl::Status s = VerifyTensor(g, t);
    if (!s.ok()) return s;
  }
  // available[t]: t can be read by the next op (input, constant, or
  // produced by an earlier op).
  std::vector<bool> available(tensor_count, false), produced(tensor_count, false);
  for (int32_t t = 0; t < tensor_count; ++t) available[t] = g.tensors[t].is_constant;
  for (int32_t t : g.inputs) {
    if (t < 0 || t >= tensor_count)
      return absl::InvalidArgumentError(absl::StrCat("graph input index ", t, " out of range"));
    if (g.tensors[t].is_constant)
      return absl::InvalidArgumentError(absl::StrCat("graph input ", TensorLabel(g, t), " is a constant"));
    available[t] = true;
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (tsr_op_type_since_minor(op.type) < 0)
      return absl::InvalidArgumentError(absl::StrCat("op ", i, ": unknown op type ", op.type));
    if (op.type == TSR_OP_DISPATCH) {
      if (!op.dispatch)
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": DISPATCH without dispatch info"));
      const DispatchRef& d = *op.dispatch;
      if (d.jit_slot < 0 && (d.bytecode < 0 || static_cast<size_t>(d.bytecode) >= g.bytecodes.size()))
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(op, i), ": bytecode index ", d.bytecode, " out of range"));
      if (d.vendor.empty() || d.entry_point.empty())
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": DISPATCH needs a vendor and an entry point"));
      if (absl::Status bad = VerifyDispatchConstants(g, op, i); !bad.ok()) return bad;
    }
    for (int32_t t : op.inputs) {
      if (t == -1) continue;
      if (t < 0 || t >= tensor_count)
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": input index ", t, " out of range"));
      if (!available[t])
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), " reads ", TensorLabel(g, t),
                                                       " before anything produces it (dangling or out of order)"));
    }
    if (op.outputs.empty()) return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": no outputs"));
    for (int32_t t : op.outputs) {
      if (t < 0 || t >= tensor_count)
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": output index ", t, " out of range"));
      if (produced[t] || available[t])
        return absl::InvalidArgumentError(
            absl::StrCat(OpLabel(op, i), " writes ", TensorLabel(g, t),
                         ", which is already an input, constant or output of another op"));
      produced[t] = available[t] = true;
    }
    for (const auto& [key, value] : op.attrs)
      if (tsr_attr_key_since_minor(key) < 0)
        return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, i), ": unknown attribute key ", key));
  }
  if (g.outputs.empty()) return absl::InvalidArgumentError("graph has no outputs");
  for (int32_t t : g.outputs) {
    if (t < 0 || t >= tensor_count)
      return absl::InvalidArgumentError(absl::StrCat("graph output index ", t, " out of range"));
    if (!available[t])
      return absl::InvalidArgumentError(absl::StrCat("graph output ", TensorLabel(g, t), " is never produced"));
  }
  for (const BytecodeBlob& b : g.bytecodes)
    if (b.bytes.empty()) return absl::InvalidArgumentError("empty bytecode blob");
  return absl::OkStatus();
}

}  // namespace tessera
