#include "plugins/systolic_npu/compiler/convert_op_layers.h"

#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/compiler/op_reading.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;

bool VectorUnitDtype(int32_t dt) {
  return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16 || dt == TSR_DTYPE_I8;
}

// The per-tensor params of `t`, the quantized side of a (DE)QUANTIZE. The
// CPU reference prefers them over ONNX-style scale / zero point inputs
// too, so reading only them keeps both in agreement.
absl::StatusOr<QuantSpec> QuantSide(const SnapshotTensor& t, const char* what, int32_t op_type,
                                    Why* why) {
  if (t.quant.scales.empty())
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, OpName(op_type), ": ", what, " '", t.name,
                "' has no quantization parameters (scale / zero point inputs are not read)");
  if (t.quant.scales.size() > 1)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, OpName(op_type), ": per-channel ",
                "quantization (", t.quant.scales.size(), " scales along axis ", t.quant.axis,
                ") is not supported: the vector unit's QUANT descriptor holds one scale and "
                "zero point");
  return PerTensorQuant(t, what, why);
}

}  // namespace

absl::Status BuildReshapeLayer(const GraphSnapshot& g, const SnapshotOp& op, ConvertLayer* L,
                               Why* why) {
  // Input 1 (ONNX's shape or axes tensor) is ignored, as in docs/ops.md.
  if (auto s = CheckArity(g, op, 1, 2, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  // A shape computed at run time would make the partition read a tensor
  // (often i64) it has no use for: leave such reshapes to the host.
  const SnapshotTensor* shape = OpTensor(g, op, 1, false);
  if (shape != nullptr && !shape->is_constant)
    SNPU_REFUSE(TSR_REFUSAL_DYNAMIC_SHAPE, OpName(op.type), ": the shape input '", shape->name,
                "' is computed at run time");
  if (!VectorUnitDtype(x.dtype))
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DtypeText(x.dtype),
                " (f32, f16, i8)");
  if (y.dtype != x.dtype || kit::ElementCount(y.shape) != kit::ElementCount(x.shape))
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", DtypeText(y.dtype), ShapeText(y.shape),
                " must have the dtype and element count of the input ", DtypeText(x.dtype),
                ShapeText(x.shape));
  L->op = ConvertOp::kCopy;
  L->count = kit::ElementCount(x.shape);
  L->in_dtype = L->out_dtype = x.dtype;
  return absl::OkStatus();
}

absl::Status BuildQuantizeLayer(const GraphSnapshot& g, const SnapshotOp& op, ConvertLayer* L,
                                Why* why) {
  if (auto s = CheckArity(g, op, 1, 3, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  const bool quantize = op.type == TSR_OP_QUANTIZE;
  const SnapshotTensor& f = quantize ? x : y;  // the float side
  const SnapshotTensor& q = quantize ? y : x;  // the int8 side
  if (!IsFloat(f.dtype) || q.dtype != TSR_DTYPE_I8)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " ", DtypeText(x.dtype), " -> ",
                DtypeText(y.dtype), quantize ? " (f32/f16 -> i8)" : " (i8 -> f32/f16)");
  if (y.shape != x.shape)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", ShapeText(y.shape),
                " is not the input's ", ShapeText(x.shape));
  auto spec = QuantSide(q, quantize ? "output" : "input", op.type, why);
  if (!spec.ok()) return spec.status();
  L->op = quantize ? ConvertOp::kQuantize : ConvertOp::kDequantize;
  L->count = kit::ElementCount(x.shape);
  L->in_dtype = x.dtype;
  L->out_dtype = y.dtype;
  L->q = *spec;
  return absl::OkStatus();
}

}  // namespace tessera::systolic
