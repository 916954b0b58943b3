#include "plugins/systolic_npu/compiler/vector_op_layers.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/systolic_npu/compiler/div_by_constant.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/compiler/op_reading.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;


// True when `small` broadcasts onto `big` by repetition only: after
// dropping its leading 1s, `small` equals the trailing dims of `big`.
bool TrailingBroadcast(const std::vector<int64_t>& big, const std::vector<int64_t>& small) {
  size_t lead = 0;
  while (lead < small.size() && small[lead] == 1) ++lead;
  const size_t n = small.size() - lead;
  if (n > big.size()) return false;
  for (size_t i = 0; i < n; ++i)
    if (small[lead + i] != big[big.size() - n + i]) return false;
  return true;
}

// True when `small` is one value per channel of `big`: after dropping its
// leading 1s it is [C, 1, ..., 1] (at least one trailing 1) and the dim of
// `big` it aligns with is C. *channels = C, *plane = the product of `big`'s
// dims after it.
bool PerChannelBroadcast(const std::vector<int64_t>& big, const std::vector<int64_t>& small,
                         int64_t* channels, int64_t* plane) {
  size_t lead = 0;
  while (lead < small.size() && small[lead] == 1) ++lead;
  const size_t n = small.size() - lead;
  if (n < 2 || n > big.size()) return false;
  for (size_t i = lead + 1; i < small.size(); ++i)
    if (small[i] != 1) return false;
  const size_t axis = big.size() - n;
  if (big[axis] != small[lead]) return false;
  *channels = small[lead];
  *plane = 1;
  for (size_t i = axis + 1; i < big.size(); ++i) *plane *= big[i];
  return true;
}

}  // namespace

absl::Status BuildElementwiseLayer(const GraphSnapshot& g, const SnapshotOp& op,
                                   ElementwiseLayer* L, Why* why, int* a_index) {
  const bool binary = op.type == TSR_OP_ADD || op.type == TSR_OP_MUL || op.type == TSR_OP_SUB ||
                      op.type == TSR_OP_DIV;
  // SUB and DIV do not commute: only their second operand may broadcast.
  const bool ordered = op.type == TSR_OP_SUB || op.type == TSR_OP_DIV;
  if (auto s = CheckArity(g, op, binary ? 2 : 1, op.type == TSR_OP_CLIP ? 3 : (binary ? 2 : 1), why);
      !s.ok())
    return s;
  const SnapshotTensor* ap = OpTensor(g, op, 0, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  if (a_index) *a_index = 0;
  // DIV by a constant is MUL by its reciprocal (div_by_constant.h).
  L->op = op.type == TSR_OP_ADD                              ? ElementwiseOp::kAdd
          : op.type == TSR_OP_MUL || op.type == TSR_OP_DIV   ? ElementwiseOp::kMul
          : op.type == TSR_OP_SUB                            ? ElementwiseOp::kSub
          : op.type == TSR_OP_RELU                           ? ElementwiseOp::kRelu
          : op.type == TSR_OP_CLIP                           ? ElementwiseOp::kClip
          : op.type == TSR_OP_SIGMOID                        ? ElementwiseOp::kSigmoid
          : op.type == TSR_OP_TANH                           ? ElementwiseOp::kTanh
                                                             : ElementwiseOp::kExp;
  if (binary) {
    const SnapshotTensor* bp = OpTensor(g, op, 1, false);
    if (bp->dtype != ap->dtype)
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), ": operands of different dtypes");
    if (bp->shape != ap->shape) {
      // The small operand repeats over leading dims (b_count) or holds one
      // value per channel (b_channels); it must be the second of SUB.
      int64_t channels = 0, plane = 0;
      bool b_small = TrailingBroadcast(ap->shape, bp->shape);
      bool per_channel = !b_small && PerChannelBroadcast(ap->shape, bp->shape, &channels, &plane);
      if (!b_small && !per_channel && !ordered) {
        b_small = TrailingBroadcast(bp->shape, ap->shape);
        per_channel = !b_small && PerChannelBroadcast(bp->shape, ap->shape, &channels, &plane);
        if (b_small || per_channel) {  // ADD and MUL commute: swap the operands
          std::swap(ap, bp);
          if (a_index) *a_index = 1;
        }
      }
      if (!b_small && !per_channel)
        SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": broadcasting ", ShapeText(ap->shape),
               " with ", ShapeText(bp->shape),
               " is not supported (same shapes, one operand repeating over leading dims, or one "
               "value per channel such as [C, 1, 1]",
               ordered ? "; SUB and DIV broadcast their second operand only)" : ")");
      if (b_small) L->b_count = kit::ElementCount(bp->shape);
      L->b_channels = per_channel ? channels : 0;
      L->plane = per_channel ? plane : 0;
    }
    const SnapshotTensor& a = *ap;
    const SnapshotTensor& b = *bp;
    L->count = kit::ElementCount(a.shape);
    L->dtype = a.dtype;
    if (a.dtype != TSR_DTYPE_F32 && a.dtype != TSR_DTYPE_F16 && a.dtype != TSR_DTYPE_I8)
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DtypeText(a.dtype),
             " (vector unit: f32, f16, i8)");
    if (y.dtype != a.dtype || kit::ElementCount(y.shape) != L->count ||
        !TrailingBroadcast(y.shape, a.shape))
      SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", ShapeText(y.shape),
             " does not match the broadcast of its inputs");
    if (op.type == TSR_OP_DIV && a.dtype == TSR_DTYPE_I8) {
      // INT8 DIV by a constant: one 256-entry table per divisor value
      // (int8_tables.h), bit exact where x * rn(1/c) would not be.
      if (!b.is_constant)
        SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_OP, "DIV: the divisor '", b.name,
                    "' is computed at run time (the vector unit has no divider; only DIV by a "
                    "constant runs)");
      if (kit::ElementCount(b.shape) != 1 && L->b_channels == 0)
        SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "DIV on int8: divisor ", ShapeText(b.shape),
                    " (a scalar or one value per channel: one 256-entry table each)");
      L->op = ElementwiseOp::kTable;
      L->b_count = 0;
    } else if (op.type == TSR_OP_DIV) {
      auto r = DivisorReciprocal(b, why);
      if (!r.ok()) return r.status();
    }
    if (a.dtype == TSR_DTYPE_I8) {
      auto qa = PerTensorQuant(a, "input", why);
      if (!qa.ok()) return qa.status();
      auto qb = PerTensorQuant(b, "input", why);
      if (!qb.ok()) return qb.status();
      auto qy = PerTensorQuant(y, "output", why);
      if (!qy.ok()) return qy.status();
      L->a_q = *qa;
      L->b_q = *qb;
      L->out_q = *qy;
    }
    return absl::OkStatus();
  }
  const SnapshotTensor& a = *ap;
  L->count = kit::ElementCount(a.shape);
  L->dtype = a.dtype;
  if (a.dtype != TSR_DTYPE_F32 && a.dtype != TSR_DTYPE_F16 && a.dtype != TSR_DTYPE_I8)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DtypeText(a.dtype),
           " (vector unit: f32, f16, i8)");
  if (y.dtype != a.dtype || y.shape != a.shape)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output must have the input's dtype and shape");
  if (IsLookupTable(L->op) && a.dtype == TSR_DTYPE_I8) {  // one VECTOR TABLE
    if (a.quant.scales.empty())
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type),
                  " on i8 without quantization parameters (docs/ops.md: quantized or float only)");
    auto qa = PerTensorQuant(a, "input", why);
    if (!qa.ok()) return qa.status();
    auto qy = PerTensorQuant(y, "output", why);
    if (!qy.ok()) return qy.status();
    L->a_q = *qa;
    L->out_q = *qy;
  }
  if (op.type == TSR_OP_CLIP) {
    L->clip_min = FloatAttr(op, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
    L->clip_max = FloatAttr(op, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
    for (size_t i = 1; i < 3; ++i) {
      const SnapshotTensor* bt = OpTensor(g, op, i, false);
      if (bt == nullptr) continue;
      if (!bt->is_constant || kit::ElementCount(bt->shape) != 1)
        SNPU_REFUSE(TSR_REFUSAL_OTHER, "CLIP: bound '", bt->name, "' must be a constant scalar");
      float v;
      if (bt->dtype == TSR_DTYPE_F32) {
        std::memcpy(&v, bt->constant.data(), 4);
      } else if (bt->dtype == TSR_DTYPE_F16) {
        uint16_t h;
        std::memcpy(&h, bt->constant.data(), 2);
        v = HalfToFloat(h);
      } else if (bt->dtype == TSR_DTYPE_I8) {
        v = static_cast<int8_t>(bt->constant[0]);
      } else {
        SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "CLIP: bound of dtype ", DtypeText(bt->dtype));
      }
      (i == 1 ? L->clip_min : L->clip_max) = v;
    }
    if (std::isnan(L->clip_min) || std::isnan(L->clip_max))
      SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CLIP: NaN bound");
    if (L->clip_min > L->clip_max) L->clip_min = L->clip_max;  // min(max(x, lo), hi) = hi
  }
  return absl::OkStatus();
}

absl::Status BuildPoolLayer(const GraphSnapshot& g, const SnapshotOp& op, Pool2dLayer* L,
                            Why* why) {
  if (auto s = CheckArity(g, op, 1, 1, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  const bool is_max = op.type == TSR_OP_MAX_POOL_2D;
  if (!(IsFloat(x.dtype) || (is_max && x.dtype == TSR_DTYPE_I8)))
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DtypeText(x.dtype),
           is_max ? " (f32, f16, i8)" : " (f32, f16)");
  if (x.shape.size() != 4) SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), " needs a 4-D NCHW input");
  const auto k = IntsAttr(op, TSR_ATTR_KERNEL_SHAPE, {});
  const auto strides = IntsAttr(op, TSR_ATTR_STRIDES, {1, 1});
  const auto dil = IntsAttr(op, TSR_ATTR_DILATIONS, {1, 1});
  const auto pads = IntsAttr(op, TSR_ATTR_PADS, {0, 0, 0, 0});
  if (k.size() != 2 || strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type),
           ": kernel_shape/strides/dilations need 2 values, pads 4");
  L->kind = is_max ? PoolKind::kMax : PoolKind::kAvg;
  L->batch = x.shape[0];
  L->channels = x.shape[1];
  L->in_h = x.shape[2];
  L->in_w = x.shape[3];
  L->kernel_h = k[0];
  L->kernel_w = k[1];
  L->stride_h = strides[0];
  L->stride_w = strides[1];
  L->dilation_h = dil[0];
  L->dilation_w = dil[1];
  L->pad_top = pads[0];
  L->pad_left = pads[1];
  L->pad_bottom = pads[2];
  L->pad_right = pads[3];
  L->ceil_mode = IntsAttr(op, TSR_ATTR_CEIL_MODE, {0})[0] != 0;
  L->count_include_pad = IntsAttr(op, TSR_ATTR_COUNT_INCLUDE_PAD, {0})[0] != 0;
  L->dtype = x.dtype;
  for (int64_t v : {L->kernel_h, L->kernel_w, L->stride_h, L->stride_w, L->dilation_h, L->dilation_w})
    if (v < 1 || v > 65536) SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": attribute ", v);
  for (int64_t v : pads)
    if (v < 0) SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": negative pad");
  if (L->pad_top >= L->kernel_h || L->pad_bottom >= L->kernel_h || L->pad_left >= L->kernel_w ||
      L->pad_right >= L->kernel_w)
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": padding not smaller than the window");
  if (L->out_h() < 1 || L->out_w() < 1) SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": empty output");
  const std::vector<int64_t> want = {L->batch, L->channels, L->out_h(), L->out_w()};
  if (y.shape != want || y.dtype != x.dtype)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", ShapeText(y.shape), " is not ", ShapeText(want));
  return absl::OkStatus();
}

absl::Status BuildGlobalAvgPoolLayer(const GraphSnapshot& g, const SnapshotOp& op,
                                    Pool2dLayer* L, Why* why, QuantGlobalAvgPoolLayer* QL) {
  if (auto s = CheckArity(g, op, 1, 1, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  const bool q = x.dtype == TSR_DTYPE_I8 && !x.quant.scales.empty();
  if (!IsFloat(x.dtype) && !q)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "GLOBAL_AVG_POOL on ", DtypeText(x.dtype),
                " (f32, f16, quantized i8)");
  if (x.shape.size() < 3)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "GLOBAL_AVG_POOL needs an input of rank >= 3 (N, C, spatial...)");
  // The spatial dims are contiguous per channel, so any rank is one plane:
  // [N, C, H, W] keeps H x W, other ranks are viewed as 1 x (product).
  int64_t plane = 1;
  for (size_t i = 2; i < x.shape.size(); ++i) plane *= x.shape[i];
  L->kind = PoolKind::kAvg;
  L->batch = x.shape[0];
  L->channels = x.shape[1];
  L->in_h = x.shape.size() == 4 ? x.shape[2] : 1;
  L->in_w = x.shape.size() == 4 ? x.shape[3] : plane;
  L->kernel_h = L->in_h;
  L->kernel_w = L->in_w;
  L->dtype = x.dtype;
  std::vector<int64_t> want = {L->batch, L->channels};
  want.resize(x.shape.size(), 1);
  if (y.shape != want || y.dtype != x.dtype)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "GLOBAL_AVG_POOL: output ", ShapeText(y.shape), " is not ",
                ShapeText(want));
  if (q) {  // ROW_SUM, BIAS_ADD, REQUANTIZE (tiler.h): no pool window
    auto qx = PerTensorQuant(x, "input", why);
    if (!qx.ok()) return qx.status();
    auto qy = PerTensorQuant(y, "output", why);
    if (!qy.ok()) return qy.status();
    if (plane > (int64_t{1} << 23))
      SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "GLOBAL_AVG_POOL over ", plane,
                  " int8 elements per channel: the int32 sum holds at most 2^23");
    if (QL) *QL = QuantGlobalAvgPoolLayer{L->batch * L->channels, plane, *qx, *qy};
    return absl::OkStatus();
  }
  // The vector unit's pool window holds at most 4096 taps (ISA §3, VECTOR).
  if (plane > 4096)
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "GLOBAL_AVG_POOL over ", plane,
                " elements per channel: the vector unit's pool window holds at most 4096");
  return absl::OkStatus();
}

}  // namespace tessera::systolic
