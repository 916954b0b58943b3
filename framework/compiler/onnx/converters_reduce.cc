// Reductions: ReduceMean/Sum/Max directly; ReduceMin, ReduceSumSquare,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp composed. Axes come from
// the attribute (opset < 18) or, for ReduceSum at opset >= 13, input 1.
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

enum class Kind { kMean, kSum, kMax, kMin, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

bool IsFloat(int32_t dt) { return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16; }

Converter Reduce(Kind kind) {
  return [kind](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    std::vector<int64_t> axes;
    bool axes_given = false;
    if (n.has_input(1)) {
      ASSIGN_OR_RETURN(axes, ctx.ConstInts(n.input(1), "axes"));
      axes_given = true;
    } else if (n.Has("axes")) {
      axes = n.Ints("axes");
      axes_given = true;
    }
    if (axes.empty() && n.Int("noop_with_empty_axes", 0) != 0) return std::vector<int32_t>{x};
    (void)axes_given;
    for (int64_t& a : axes) {
      ASSIGN_OR_RETURN(a, NormalizeAxis(a, ctx.rank(x)));
    }
    std::map<int32_t, Attribute> attrs{{TSR_ATTR_KEEP_DIMS, IntsAttr({n.Int("keepdims", 1) != 0 ? 1 : 0})}};
    if (!axes.empty()) attrs[TSR_ATTR_AXES] = IntsAttr(axes);
    const int32_t dt = ctx.dtype(x);
    const bool needs_float = kind == Kind::kL2 || kind == Kind::kLogSum || kind == Kind::kLogSumExp;
    if (needs_float && !IsFloat(dt))
      return Unsupported(absl::StrCat(n.op_type(), " on dtype ", DTypeName(dt), " unsupported"));
    int32_t y = -1;
    switch (kind) {
      case Kind::kMean: {
        ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_REDUCE_MEAN, {x}, attrs));
        break;
      }
      case Kind::kSum: {
        ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_REDUCE_SUM, {x}, attrs));
        break;
      }
      case Kind::kMax: {
        ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_REDUCE_MAX, {x}, attrs));
        break;
      }
      case Kind::kMin: {
        // min(x) = -max(-x); small integers widen to i64 first so NEG is exact.
        int32_t v = x;
        if (dt == TSR_DTYPE_BOOL) return Unsupported("ReduceMin on bool unsupported");
        if (!IsFloat(dt) && dt != TSR_DTYPE_I64) {
          ASSIGN_OR_RETURN(v, ctx.Cast(x, TSR_DTYPE_I64));
        }
        ASSIGN_OR_RETURN(int32_t neg, ctx.Unary(TSR_OP_NEG, v));
        ASSIGN_OR_RETURN(int32_t m, ctx.Emit(TSR_OP_REDUCE_MAX, {neg}, attrs));
        ASSIGN_OR_RETURN(y, ctx.Unary(TSR_OP_NEG, m));
        ASSIGN_OR_RETURN(y, ctx.Cast(y, dt));
        break;
      }
      case Kind::kSumSquare:
      case Kind::kL2: {
        ASSIGN_OR_RETURN(int32_t sq, ctx.Binary(TSR_OP_MUL, x, x));
        ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_REDUCE_SUM, {sq}, attrs));
        if (kind == Kind::kL2) {
          ASSIGN_OR_RETURN(y, ctx.Unary(TSR_OP_SQRT, y));
        }
        break;
      }
      case Kind::kL1: {
        ASSIGN_OR_RETURN(int32_t a, ctx.Unary(TSR_OP_ABS, x));
        ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_REDUCE_SUM, {a}, attrs));
        break;
      }
      case Kind::kLogSum: {
        ASSIGN_OR_RETURN(int32_t s, ctx.Emit(TSR_OP_REDUCE_SUM, {x}, attrs));
        ASSIGN_OR_RETURN(y, ctx.Unary(TSR_OP_LOG, s));
        break;
      }
      case Kind::kLogSumExp: {
        ASSIGN_OR_RETURN(int32_t e, ctx.Unary(TSR_OP_EXP, x));
        ASSIGN_OR_RETURN(int32_t s, ctx.Emit(TSR_OP_REDUCE_SUM, {e}, attrs));
        ASSIGN_OR_RETURN(y, ctx.Unary(TSR_OP_LOG, s));
        break;
      }
    }
    return std::vector<int32_t>{y};
  };
}

}  // namespace

void RegisterReduceConverters(ConverterTable& t) {
  t["ReduceMean"] = Reduce(Kind::kMean);
  t["ReduceSum"] = Reduce(Kind::kSum);
  t["ReduceMax"] = Reduce(Kind::kMax);
  t["ReduceMin"] = Reduce(Kind::kMin);
  t["ReduceSumSquare"] = Reduce(Kind::kSumSquare);
  t["ReduceL1"] = Reduce(Kind::kL1);
  t["ReduceL2"] = Reduce(Kind::kL2);
  t["ReduceLogSum"] = Reduce(Kind::kLogSum);
  t["ReduceLogSumExp"] = Reduce(Kind::kLogSumExp);
}

}  // namespace tessera::onnx_import
