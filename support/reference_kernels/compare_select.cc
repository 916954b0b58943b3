// EQUAL LESS GREATER (BOOL output) and SELECT (ONNX Where), all with numpy
// broadcasting. Comparisons look at stored values: quant params are not
// applied. Float comparisons follow IEEE (NaN compares false).
#include "absl/strings/str_cat.h"
#include "support/reference_kernels/broadcast.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {

absl::Status CheckCompare(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 2, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  const bool ok = IsNumericDType(d) || (op == TSR_OP_EQUAL && d == TSR_DTYPE_BOOL);
  if (!ok) return UnsupportedDType(op, d);
  if (inputs[1].dtype != d)
    return OpError(op, absl::StrCat("input dtypes differ: ", DTypeName(d), " vs ", DTypeName(inputs[1].dtype)));
  if (outputs[0].dtype != TSR_DTYPE_BOOL)
    return OpError(op, absl::StrCat("output dtype must be bool, got ", DTypeName(outputs[0].dtype)));
  return absl::OkStatus();
}

absl::Status RunCompare(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                        std::span<TensorRef> outputs) {
  const TensorRef &a = inputs[0], &b = inputs[1], &y = outputs[0];
  const Shape shapes[2] = {a.shape, b.shape};
  auto out_shape = BroadcastShapes(op, shapes);
  if (!out_shape.ok()) return out_shape.status();
  absl::Status s = CheckOutputShape(op, y, *out_shape);
  if (s.ok()) s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const bool is_float = IsFloatDType(a.dtype);
  BroadcastWalker(*out_shape, shapes).ForEach([&](int64_t o, const int64_t* off) {
    bool r;
    if (is_float) {
      const float x = LoadFloat(a, off[0]), z = LoadFloat(b, off[1]);
      r = op == TSR_OP_EQUAL ? x == z : (op == TSR_OP_LESS ? x < z : x > z);
    } else {
      const int64_t x = LoadInt(a, off[0]), z = LoadInt(b, off[1]);
      r = op == TSR_OP_EQUAL ? x == z : (op == TSR_OP_LESS ? x < z : x > z);
    }
    static_cast<uint8_t*>(y.data)[o] = r ? 1 : 0;
  });
  return absl::OkStatus();
}

absl::Status CheckSelect(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 3, 3, 1);
  for (size_t i = 0; s.ok() && i < 3; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  if (inputs[0].dtype != TSR_DTYPE_BOOL)
    return OpError(op, absl::StrCat("condition must be bool, got ", DTypeName(inputs[0].dtype)));
  const int32_t d = inputs[1].dtype;
  if (inputs[2].dtype != d || outputs[0].dtype != d)
    return OpError(op, absl::StrCat("x, y and output dtypes must match: ", DTypeName(d), ", ",
                                    DTypeName(inputs[2].dtype), ", ", DTypeName(outputs[0].dtype)));
  return absl::OkStatus();
}

absl::Status RunSelect(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &c = inputs[0], &x = inputs[1], &z = inputs[2], &y = outputs[0];
  const Shape shapes[3] = {c.shape, x.shape, z.shape};
  auto out_shape = BroadcastShapes(op, shapes);
  if (!out_shape.ok()) return out_shape.status();
  absl::Status s = CheckOutputShape(op, y, *out_shape);
  if (s.ok()) s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const size_t es = DTypeSize(x.dtype);
  const uint8_t* cond = static_cast<const uint8_t*>(c.data);
  BroadcastWalker(*out_shape, shapes).ForEach([&](int64_t o, const int64_t* off) {
    if (cond[off[0]])
      CopyElement(y, o, x, off[1], es);
    else
      CopyElement(y, o, z, off[2], es);
  });
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
