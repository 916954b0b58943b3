#include "lowering.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/ops.h"
#include "fp16.h"
#include "tiler.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;

// A refusal travels as an InvalidArgument status plus a reason code.
struct Why {
  int32_t reason = TSR_REFUSAL_OTHER;
};

#define REFUSE(code, ...)                                          \
  do {                                                             \
    why->reason = (code);                                          \
    return absl::InvalidArgumentError(absl::StrCat(__VA_ARGS__));  \
  } while (0)

const SnapshotTensor* Tensor(const GraphSnapshot& g, const SnapshotOp& op, size_t i, bool output) {
  const auto& list = output ? op.outputs : op.inputs;
  if (i >= list.size()) return nullptr;
  const int32_t t = list[i];
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return nullptr;
  return &g.tensors[t];
}

std::string Shape(const std::vector<int64_t>& s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

const char* DName(int32_t dt) {
  switch (dt) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_I8: return "i8";
    case TSR_DTYPE_U8: return "u8";
    case TSR_DTYPE_I32: return "i32";
    case TSR_DTYPE_I64: return "i64";
    case TSR_DTYPE_BOOL: return "bool";
    default: return "unknown";
  }
}

bool IsFloat(int32_t dt) { return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16; }

absl::Status CheckStatic(const SnapshotTensor& t, const char* what, Why* why) {
  const int64_t n = kit::ElementCount(t.shape);
  if (n < 0) REFUSE(TSR_REFUSAL_DYNAMIC_SHAPE, what, " '", t.name, "' has a dynamic shape ", Shape(t.shape));
  if (n == 0) REFUSE(TSR_REFUSAL_OTHER, what, " '", t.name, "' is empty");
  if (n > (int64_t{1} << 31)) REFUSE(TSR_REFUSAL_TOO_LARGE, what, " '", t.name, "' is larger than 2^31 elements");
  return absl::OkStatus();
}

// Per-tensor int8 quantization: one finite positive scale, int8 zero point.
absl::StatusOr<QuantSpec> PerTensor(const SnapshotTensor& t, const char* what, Why* why) {
  if (t.quant.scales.size() != 1)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name,
           "' needs per-tensor quantization parameters (has ", t.quant.scales.size(), " scales)");
  const float s = t.quant.scales[0];
  const int64_t zp = t.quant.zero_points.empty() ? 0 : t.quant.zero_points[0];
  if (!(s > 0) || !std::isfinite(s))
    REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name, "' has a non-positive scale");
  if (zp < -128 || zp > 127)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name, "' zero point ", zp, " is not int8");
  return QuantSpec{s, static_cast<int32_t>(zp)};
}

const kit::SnapshotAttr* Attr(const SnapshotOp& op, int32_t key) {
  auto it = op.attrs.find(key);
  return it == op.attrs.end() ? nullptr : &it->second;
}

std::vector<int64_t> Ints(const SnapshotOp& op, int32_t key, std::vector<int64_t> def) {
  const kit::SnapshotAttr* a = Attr(op, key);
  return a && !a->ints.empty() ? a->ints : def;
}

float Float(const SnapshotOp& op, int32_t key, float def) {
  const kit::SnapshotAttr* a = Attr(op, key);
  if (a == nullptr) return def;
  if (!a->floats.empty()) return a->floats[0];
  if (!a->ints.empty()) return static_cast<float>(a->ints[0]);
  return def;
}

absl::StatusOr<ActivationSpec> FusedActivation(const SnapshotOp& op, Why* why) {
  ActivationSpec a;
  const int64_t kind = Ints(op, TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_NONE})[0];
  if (kind == TSR_ACTIVATION_NONE) return a;
  if (kind == TSR_ACTIVATION_RELU) {
    a.kind = Activation::kRelu;
    return a;
  }
  if (kind != TSR_ACTIVATION_CLIP)
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "unknown fused activation ", kind);
  a.kind = Activation::kClip;
  a.clip_min = Float(op, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
  a.clip_max = Float(op, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
  if (!(a.clip_min <= a.clip_max))
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "fused CLIP with min > max (or NaN)");
  return a;
}

std::vector<uint8_t> Bytes(const SnapshotTensor& t) {
  return std::vector<uint8_t>(t.constant.begin(), t.constant.end());
}

// Shared by FULLY_CONNECTED, MATMUL and CONV_2D: dtypes, weights, bias and
// quantization. `channels` = output channels, `w_axis` = per-channel axis
// of the weights.
template <typename Layer>
absl::Status FillCompute(const GraphSnapshot& g, const SnapshotOp& op, int64_t channels,
                         int64_t w_axis, Layer* L, Why* why) {
  const SnapshotTensor& x = *Tensor(g, op, 0, false);
  const SnapshotTensor& w = *Tensor(g, op, 1, false);
  const SnapshotTensor* b = Tensor(g, op, 2, false);
  const SnapshotTensor& y = *Tensor(g, op, 0, true);
  if (!w.is_constant)
    REFUSE(TSR_REFUSAL_OTHER, "the weights '", w.name,
           "' are not a constant (the NPU keeps weights pre-tiled in its constant pool)");
  if (w.constant.size() != static_cast<size_t>(kit::ElementCount(w.shape)) * kit::DTypeByteSize(w.dtype))
    REFUSE(TSR_REFUSAL_OTHER, "weights '", w.name, "' have the wrong byte size");
  if (b != nullptr) {
    if (!b->is_constant) REFUSE(TSR_REFUSAL_OTHER, "the bias '", b->name, "' is not a constant");
    if (b->shape != std::vector<int64_t>{channels})
      REFUSE(TSR_REFUSAL_OTHER, "bias shape ", Shape(b->shape), " is not [", channels, "]");
  }
  auto act = FusedActivation(op, why);
  if (!act.ok()) return act.status();
  L->activation = *act;
  if (IsFloat(x.dtype)) {
    if (w.dtype != x.dtype || y.dtype != x.dtype || (b && b->dtype != x.dtype))
      REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "float ", OpName(op.type),
             " needs one dtype for input, weights, bias and output (got ", DName(x.dtype), ", ",
             DName(w.dtype), b ? ", " : "", b ? DName(b->dtype) : "", ", ", DName(y.dtype), ")");
    L->dtype = x.dtype;
    L->weights_dtype = w.dtype;
    L->weights = Bytes(w);
    if (b != nullptr) {
      L->bias_f.resize(channels);
      for (int64_t c = 0; c < channels; ++c) {
        if (b->dtype == TSR_DTYPE_F32) {
          std::memcpy(&L->bias_f[c], b->constant.data() + 4 * c, 4);
        } else {
          uint16_t h;
          std::memcpy(&h, b->constant.data() + 2 * c, 2);
          L->bias_f[c] = HalfToFloat(h);
        }
      }
    }
    return absl::OkStatus();
  }
  if (x.dtype != TSR_DTYPE_I8)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DName(x.dtype),
           " (the NPU computes f32/f16 as FP16 and quantized i8)");
  if (y.dtype != TSR_DTYPE_I8)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "quantized ", OpName(op.type), " with a ",
           DName(y.dtype), " output (only requantized i8 outputs)");
  if (w.dtype != TSR_DTYPE_I8)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "quantized ", OpName(op.type), " with ", DName(w.dtype),
           " weights (i8 only)");
  auto xq = PerTensor(x, "input", why);
  if (!xq.ok()) return xq.status();
  auto yq = PerTensor(y, "output", why);
  if (!yq.ok()) return yq.status();
  const size_t ns = w.quant.scales.size();
  if (ns != 1 && !(static_cast<int64_t>(ns) == channels &&
                   (w.quant.axis == w_axis || w.quant.axis == w_axis - static_cast<int64_t>(w.shape.size()))))
    REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "weights '", w.name,
           "' need per-tensor or per-output-channel scales (axis ", w_axis, ")");
  for (int64_t zp : w.quant.zero_points)
    if (zp != 0)
      REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "i8 weights '", w.name,
             "' must be symmetric (zero point 0)");
  for (float s : w.quant.scales)
    if (!(s > 0) || !std::isfinite(s))
      REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "weights '", w.name, "' have a non-positive scale");
  if (b != nullptr && b->dtype != TSR_DTYPE_I32)
    REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "quantized bias must be i32, not ", DName(b->dtype));
  L->dtype = TSR_DTYPE_I8;
  L->weights_dtype = TSR_DTYPE_I8;
  L->weights = Bytes(w);
  L->input_q = *xq;
  L->output_q = *yq;
  L->weight_scales = w.quant.scales;
  if (b != nullptr) {
    L->bias_q.resize(channels);
    std::memcpy(L->bias_q.data(), b->constant.data(), channels * 4);
  }
  return absl::OkStatus();
}

absl::Status CheckArity(const GraphSnapshot& g, const SnapshotOp& op, size_t min_in, size_t max_in,
                        Why* why) {
  size_t given = 0;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const SnapshotTensor* t = Tensor(g, op, i, false);
    if (t == nullptr) {
      if (i < min_in) REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": input ", i, " is missing");
      continue;
    }
    if (i >= max_in) REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": too many inputs");
    ++given;
    if (auto s = CheckStatic(*t, "input", why); !s.ok()) return s;
  }
  if (op.inputs.size() < min_in) REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": missing inputs");
  if (op.outputs.size() != 1 || Tensor(g, op, 0, true) == nullptr)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": needs exactly one output");
  return CheckStatic(*Tensor(g, op, 0, true), "output", why);
}

absl::Status BuildGemm(const GraphSnapshot& g, const SnapshotOp& op, GemmLayer* L, Why* why) {
  if (auto s = CheckArity(g, op, 2, 3, why); !s.ok()) return s;
  const SnapshotTensor& x = *Tensor(g, op, 0, false);
  const SnapshotTensor& w = *Tensor(g, op, 1, false);
  const SnapshotTensor& y = *Tensor(g, op, 0, true);
  const bool fc = op.type == TSR_OP_FULLY_CONNECTED;
  if (w.shape.size() != 2)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": weights must be 2-D, got ", Shape(w.shape));
  if (x.shape.size() < (fc ? 1u : 2u))
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": input rank ", x.shape.size(), " not supported");
  const int64_t K = fc ? w.shape[1] : w.shape[0];
  const int64_t N = fc ? w.shape[0] : w.shape[1];
  if (x.shape.back() != K)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": input ", Shape(x.shape), " does not match weights ",
           Shape(w.shape));
  std::vector<int64_t> want(x.shape.begin(), x.shape.end() - 1);
  want.push_back(N);
  if (y.shape != want)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", Shape(y.shape), " is not ", Shape(want));
  L->M = kit::ElementCount(x.shape) / K;
  L->K = K;
  L->N = N;
  L->weight_layout = fc ? WeightLayout::kNK : WeightLayout::kKN;
  return FillCompute(g, op, N, fc ? 0 : 1, L, why);
}

absl::Status BuildConv(const GraphSnapshot& g, const SnapshotOp& op, Conv2dLayer* L, Why* why) {
  if (auto s = CheckArity(g, op, 2, 3, why); !s.ok()) return s;
  const SnapshotTensor& x = *Tensor(g, op, 0, false);
  const SnapshotTensor& w = *Tensor(g, op, 1, false);
  const SnapshotTensor& y = *Tensor(g, op, 0, true);
  if (x.shape.size() != 4 || w.shape.size() != 4)
    REFUSE(TSR_REFUSAL_OTHER, "CONV_2D needs 4-D NCHW input and [M, C/g, kH, kW] weights");
  const auto strides = Ints(op, TSR_ATTR_STRIDES, {1, 1});
  const auto dil = Ints(op, TSR_ATTR_DILATIONS, {1, 1});
  const auto pads = Ints(op, TSR_ATTR_PADS, {0, 0, 0, 0});
  const int64_t groups = Ints(op, TSR_ATTR_GROUPS, {1})[0];
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: strides/dilations need 2 values, pads 4");
  for (int64_t v : strides)
    if (v < 1 || v > 65536) REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: stride ", v);
  for (int64_t v : dil)
    if (v < 1 || v > 65536) REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: dilation ", v);
  for (int64_t v : pads)
    if (v < 0 || v > 65536) REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: pad ", v);
  if (groups < 1 || x.shape[1] % groups || w.shape[0] % groups || w.shape[1] * groups != x.shape[1])
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: groups ", groups, " do not fit input ",
           Shape(x.shape), " and weights ", Shape(w.shape));
  L->batch = x.shape[0];
  L->in_channels = x.shape[1];
  L->in_h = x.shape[2];
  L->in_w = x.shape[3];
  L->out_channels = w.shape[0];
  L->kernel_h = w.shape[2];
  L->kernel_w = w.shape[3];
  L->stride_h = strides[0];
  L->stride_w = strides[1];
  L->dilation_h = dil[0];
  L->dilation_w = dil[1];
  L->pad_top = pads[0];
  L->pad_left = pads[1];
  L->pad_bottom = pads[2];
  L->pad_right = pads[3];
  L->groups = groups;
  if (L->out_h() < 1 || L->out_w() < 1) REFUSE(TSR_REFUSAL_OTHER, "CONV_2D: empty output");
  const std::vector<int64_t> want = {L->batch, L->out_channels, L->out_h(), L->out_w()};
  if (y.shape != want)
    REFUSE(TSR_REFUSAL_OTHER, "CONV_2D: output ", Shape(y.shape), " is not ", Shape(want));
  return FillCompute(g, op, L->out_channels, 0, L, why);
}

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

// `*a_index` receives which input is the full-size operand (ADD/MUL are
// commutative, so a broadcast first operand is swapped into second place).
absl::Status BuildElementwise(const GraphSnapshot& g, const SnapshotOp& op, ElementwiseLayer* L,
                              Why* why, int* a_index = nullptr) {
  const bool binary = op.type == TSR_OP_ADD || op.type == TSR_OP_MUL;
  if (auto s = CheckArity(g, op, binary ? 2 : 1, op.type == TSR_OP_CLIP ? 3 : (binary ? 2 : 1), why);
      !s.ok())
    return s;
  const SnapshotTensor* ap = Tensor(g, op, 0, false);
  const SnapshotTensor& y = *Tensor(g, op, 0, true);
  if (a_index) *a_index = 0;
  L->op = op.type == TSR_OP_ADD   ? ElementwiseOp::kAdd
          : op.type == TSR_OP_MUL ? ElementwiseOp::kMul
          : op.type == TSR_OP_RELU ? ElementwiseOp::kRelu
                                   : ElementwiseOp::kClip;
  if (binary) {
    const SnapshotTensor* bp = Tensor(g, op, 1, false);
    if (bp->dtype != ap->dtype)
      REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), ": operands of different dtypes");
    if (bp->shape != ap->shape) {
      const bool b_small = TrailingBroadcast(ap->shape, bp->shape);
      const bool a_small = !b_small && TrailingBroadcast(bp->shape, ap->shape);
      if (!b_small && !a_small)
        REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": broadcasting ", Shape(ap->shape),
               " with ", Shape(bp->shape),
               " is not supported (same shapes, or one operand repeating over leading dims)");
      if (a_small) {
        std::swap(ap, bp);
        if (a_index) *a_index = 1;
      }
      L->b_count = kit::ElementCount(bp->shape);
    }
    const SnapshotTensor& a = *ap;
    const SnapshotTensor& b = *bp;
    L->count = kit::ElementCount(a.shape);
    L->dtype = a.dtype;
    if (a.dtype != TSR_DTYPE_F32 && a.dtype != TSR_DTYPE_F16 && a.dtype != TSR_DTYPE_I8)
      REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DName(a.dtype),
             " (vector unit: f32, f16, i8)");
    if (y.dtype != a.dtype || kit::ElementCount(y.shape) != L->count ||
        !TrailingBroadcast(y.shape, a.shape))
      REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", Shape(y.shape),
             " does not match the broadcast of its inputs");
    if (a.dtype == TSR_DTYPE_I8) {
      auto qa = PerTensor(a, "input", why);
      if (!qa.ok()) return qa.status();
      auto qb = PerTensor(b, "input", why);
      if (!qb.ok()) return qb.status();
      auto qy = PerTensor(y, "output", why);
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
    REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DName(a.dtype),
           " (vector unit: f32, f16, i8)");
  if (y.dtype != a.dtype || y.shape != a.shape)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output must have the input's dtype and shape");
  if (op.type == TSR_OP_CLIP) {
    L->clip_min = Float(op, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
    L->clip_max = Float(op, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
    for (size_t i = 1; i < 3; ++i) {
      const SnapshotTensor* bt = Tensor(g, op, i, false);
      if (bt == nullptr) continue;
      if (!bt->is_constant || kit::ElementCount(bt->shape) != 1)
        REFUSE(TSR_REFUSAL_OTHER, "CLIP: bound '", bt->name, "' must be a constant scalar");
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
        REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "CLIP: bound of dtype ", DName(bt->dtype));
      }
      (i == 1 ? L->clip_min : L->clip_max) = v;
    }
    if (std::isnan(L->clip_min) || std::isnan(L->clip_max))
      REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CLIP: NaN bound");
    if (L->clip_min > L->clip_max) L->clip_min = L->clip_max;  // min(max(x, lo), hi) = hi
  }
  return absl::OkStatus();
}

absl::Status BuildPool(const GraphSnapshot& g, const SnapshotOp& op, Pool2dLayer* L, Why* why) {
  if (auto s = CheckArity(g, op, 1, 1, why); !s.ok()) return s;
  const SnapshotTensor& x = *Tensor(g, op, 0, false);
  const SnapshotTensor& y = *Tensor(g, op, 0, true);
  const bool is_max = op.type == TSR_OP_MAX_POOL_2D;
  if (!(IsFloat(x.dtype) || (is_max && x.dtype == TSR_DTYPE_I8)))
    REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DName(x.dtype),
           is_max ? " (f32, f16, i8)" : " (f32, f16)");
  if (x.shape.size() != 4) REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), " needs a 4-D NCHW input");
  const auto k = Ints(op, TSR_ATTR_KERNEL_SHAPE, {});
  const auto strides = Ints(op, TSR_ATTR_STRIDES, {1, 1});
  const auto dil = Ints(op, TSR_ATTR_DILATIONS, {1, 1});
  const auto pads = Ints(op, TSR_ATTR_PADS, {0, 0, 0, 0});
  if (k.size() != 2 || strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type),
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
  L->ceil_mode = Ints(op, TSR_ATTR_CEIL_MODE, {0})[0] != 0;
  L->count_include_pad = Ints(op, TSR_ATTR_COUNT_INCLUDE_PAD, {0})[0] != 0;
  L->dtype = x.dtype;
  for (int64_t v : {L->kernel_h, L->kernel_w, L->stride_h, L->stride_w, L->dilation_h, L->dilation_w})
    if (v < 1 || v > 65536) REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": attribute ", v);
  for (int64_t v : pads)
    if (v < 0) REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": negative pad");
  if (L->pad_top >= L->kernel_h || L->pad_bottom >= L->kernel_h || L->pad_left >= L->kernel_w ||
      L->pad_right >= L->kernel_w)
    REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, OpName(op.type), ": padding not smaller than the window");
  if (L->out_h() < 1 || L->out_w() < 1) REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": empty output");
  const std::vector<int64_t> want = {L->batch, L->channels, L->out_h(), L->out_w()};
  if (y.shape != want || y.dtype != x.dtype)
    REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", Shape(y.shape), " is not ", Shape(want));
  return absl::OkStatus();
}

absl::Status Check(const GraphSnapshot& g, const SnapshotOp& op, Why* why) {
  switch (op.type) {
    case TSR_OP_FULLY_CONNECTED:
    case TSR_OP_MATMUL: {
      GemmLayer L;
      return BuildGemm(g, op, &L, why);
    }
    case TSR_OP_CONV_2D: {
      Conv2dLayer L;
      return BuildConv(g, op, &L, why);
    }
    case TSR_OP_ADD:
    case TSR_OP_MUL:
    case TSR_OP_RELU:
    case TSR_OP_CLIP: {
      ElementwiseLayer L;
      return BuildElementwise(g, op, &L, why);
    }
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D: {
      Pool2dLayer L;
      return BuildPool(g, op, &L, why);
    }
    default:
      REFUSE(TSR_REFUSAL_UNSUPPORTED_OP, OpName(op.type),
             " is not implemented by the systolic NPU (matrix unit: FULLY_CONNECTED, MATMUL, "
             "CONV_2D; vector unit: ADD, MUL, RELU, CLIP, MAX_POOL_2D, AVG_POOL_2D)");
  }
}

Region IoRegion(RegionKind kind, uint32_t io, const SnapshotTensor& t) {
  Region r;
  r.kind = kind;
  r.io_index = io;
  r.dtype = t.dtype;
  r.dims = t.shape;
  r.size_bytes = static_cast<uint64_t>(kit::ElementCount(t.shape)) * kit::DTypeByteSize(t.dtype);
  return r;
}

}  // namespace

const char* OpName(int32_t t) {
  static const char* const kNames[] = {
      "UNKNOWN", "ADD", "SUB", "MUL", "DIV", "POW", "NEG", "ABS", "SQRT", "RSQRT", "EXP", "LOG",
      "SIN", "COS", "TANH", "SIGMOID", "RELU", "CLIP", "ERF", "MAXIMUM", "MINIMUM", "EQUAL",
      "LESS", "GREATER", "SELECT", "REDUCE_MEAN", "REDUCE_SUM", "REDUCE_MAX", "MATMUL",
      "FULLY_CONNECTED", "CONV_2D", "MAX_POOL_2D", "AVG_POOL_2D", "GLOBAL_AVG_POOL", "SOFTMAX",
      "LAYER_NORM", "RESHAPE", "TRANSPOSE", "SLICE", "CONCAT", "GATHER", "SQUEEZE", "UNSQUEEZE",
      "PAD", "CAST", "QUANTIZE", "DEQUANTIZE", "DISPATCH"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == TSR_OP_COUNT_V1);
  return t >= 0 && t < TSR_OP_COUNT_V1 ? kNames[t] : "an unknown op";
}

OpSupport CheckOpSupport(const GraphSnapshot& g, const SnapshotOp& op) {
  Why why;
  const absl::Status s = Check(g, op, &why);
  if (s.ok()) return OpSupport{true, TSR_REFUSAL_NONE, ""};
  return OpSupport{false, why.reason, absl::StrCat("systolic_npu: ", s.message())};
}

absl::StatusOr<Program> LowerGraph(const GraphSnapshot& g, const SystolicNpuConfig& npu,
                                   const LoweringOptions& opt, const std::string& name) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = name;
  std::map<int32_t, TensorRef> where;
  const size_t io = g.inputs.size() + g.outputs.size();
  if (io + 1 > 255)
    return absl::ResourceExhaustedError("systolic_npu: more than 254 partition inputs and outputs");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const SnapshotTensor& t = g.tensors.at(g.inputs[i]);
    e.regions.push_back(IoRegion(RegionKind::kInput, static_cast<uint32_t>(i), t));
    where[g.inputs[i]] = TensorRef{static_cast<uint8_t>(e.regions.size()), 0};
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const SnapshotTensor& t = g.tensors.at(g.outputs[i]);
    if (where.count(g.outputs[i]) || t.is_constant)
      return absl::UnimplementedError(absl::StrCat(
          "systolic_npu: partition output '", t.name, "' is an input or a constant"));
    e.regions.push_back(IoRegion(RegionKind::kOutput, static_cast<uint32_t>(i), t));
    where[g.outputs[i]] = TensorRef{static_cast<uint8_t>(e.regions.size()), 0};
  }
  // Intermediates share one scratch region, 64-byte aligned.
  const uint8_t scratch_region = static_cast<uint8_t>(e.regions.size() + 1);
  uint64_t scratch = 0;
  for (const SnapshotOp& op : g.ops)
    for (int32_t t : op.outputs)
      if (t >= 0 && !where.count(t)) {
        where[t] = TensorRef{scratch_region, scratch};
        const SnapshotTensor& st = g.tensors.at(t);
        scratch += (static_cast<uint64_t>(kit::ElementCount(st.shape)) * kit::DTypeByteSize(st.dtype) + 63) / 64 * 64;
      }
  if (scratch > 0) {
    Region r;
    r.kind = RegionKind::kScratch;
    r.dtype = TSR_DTYPE_I8;
    r.dims = {static_cast<int64_t>(scratch)};
    r.size_bytes = scratch;
    e.regions.push_back(r);
  }
  // Constant data operands (e.g. ADD with a constant) live in the pool.
  auto ref = [&](int32_t t) -> TensorRef {
    auto it = where.find(t);
    if (it != where.end()) return it->second;
    const SnapshotTensor& st = g.tensors.at(t);
    const uint32_t c = p.AddData(st.constant.data(), st.constant.size(), st.dtype);
    where[t] = TensorRef{0, p.constants[c].offset};
    return where[t];
  };
  const TilerOptions topt{opt.dataflow};
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const SnapshotOp& op = g.ops[i];
    Why why;
    absl::Status s = Check(g, op, &why);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("systolic_npu: op ", op.id, ": ", s.message()));
    for (int32_t t : op.inputs)
      if (t >= 0 && !where.count(t) && !g.tensors.at(t).is_constant)
        return absl::InvalidArgumentError(absl::StrCat("systolic_npu: op ", op.id, " reads tensor '",
                                                       g.tensors.at(t).name, "' before it is written"));
    switch (op.type) {
      case TSR_OP_FULLY_CONNECTED:
      case TSR_OP_MATMUL: {
        GemmLayer L;
        s = BuildGemm(g, op, &L, &why);
        if (s.ok()) s = EmitGemm(L, LayerRefs{ref(op.inputs[0]), ref(op.outputs[0]), {}, {}}, npu, topt, p, e);
        break;
      }
      case TSR_OP_CONV_2D: {
        Conv2dLayer L;
        s = BuildConv(g, op, &L, &why);
        if (s.ok()) s = EmitConv2d(L, LayerRefs{ref(op.inputs[0]), ref(op.outputs[0]), {}, {}}, npu, topt, p, e);
        break;
      }
      case TSR_OP_ADD:
      case TSR_OP_MUL:
      case TSR_OP_RELU:
      case TSR_OP_CLIP: {
        ElementwiseLayer L;
        int ai = 0;
        s = BuildElementwise(g, op, &L, &why, &ai);
        const bool binary = op.type == TSR_OP_ADD || op.type == TSR_OP_MUL;
        if (s.ok())
          s = EmitElementwise(L, ref(op.inputs[ai]), binary ? ref(op.inputs[1 - ai]) : TensorRef{},
                              ref(op.outputs[0]), npu, p, e);
        break;
      }
      default: {
        Pool2dLayer L;
        s = BuildPool(g, op, &L, &why);
        if (s.ok()) s = EmitPool2d(L, ref(op.inputs[0]), ref(op.outputs[0]), npu, p, e);
        break;
      }
    }
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat("systolic_npu: op ", op.id, " (", OpName(op.type), "): ", s.message()));
  }
  p.entries.push_back(std::move(e));
  if (absl::Status v = VerifyProgram(p, npu); !v.ok())
    return absl::InternalError(absl::StrCat("systolic_npu: generated code failed verification: ", v.message()));
  return p;
}

absl::StatusOr<RunMetrics> EstimateOp(const GraphSnapshot& g, size_t op_index,
                                      const SystolicNpuConfig& npu, const LoweringOptions& opt,
                                      Overlap overlap) {
  const SnapshotOp& op = g.ops.at(op_index);
  GraphSnapshot sub;
  std::map<int32_t, int32_t> remap;
  auto add = [&](int32_t t) -> int32_t {
    if (t < 0) return t;
    auto it = remap.find(t);
    if (it != remap.end()) return it->second;
    sub.tensors.push_back(g.tensors.at(t));
    const int32_t n = static_cast<int32_t>(sub.tensors.size() - 1);
    remap[t] = n;
    return n;
  };
  SnapshotOp copy = op;
  for (int32_t& t : copy.inputs) {
    const bool fresh = t >= 0 && !remap.count(t);
    t = add(t);
    if (fresh && !sub.tensors[t].is_constant) sub.inputs.push_back(t);
  }
  for (int32_t& t : copy.outputs) {
    t = add(t);
    sub.outputs.push_back(t);
  }
  sub.ops.push_back(copy);
  auto p = LowerGraph(sub, npu, opt, "estimate");
  if (!p.ok()) return p.status();
  return EstimateEntry(*p, p->entries[0], npu, overlap);
}

}  // namespace tessera::systolic
