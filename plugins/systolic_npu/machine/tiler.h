// The tiling compiler: lowers one layer to NPU instructions.
//
//   GEMM (FULLY_CONNECTED / MATMUL): out[M][N] = A[M][K] * B[K][N] (+ bias,
//     fused activation). Constant weights are pre-tiled into K x nt column
//     panels in the constant pool (nt = array columns); weights that arrive
//     at run time (FP16) are read tile by tile from their DRAM tensor by
//     strided DMA. Batched MATMUL is one GEMM per batch index. Tiles are
//     sized so every tile fits half its SRAM bank; DMA of tile i+1 overlaps
//     the compute of tile i (ping-pong buffers in each bank).
//   CONV_2D (NCHW, weights [OC][C/g][kH][kW], groups/depthwise): per image
//     and group a GEMM with M = OH*OW pixels, K = C/g*kH*kW, N = OC/g. The
//     A tiles come from the DMA engine's IM2COL addressing mode (a
//     descriptor in the constant pool, padding filled with the input zero
//     point); results are stored transposed into NCHW by a strided store.
//   ADD, SUB, MUL, RELU, CLIP, SIGMOID, TANH, EXP, MAX_POOL_2D, AVG_POOL_2D:
//     vector-unit lowerings (DIV by a constant and GLOBAL_AVG_POOL arrive
//     from the compiler as MUL and AVG_POOL_2D layers).
//   RESHAPE (a DMA copy), QUANTIZE, DEQUANTIZE: element streams
//     (tiler_convert.cc).
//
// INT8: int8 x int8 products in int32; the input zero point is folded into
// the bias at compile time (bias'[n] = bias[n] - zp_in * sum_k B[k][n]);
// REQUANTIZE applies per-channel q31 multipliers/shifts, the output zero
// point and the activation clamp. FP16: f16 operands (f32 tensors are
// converted by the DMA engine, constant weights at compile time), f32
// accumulators, bias and activation in f32 on the vector unit.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {

struct QuantSpec {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

struct ActivationSpec {
  Activation kind = Activation::kNone;
  float clip_min = 0.0f, clip_max = 0.0f;  // kClip only
};

// Where a layer reads and writes DRAM: region indices of the entry point
// (1-based; see program.h) plus byte offsets.
struct TensorRef {
  uint8_t region = 0;
  uint64_t offset = 0;
};

enum class WeightLayout : uint8_t {
  kNK = 0,  // W[N][K] (FULLY_CONNECTED, y = x * W^T)
  kKN = 1,  // B[K][N] (MATMUL right operand)
};

// Where a layer's weights (or bias) come from.
//   kPretiled: compile-time values in the layer (`weights`, `bias_*`),
//     rearranged into the constant pool in device layout (one contiguous
//     K x nt panel per column tile, section 4 of the ISA doc).
//   kDram: a tensor of the layer dtype in DRAM, in the layer's logical
//     layout, at the TensorRef the emitter receives (an input, an
//     intermediate, or raw bytes in the constant pool). The DMA engine reads
//     each weight tile with strides, converting F32 -> F16, at run time.
//     FP16 layers only: the INT8 pipeline folds the input zero point into
//     the bias using the weights' column sums, which needs them at compile
//     time (section 9).
enum class OperandPlacement : uint8_t { kPretiled = 0, kDram = 1 };

// DRAM locations of one GEMM-family layer's tensors. `weights` / `bias`
// are read only for operands placed kDram.
struct LayerRefs {
  TensorRef input, output, weights, bias;
};

// Leading (batch) dims of a batched MATMUL's result under numpy
// broadcasting of A's and B's leading dims (each missing dim counts as 1;
// equal dims, or 1 against anything). InvalidArgument when they do not
// broadcast.
absl::StatusOr<std::vector<int64_t>> BroadcastBatchDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

struct GemmLayer {
  int64_t M = 0, K = 0, N = 0;
  // Tensor dtype in DRAM: I8 (quantized), F16, or F32 (run as FP16).
  int32_t dtype = TSR_DTYPE_F32;
  // Constant weights: F32/F16 values (float dtypes) or I8 (quantized),
  // raw little-endian bytes in `weight_layout`.
  std::vector<uint8_t> weights;
  int32_t weights_dtype = TSR_DTYPE_F32;
  WeightLayout weight_layout = WeightLayout::kNK;
  // Optional bias[N]: float values (float dtypes) or int32 (quantized,
  // scale in_scale * w_scale[n], zero point 0).
  std::vector<float> bias_f;
  std::vector<int32_t> bias_q;
  // kDram weights: `weights` stays empty; B (kKN, [b_batch..., K, N]) or
  // W (kNK, [N, K]) is read from LayerRefs::weights. kDram bias: bias_f
  // stays empty; bias[N] is read from LayerRefs::bias.
  OperandPlacement weights_placement = OperandPlacement::kPretiled;
  OperandPlacement bias_placement = OperandPlacement::kPretiled;
  // Batched MATMUL (kKN, kDram weights): A is [a_batch..., M, K], B is
  // [b_batch..., K, N], the output [BroadcastBatchDims(a_batch, b_batch)...,
  // M, N]; one GEMM per output batch index. Both empty: a single GEMM (a
  // shared 2-D B lets A's leading dims fold into M instead).
  std::vector<int64_t> a_batch, b_batch;
  ActivationSpec activation;
  // INT8 only: asymmetric per-tensor activations, symmetric per-channel
  // (or per-tensor: one entry) weight scales.
  QuantSpec input_q, output_q;
  std::vector<float> weight_scales;
};

struct Conv2dLayer {
  int64_t batch = 1, in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t groups = 1;
  int32_t dtype = TSR_DTYPE_F32;
  std::vector<uint8_t> weights;  // [OC][C/g][kH][kW]
  int32_t weights_dtype = TSR_DTYPE_F32;
  std::vector<float> bias_f;
  std::vector<int32_t> bias_q;
  // As GemmLayer: kDram weights [OC][C/g][kH][kW] / bias [OC] are read
  // from LayerRefs at run time (FP16 only).
  OperandPlacement weights_placement = OperandPlacement::kPretiled;
  OperandPlacement bias_placement = OperandPlacement::kPretiled;
  ActivationSpec activation;
  QuantSpec input_q, output_q;
  std::vector<float> weight_scales;
  int64_t out_h() const;
  int64_t out_w() const;
};

// kSigmoid, kTanh, kExp: the vector unit's lookup tables (lookup_tables.h)
// for f32 / f16; on I8 one 256-entry VECTOR TABLE (int8_tables.h) built
// from a_q / out_q. kTable: I8 only, y = T[x] with the caller's tables as b
// (one, or one per channel: b_channels / plane), e.g. DIV by a constant.
enum class ElementwiseOp : uint8_t { kAdd, kMul, kRelu, kClip, kSub, kSigmoid, kTanh, kExp, kTable };

// Same-shape elementwise op over `count` elements (RELU/CLIP: one input).
// Semantics follow docs/ops.md: I8 ADD/SUB/MUL dequantize, compute and
// requantize in f32 (a_q, b_q, out_q); I8 RELU/CLIP act on the stored
// integers (CLIP bounds: ceil(min), floor(max)) and ignore quantization.
inline bool IsBinary(ElementwiseOp op) {
  return op == ElementwiseOp::kAdd || op == ElementwiseOp::kSub || op == ElementwiseOp::kMul;
}
inline bool IsLookupTable(ElementwiseOp op) {
  return op == ElementwiseOp::kSigmoid || op == ElementwiseOp::kTanh || op == ElementwiseOp::kExp;
}

struct ElementwiseLayer {
  ElementwiseOp op = ElementwiseOp::kAdd;
  int64_t count = 0;
  int32_t dtype = TSR_DTYPE_F32;  // F32, F16 or I8
  float clip_min = 0, clip_max = 0;
  QuantSpec a_q, b_q, out_q;
  // ADD/SUB/MUL: b has b_count elements repeated over a (numpy
  // broadcasting of a trailing-dims operand, or a scalar); 0 = same shape
  // as a.
  int64_t b_count = 0;
  // ADD/SUB/MUL per channel (b_count 0): a is [outer, b_channels, plane]
  // and b holds one value per channel, e.g. b [C, 1, 1] or [1, C, 1, 1]
  // against a [N, C, H, W] (plane = H * W); 0 = not per channel.
  int64_t b_channels = 0, plane = 0;
};

enum class PoolKind : uint8_t { kMax, kAvg };

struct Pool2dLayer {
  PoolKind kind = PoolKind::kMax;
  int64_t batch = 1, channels = 0, in_h = 0, in_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
  bool count_include_pad = false;
  // F32, F16 or I8 (I8 pooling acts on the stored integers; AVG rounds
  // half away from zero as TFLite).
  int32_t dtype = TSR_DTYPE_F32;
  int64_t out_h() const;
  int64_t out_w() const;
};

// INT8 GLOBAL_AVG_POOL (docs/ops.md): per row (one channel of one image)
// acc = sum(q - in_q.zero_point) over `plane` elements, then the INT8
// requantize by in_q.scale / (plane * out_q.scale): VECTOR ROW_SUM,
// BIAS_ADD (-plane * zp), REQUANTIZE.
struct QuantGlobalAvgPoolLayer {
  int64_t rows = 0, plane = 0;
  QuantSpec in_q, out_q;
};

// Element streams that only move or convert bytes, one element in, one out
// (docs/ops.md; quantization per tensor):
//   kCopy: RESHAPE (same dtype, same count, bytes unchanged);
//   kQuantize: F32/F16 -> I8 with `q` (the output's scale / zero point);
//   kDequantize: I8 -> F32/F16 with `q` (the input's).
enum class ConvertOp : uint8_t { kCopy, kQuantize, kDequantize };

struct ConvertLayer {
  ConvertOp op = ConvertOp::kCopy;
  int64_t count = 0;
  int32_t in_dtype = TSR_DTYPE_F32, out_dtype = TSR_DTYPE_F32;
  QuantSpec q;
};

struct TilerOptions {
  Dataflow dataflow = Dataflow::kWeightStationary;
  // Caps the GEMM tile along the dimension the rule sizes to fill SRAM
  // (M rows under WS and IS, K under OS); 0 = the rule: the largest tile
  // that fits. Smaller tiles start the DMA/compute pipeline sooner and
  // cost more weight reloads; the layer tuner (compiler/layer_tuner.h)
  // weighs the two with the cycle model.
  int64_t free_tile_cap = 0;
};

// Emit the layer into `entry` (regions must already exist and be large
// enough). Errors: InvalidArgument for malformed layers, ResourceExhausted
// when a layer cannot be tiled into this SoC's SRAM.
absl::Status EmitGemm(const GemmLayer& layer, const LayerRefs& refs, const SystolicNpuConfig& npu,
                      const TilerOptions& options, Program& program, EntryPoint& entry);
absl::Status EmitConv2d(const Conv2dLayer& layer, const LayerRefs& refs, const SystolicNpuConfig& npu,
                        const TilerOptions& options, Program& program, EntryPoint& entry);
// b is ignored for RELU / CLIP.
absl::Status EmitElementwise(const ElementwiseLayer& layer, TensorRef a, TensorRef b, TensorRef output,
                             const SystolicNpuConfig& npu, Program& program, EntryPoint& entry);
absl::Status EmitConvert(const ConvertLayer& layer, TensorRef input, TensorRef output, const SystolicNpuConfig& npu,
                         Program& program, EntryPoint& entry);
absl::Status EmitPool2d(const Pool2dLayer& layer, TensorRef input, TensorRef output, const SystolicNpuConfig& npu,
                        Program& program, EntryPoint& entry);
absl::Status EmitQuantGlobalAvgPool(const QuantGlobalAvgPoolLayer& layer, TensorRef input, TensorRef output,
                                    const SystolicNpuConfig& npu, Program& program, EntryPoint& entry);

// Convenience: a program with one entry point "main" whose regions are the
// layer's inputs (region 1 = the input; then the weights and the bias when
// placed kDram) and output (last region).
absl::StatusOr<Program> CompileGemmProgram(const GemmLayer& layer, const SystolicNpuConfig& npu,
                                           const TilerOptions& options);
absl::StatusOr<Program> CompileConv2dProgram(const Conv2dLayer& layer, const SystolicNpuConfig& npu,
                                             const TilerOptions& options);
absl::StatusOr<Program> CompileElementwiseProgram(const ElementwiseLayer& layer, const SystolicNpuConfig& npu);
absl::StatusOr<Program> CompileConvertProgram(const ConvertLayer& layer, const SystolicNpuConfig& npu);
absl::StatusOr<Program> CompilePool2dProgram(const Pool2dLayer& layer, const SystolicNpuConfig& npu);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_H_
