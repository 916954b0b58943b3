#include "plugins/systolic_npu/compiler/gemm_family_layers.h"

#include <cmath>
#include <cstring>

#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/compiler/op_reading.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;

std::vector<float> FloatValues(const SnapshotTensor& t, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (t.dtype == TSR_DTYPE_F32) {
      std::memcpy(&v[i], t.constant.data() + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, t.constant.data() + 2 * i, 2);
      v[i] = HalfToFloat(h);
    }
  }
  return v;
}

// FP16 compute: one dtype throughout; constant weights and bias are kept
// for pre-tiling, runtime ones are placed in DRAM.
template <typename Layer>
absl::Status FillFloatOperands(const SnapshotOp& op, const SnapshotTensor& x,
                               const SnapshotTensor& w, const SnapshotTensor* b,
                               const SnapshotTensor& y, int64_t channels, Layer* L, Why* why) {
  if (w.dtype != x.dtype || y.dtype != x.dtype || (b && b->dtype != x.dtype))
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "float ", OpName(op.type),
                " needs one dtype for input, weights, bias and output (got ", DtypeText(x.dtype),
                ", ", DtypeText(w.dtype), b ? ", " : "", b ? DtypeText(b->dtype) : "", ", ",
                DtypeText(y.dtype), ")");
  L->dtype = x.dtype;
  L->weights_dtype = w.dtype;
  if (w.is_constant) {
    L->weights.assign(w.constant.begin(), w.constant.end());
  } else {
    L->weights_placement = OperandPlacement::kDram;
  }
  if (b != nullptr) {
    if (b->is_constant) {
      L->bias_f = FloatValues(*b, channels);
    } else {
      L->bias_placement = OperandPlacement::kDram;
    }
  }
  return absl::OkStatus();
}

// INT8 compute: per-tensor activations, symmetric per-tensor or
// per-output-channel weights, i32 bias, all of them known at compile time.
template <typename Layer>
absl::Status FillQuantizedOperands(const SnapshotOp& op, const SnapshotTensor& x,
                                   const SnapshotTensor& w, const SnapshotTensor* b,
                                   const SnapshotTensor& y, int64_t channels, int64_t w_axis,
                                   Layer* L, Why* why) {
  if (x.dtype != TSR_DTYPE_I8)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, OpName(op.type), " on ", DtypeText(x.dtype),
                " (the NPU computes f32/f16 as FP16 and quantized i8)");
  if (y.dtype != TSR_DTYPE_I8)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "quantized ", OpName(op.type), " with a ",
                DtypeText(y.dtype), " output (only requantized i8 outputs)");
  if (w.dtype != TSR_DTYPE_I8)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "quantized ", OpName(op.type), " with ",
                DtypeText(w.dtype), " weights (i8 only)");
  if (!w.is_constant)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "quantized ", OpName(op.type),
                " with weights '", w.name,
                "' computed at run time: int8 weights must be constants, because the compiler "
                "folds the input zero point into the bias with their column sums (bias' = bias - "
                "zp_in * sum_k W[k][n]) and derives the per-channel requantization multipliers "
                "from their symmetric scales (docs/systolic_npu_isa.md section 9)");
  if (b != nullptr && !b->is_constant)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "quantized ", OpName(op.type), " with bias '",
                b->name,
                "' computed at run time: the compiler folds the input zero point into the int32 "
                "bias (bias' = bias - zp_in * sum_k W[k][n]), so it must be a constant");
  auto xq = PerTensorQuant(x, "input", why);
  if (!xq.ok()) return xq.status();
  auto yq = PerTensorQuant(y, "output", why);
  if (!yq.ok()) return yq.status();
  const size_t ns = w.quant.scales.size();
  const int64_t rank = static_cast<int64_t>(w.shape.size());
  if (ns != 1 && !(static_cast<int64_t>(ns) == channels &&
                   (w.quant.axis == w_axis || w.quant.axis == w_axis - rank)))
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "weights '", w.name,
                "' need per-tensor or per-output-channel scales (axis ", w_axis, ")");
  for (int64_t zp : w.quant.zero_points)
    if (zp != 0)
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "i8 weights '", w.name,
                  "' must be symmetric (zero point 0)");
  for (float s : w.quant.scales)
    if (!(s > 0) || !std::isfinite(s))
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "weights '", w.name,
                  "' have a non-positive scale");
  if (b != nullptr && b->dtype != TSR_DTYPE_I32)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "quantized bias must be i32, not ",
                DtypeText(b->dtype));
  L->dtype = TSR_DTYPE_I8;
  L->weights_dtype = TSR_DTYPE_I8;
  L->weights.assign(w.constant.begin(), w.constant.end());
  L->input_q = *xq;
  L->output_q = *yq;
  L->weight_scales = w.quant.scales;
  if (b != nullptr) {
    L->bias_q.resize(channels);
    std::memcpy(L->bias_q.data(), b->constant.data(), channels * 4);
  }
  return absl::OkStatus();
}

// Shared by FULLY_CONNECTED, MATMUL and CONV_2D: dtypes, weights, bias and
// quantization. `channels` = output channels, `w_axis` = per-channel axis
// of the weights.
template <typename Layer>
absl::Status FillComputeOperands(const GraphSnapshot& g, const SnapshotOp& op, int64_t channels,
                                 int64_t w_axis, Layer* L, Why* why) {
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& w = *OpTensor(g, op, 1, false);
  const SnapshotTensor* b = OpTensor(g, op, 2, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  if (w.is_constant && w.constant.size() != static_cast<size_t>(kit::ElementCount(w.shape)) *
                                                kit::DTypeByteSize(w.dtype))
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "weights '", w.name, "' have the wrong byte size");
  if (b != nullptr) {
    if (b->shape != std::vector<int64_t>{channels})
      SNPU_REFUSE(TSR_REFUSAL_OTHER, "bias shape ", ShapeText(b->shape), " is not [", channels,
                  "]");
    if (b->is_constant &&
        b->constant.size() != static_cast<size_t>(channels) * kit::DTypeByteSize(b->dtype))
      SNPU_REFUSE(TSR_REFUSAL_OTHER, "bias '", b->name, "' has the wrong byte size");
  }
  auto act = FusedActivation(op, why);
  if (!act.ok()) return act.status();
  L->activation = *act;
  if (IsFloat(x.dtype)) return FillFloatOperands(op, x, w, b, y, channels, L, why);
  return FillQuantizedOperands(op, x, w, b, y, channels, w_axis, L, why);
}

}  // namespace

absl::Status BuildGemmLayer(const GraphSnapshot& g, const SnapshotOp& op, GemmLayer* L, Why* why) {
  if (auto s = CheckArity(g, op, 2, 3, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& w = *OpTensor(g, op, 1, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  const bool fc = op.type == TSR_OP_FULLY_CONNECTED;
  if (fc && w.shape.size() != 2)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "FULLY_CONNECTED: weights must be 2-D [N, K], got ",
                ShapeText(w.shape));
  if (!fc && (x.shape.size() < 2 || w.shape.size() < 2))
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "MATMUL of ", ShapeText(x.shape), " and ",
                ShapeText(w.shape),
                ": 1-D operands are not supported (A [..., M, K], B [..., K, N])");
  const size_t wr = w.shape.size();
  const int64_t K = fc ? w.shape[1] : w.shape[wr - 2];
  const int64_t N = fc ? w.shape[0] : w.shape[wr - 1];
  if (x.shape.back() != K)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": input ", ShapeText(x.shape),
                " does not match weights ", ShapeText(w.shape));
  const std::vector<int64_t> a_lead(x.shape.begin(), x.shape.end() - (fc ? 1 : 2));
  const std::vector<int64_t> b_lead(w.shape.begin(), w.shape.end() - 2);
  // One B shared by every row of A (2-D, or leading 1s that broadcast away):
  // A's leading dims fold into M, a single GEMM.
  const bool shared_b = fc || (kit::ElementCount(b_lead) == 1 && b_lead.size() <= a_lead.size());
  std::vector<int64_t> want;
  if (shared_b) {
    want.assign(x.shape.begin(), x.shape.end() - 1);
    L->M = kit::ElementCount(x.shape) / K;
  } else {
    auto batch = BroadcastBatchDims(a_lead, b_lead);
    if (!batch.ok())
      SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "MATMUL: batch dims ", ShapeText(a_lead),
                  " of A and ", ShapeText(b_lead),
                  " of B do not broadcast (numpy rules: equal, or one of them 1)");
    want = *batch;
    want.push_back(x.shape[x.shape.size() - 2]);
    L->M = x.shape[x.shape.size() - 2];
    L->a_batch = a_lead;
    L->b_batch = b_lead;
  }
  want.push_back(N);
  if (y.shape != want)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": output ", ShapeText(y.shape), " is not ",
                ShapeText(want));
  L->K = K;
  L->N = N;
  L->weight_layout = fc ? WeightLayout::kNK : WeightLayout::kKN;
  if (auto s = FillComputeOperands(g, op, N, fc ? 0 : static_cast<int64_t>(wr) - 1, L, why);
      !s.ok())
    return s;
  if (!shared_b) {
    if (L->dtype == TSR_DTYPE_I8)
      SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                  "quantized MATMUL with a batched right operand ", ShapeText(w.shape),
                  " (int8 needs one constant [K, N] matrix)");
    // A batched constant B is read like a runtime one: its raw bytes sit in
    // the constant pool and the DMA engine gathers each batch's tiles.
    L->weights.clear();
    L->weights_placement = OperandPlacement::kDram;
  }
  return absl::OkStatus();
}

absl::Status BuildConvLayer(const GraphSnapshot& g, const SnapshotOp& op, Conv2dLayer* L,
                            Why* why) {
  if (auto s = CheckArity(g, op, 2, 3, why); !s.ok()) return s;
  const SnapshotTensor& x = *OpTensor(g, op, 0, false);
  const SnapshotTensor& w = *OpTensor(g, op, 1, false);
  const SnapshotTensor& y = *OpTensor(g, op, 0, true);
  if (x.shape.size() != 4 || w.shape.size() != 4)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "CONV_2D needs 4-D NCHW input and [M, C/g, kH, kW] weights");
  const auto strides = IntsAttr(op, TSR_ATTR_STRIDES, {1, 1});
  const auto dil = IntsAttr(op, TSR_ATTR_DILATIONS, {1, 1});
  const auto pads = IntsAttr(op, TSR_ATTR_PADS, {0, 0, 0, 0});
  const int64_t groups = IntsAttr(op, TSR_ATTR_GROUPS, {1})[0];
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                "CONV_2D: strides/dilations need 2 values, pads 4");
  for (int64_t v : strides)
    if (v < 1 || v > 65536) SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: stride ", v);
  for (int64_t v : dil)
    if (v < 1 || v > 65536)
      SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: dilation ", v);
  for (int64_t v : pads)
    if (v < 0 || v > 65536) SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: pad ", v);
  if (groups < 1 || x.shape[1] % groups || w.shape[0] % groups ||
      w.shape[1] * groups != x.shape[1])
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "CONV_2D: groups ", groups,
                " do not fit input ", ShapeText(x.shape), " and weights ", ShapeText(w.shape));
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
  if (L->out_h() < 1 || L->out_w() < 1) SNPU_REFUSE(TSR_REFUSAL_OTHER, "CONV_2D: empty output");
  const std::vector<int64_t> want = {L->batch, L->out_channels, L->out_h(), L->out_w()};
  if (y.shape != want)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "CONV_2D: output ", ShapeText(y.shape), " is not ",
                ShapeText(want));
  return FillComputeOperands(g, op, L->out_channels, 0, L, why);
}

}  // namespace tessera::systolic
