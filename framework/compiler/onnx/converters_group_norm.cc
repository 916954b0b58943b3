// GroupNormalization (opset 18 and 21), exactly, onto the op set: x
// [N, C, d...] is viewed as [N, G, C/G · Πd], each group row is normalized
// by LAYER_NORM (axis 2, the node's epsilon, unit scale, no bias: mean and
// biased variance per group, in f64), then scale and bias apply:
//  * opset 18-20: scale and bias have shape [G], one pair per group;
//  * opset 21: shape [C], one pair per channel (the ONNX 21 change).
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// `p` ([count]) reshaped to [count, 1, ..., 1] so it broadcasts against a
// tensor of rank `rank` whose axis 1 has `count` entries.
absl::StatusOr<int32_t> AxisOneParam(ImportContext& ctx, int32_t p, int64_t count, int64_t rank, const char* what) {
  if (ctx.tensor(p).element_count() != count)
    return absl::InvalidArgumentError(absl::StrCat("GroupNormalization ", what, " must have ", count,
                                                   " elements (opset ", ctx.opset(), "), got ",
                                                   ctx.tensor(p).element_count()));
  std::vector<int64_t> shape(static_cast<size_t>(rank - 1), 1);
  shape[0] = count;
  return ctx.Reshape(p, shape);
}

Outputs GroupNormalization(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t scale, Required(n, 1));
  ASSIGN_OR_RETURN(int32_t bias, Required(n, 2));
  const int32_t dt = ctx.dtype(x);
  if (dt != TSR_DTYPE_F32 && dt != TSR_DTYPE_F16) return Unsupported("GroupNormalization on a non-float input");
  if (n.Int("stash_type", 1) != 1) return Unsupported("GroupNormalization stash_type other than float unsupported");
  const std::vector<int64_t> shape = ctx.shape(x);  // a copy: emitting ops grows the tensor list
  if (shape.size() < 2) return absl::InvalidArgumentError("GroupNormalization input rank must be >= 2");
  if (!n.Has("num_groups")) return absl::InvalidArgumentError("GroupNormalization needs attribute num_groups");
  const int64_t groups = n.Int("num_groups", 0), channels = shape[1];
  if (groups <= 0 || channels % groups != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("GroupNormalization num_groups = ", groups, " must be positive and divide C = ", channels));
  // The group row length divides the element count, so it cannot overflow.
  int64_t row = channels / groups;
  for (size_t d = 2; d < shape.size(); ++d) row *= shape[d];
  ASSIGN_OR_RETURN(int32_t grouped, ctx.Reshape(x, {shape[0], groups, row}));
  const int32_t unit = ctx.Scalar(dt, 1.0);
  ASSIGN_OR_RETURN(
      std::vector<int32_t> normalized,
      ctx.EmitTyped(TSR_OP_LAYER_NORM, {grouped, unit},
                    {{TSR_ATTR_AXIS, IntsAttr({2})}, {TSR_ATTR_EPSILON, FloatsAttr({n.Float("epsilon", 1e-5f)})}},
                    {{dt, ctx.shape(grouped)}}));
  const bool per_channel = ctx.opset() >= 21;
  int32_t y = normalized[0];
  if (per_channel) {
    ASSIGN_OR_RETURN(y, ctx.Reshape(y, shape));
  }
  const int64_t count = per_channel ? channels : groups;
  const int64_t rank = per_channel ? static_cast<int64_t>(shape.size()) : 3;
  ASSIGN_OR_RETURN(int32_t s, AxisOneParam(ctx, scale, count, rank, "scale"));
  ASSIGN_OR_RETURN(int32_t b, AxisOneParam(ctx, bias, count, rank, "bias"));
  ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_MUL, y, s));
  ASSIGN_OR_RETURN(y, ctx.Binary(TSR_OP_ADD, y, b));
  ASSIGN_OR_RETURN(y, ctx.Reshape(y, shape));
  return std::vector<int32_t>{y};
}

}  // namespace

void RegisterGroupNormConverters(ConverterTable& t) { t["GroupNormalization"] = GroupNormalization; }

}  // namespace tessera::onnx_import
