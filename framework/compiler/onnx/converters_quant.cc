// QuantizeLinear / DequantizeLinear: scale and zero point must be constant
// and become the quantized tensor's QuantParams (per-tensor, or per-channel
// along `axis`), which QUANTIZE writes and DEQUANTIZE reads (docs/ops.md).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// `q` is the quantized tensor's shape (for the per-channel axis).
absl::StatusOr<Quantization> ReadParams(ImportContext& ctx, const Node& n, const std::vector<int64_t>& q_shape) {
  ASSIGN_OR_RETURN(std::vector<double> scales, ctx.ConstDoubles(n.input(1), "scale"));
  const int64_t rank = static_cast<int64_t>(q_shape.size());
  Quantization quant;
  const bool per_channel = ctx.rank(n.input(1)) == 1 && scales.size() != 1;
  if (ctx.rank(n.input(1)) > 1) return Unsupported("blocked quantization (scale rank > 1) unsupported");
  if (per_channel) {
    ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", 1), rank));
    if (q_shape[axis] != static_cast<int64_t>(scales.size()))
      return absl::InvalidArgumentError(
          absl::StrCat("scale has ", scales.size(), " entries for axis ", axis, " of size ", q_shape[axis]));
    quant.axis = static_cast<int32_t>(axis);
  }
  for (double s : scales) {
    if (!(s > 0) || !std::isfinite(s)) return Unsupported("quantization scale must be finite and positive");
    quant.scales.push_back(static_cast<float>(s));
  }
  if (n.has_input(2)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> zps, ctx.ConstInts(n.input(2), "zero point"));
    if (zps.size() != scales.size()) return absl::InvalidArgumentError("zero point and scale differ in size");
    quant.zero_points = zps;
  } else {
    quant.zero_points.assign(scales.size(), 0);
  }
  return quant;
}

Outputs QuantizeLinear(ImportContext& ctx, const Node& n) {
  // Opset 21: blocked quantization (scales per block of an axis).
  if (n.Int("block_size", 0) != 0) return Unsupported("attribute 'block_size' (blocked quantization)");
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(Required(n, 1).status());
  const int32_t out_dtype = n.has_input(2) ? ctx.dtype(n.input(2)) : TSR_DTYPE_U8;
  if (out_dtype != TSR_DTYPE_U8 && out_dtype != TSR_DTYPE_I8)
    return Unsupported(absl::StrCat("QuantizeLinear to ", DTypeName(out_dtype), " unsupported"));
  ASSIGN_OR_RETURN(Quantization quant, ReadParams(ctx, n, ctx.shape(x)));
  EmitOptions o;
  o.output_dtype = out_dtype;
  o.output_quant = quant;
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_QUANTIZE, {x}, {}, o));
  return std::vector<int32_t>{y};
}

bool SameQuant(const Quantization& a, const Quantization& b) {
  return a.scales == b.scales && a.zero_points == b.zero_points && (a.scales.size() <= 1 || a.axis == b.axis);
}

Outputs DequantizeLinear(ImportContext& ctx, const Node& n) {
  // Opset 21: blocked quantization (scales per block of an axis).
  if (n.Int("block_size", 0) != 0) return Unsupported("attribute 'block_size' (blocked quantization)");
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  RETURN_IF_ERROR(Required(n, 1).status());
  const int32_t dt = ctx.dtype(x);
  if (dt != TSR_DTYPE_U8 && dt != TSR_DTYPE_I8 && dt != TSR_DTYPE_I32)
    return Unsupported(absl::StrCat("DequantizeLinear from ", DTypeName(dt), " unsupported"));
  ASSIGN_OR_RETURN(Quantization quant, ReadParams(ctx, n, ctx.shape(x)));
  int32_t q = x;
  if (!SameQuant(ctx.tensor(x).quant, quant)) {
    // A copy that carries the parameters (layout ops ignore quant params).
    EmitOptions copy;
    copy.output_quant = quant;
    ASSIGN_OR_RETURN(q, ctx.Emit(TSR_OP_RESHAPE, {x}, {{TSR_ATTR_SHAPE, IntsAttr(ctx.shape(x))}}, copy));
  }
  EmitOptions o;
  o.output_dtype = TSR_DTYPE_F32;
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_DEQUANTIZE, {q}, {}, o));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterQuantConverters(ConverterTable& t) {
  t["QuantizeLinear"] = QuantizeLinear;
  t["DequantizeLinear"] = DequantizeLinear;
}

}  // namespace tessera::onnx_import
