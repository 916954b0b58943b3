// Ops that compute positions along one axis: ArgMax / ArgMin (ABI 1.4
// ARG_MAX / ARG_MIN), TopK (TOP_K) and CumSum (CUM_SUM). Tie, NaN and
// index-dtype rules are the kernels' (docs/ops.md); the converters only
// move ONNX's axis / k inputs into attributes, which must be constant
// because Tessera shapes are static.
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

absl::StatusOr<int64_t> RankedAxis(ImportContext& ctx, const Node& n, int32_t x, int64_t axis) {
  if (ctx.rank(x) == 0) return absl::InvalidArgumentError(absl::StrCat(n.op_type(), " needs an input of rank >= 1"));
  return NormalizeAxis(axis, ctx.rank(x));
}

Converter ArgReduce(int32_t op_type) {
  return [op_type](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    ASSIGN_OR_RETURN(int64_t axis, RankedAxis(ctx, n, x, n.Int("axis", 0)));
    // select_last_index exists from opset 12; before it ties took the first.
    const int64_t last = ctx.opset() >= 12 ? n.Int("select_last_index", 0) : 0;
    ASSIGN_OR_RETURN(int32_t y, ctx.Emit(op_type, {x},
                                         {{TSR_ATTR_AXIS, IntsAttr({axis})},
                                          {TSR_ATTR_KEEP_DIMS, IntsAttr({n.Int("keepdims", 1) != 0})},
                                          {TSR_ATTR_SELECT_LAST_INDEX, IntsAttr({last != 0})}}));
    return std::vector<int32_t>{y};
  };
}

// TopK-1 has attribute k; from opset 10 it is input 1 (one i64 value).
Outputs TopK(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int64_t axis, RankedAxis(ctx, n, x, n.Int("axis", -1)));
  int64_t k = n.Int("k", -1);
  if (ctx.opset() >= 10) {
    ASSIGN_OR_RETURN(int32_t k_input, Required(n, 1));
    ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.ConstInts(k_input, "TopK input K"));
    if (ks.size() != 1)
      return absl::InvalidArgumentError(absl::StrCat("TopK input K must hold one value, got ", ks.size()));
    k = ks[0];
  }
  const int64_t len = ctx.shape(x)[static_cast<size_t>(axis)];
  if (k < 0 || k > len)
    return absl::InvalidArgumentError(absl::StrCat("TopK k = ", k, " must be in [0, ", len, "] (the axis length)"));
  std::vector<int64_t> shape = ctx.shape(x);
  shape[static_cast<size_t>(axis)] = k;
  return ctx.EmitTyped(TSR_OP_TOP_K, {x},
                       {{TSR_ATTR_AXIS, IntsAttr({axis})},
                        {TSR_ATTR_K, IntsAttr({k})},
                        {TSR_ATTR_LARGEST, IntsAttr({n.Int("largest", 1) != 0})},
                        {TSR_ATTR_SORTED, IntsAttr({n.Int("sorted", 1) != 0})}},
                       {{ctx.dtype(x), shape}, {TSR_DTYPE_I64, shape}});
}

// CumSum-11/14: the axis is input 1 (a rank-0 or one-element i32/i64).
Outputs CumSum(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t axis_input, Required(n, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(axis_input, "CumSum input axis"));
  if (axes.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat("CumSum input axis must hold one value, got ", axes.size()));
  ASSIGN_OR_RETURN(int64_t axis, RankedAxis(ctx, n, x, axes[0]));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CUM_SUM, {x},
                                       {{TSR_ATTR_AXIS, IntsAttr({axis})},
                                        {TSR_ATTR_EXCLUSIVE, IntsAttr({n.Int("exclusive", 0) != 0})},
                                        {TSR_ATTR_REVERSE, IntsAttr({n.Int("reverse", 0) != 0})}}));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterIndexConverters(ConverterTable& t) {
  t["ArgMax"] = ArgReduce(TSR_OP_ARG_MAX);
  t["ArgMin"] = ArgReduce(TSR_OP_ARG_MIN);
  t["TopK"] = TopK;
  t["CumSum"] = CumSum;
}

}  // namespace tessera::onnx_import
