// The GEMM emitter shared by FULLY_CONNECTED / MATMUL (tiler_gemm.cc) and
// CONV_2D (tiler_conv.cc): one M x K x N GEMM, the constant-pool records it
// needs and its instruction stream (tile sizes, ping-pong buffers,
// epilogue). Not part of the public API.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_GEMM_CORE_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_GEMM_CORE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic::internal {

// Where the B tiles of one GEMM come from.
struct WeightTiles {
  OperandPlacement placement = OperandPlacement::kPretiled;
  // kPretiled: per column tile, the constant holding its K x nt panel.
  std::vector<uint32_t> panels;
  // kDram: B[k][n] is element (k * k_stride + n * n_stride) of dram_dtype
  // after `dram` (the strides let W[N][K] and conv weights be read as B).
  TensorRef dram;
  uint64_t k_stride = 0, n_stride = 0;
  int32_t dram_dtype = TSR_DTYPE_F32;
};

// The per-column-tile epilogue parameters (FP16: bias[nt] f32; INT8:
// [bias' | multiplier | shift] i32).
struct ParamTiles {
  bool present = false;
  OperandPlacement placement = OperandPlacement::kPretiled;
  std::vector<uint32_t> constants;  // kPretiled: one per column tile
  TensorRef dram;                   // kDram (FP16): bias[N] of dram_dtype
  int32_t dram_dtype = TSR_DTYPE_F32;
};

struct GemmCore {
  int64_t M = 0, K = 0, N = 0;
  int32_t mdtype = TSR_DTYPE_F16;    // matrix-unit operand dtype
  int32_t io_dtype = TSR_DTYPE_F32;  // DRAM dtype of A and the output
  // A source.
  bool im2col = false;
  uint8_t a_region = 0;
  uint64_t a_offset = 0, a_row_stride = 0;  // strided: elements per row
  uint32_t im2col_desc = kNoConstant;
  // Output (elements).
  uint8_t out_region = 0;
  uint64_t out_offset = 0, out_row_stride = 0, out_col_stride = 1;
  WeightTiles weights;
  ParamTiles params;
  // Post-processing.
  Activation act = Activation::kNone;
  uint32_t clip_desc = kNoConstant;     // float path
  uint32_t requant_desc = kNoConstant;  // int8 path
};

// Compile-time weights of one GEMM as B[k][n] accessors.
struct WeightAccessor {
  std::function<float(int64_t k, int64_t n)> f;   // float path
  std::function<int8_t(int64_t k, int64_t n)> q;  // int8 path
};

// Compile-time epilogue inputs of one GEMM.
struct Epilogue {
  const std::vector<float>* bias_f = nullptr;  // indexed by n + n_base
  const std::vector<int32_t>* bias_q = nullptr;
  const std::vector<float>* weight_scales = nullptr;
  int64_t n_base = 0;  // channel offset (conv groups)
  QuantSpec in_q, out_q;
  ActivationSpec act;
};

// Adds the constant-pool records of `g`: the weight panels when
// g.weights.placement is kPretiled (from `w`), the pretiled parameters
// (a constant bias; INT8 always) and the activation / requantization
// descriptors.
void PrepareConstants(GemmCore& g, const WeightAccessor& w, const Epilogue& ep, const SystolicNpuConfig& npu,
                      Program& p);

// Appends the instruction stream of `g` to `e` (ISA doc section 5).
absl::Status EmitGemmCore(const GemmCore& g, const SystolicNpuConfig& npu, const TilerOptions& opt, const Program& p,
                          EntryPoint& e);

// The pieces of the GEMM stream the depthwise lowering (tiler_depthwise.cc)
// shares: DMA_LOAD of B rows [k0, k0 + ki) x columns [n0, n0 + nj) (column
// tile j) into `dst`; DMA_LOAD of column tile j's epilogue parameters; the
// VECTOR post-processing of one mi x nj accumulator tile, returning the
// dtype the tile is stored from.
absl::StatusOr<Instruction> LoadWeightTile(const GemmCore& g, const Program& p, int64_t j, int64_t n0, uint32_t nj,
                                           int64_t k0, uint32_t ki, uint32_t dst);
absl::StatusOr<Instruction> LoadParams(const GemmCore& g, const Program& p, int64_t j, int64_t n0, uint32_t nj,
                                       uint32_t dst);
int32_t EmitEpilogue(const GemmCore& g, uint32_t acc, uint32_t par, uint32_t mi, uint32_t nj, EntryPoint& e);

absl::Status InvalidLayer(const std::string& message);

// The layer checks GEMM and conv share: dtypes, compile-time weights' byte
// size, bias, quantization parameters, activation.
struct LayerOperands {
  int32_t dtype, weights_dtype;
  size_t weights_bytes;
  int64_t weight_elems, channels;
  OperandPlacement weights_placement, bias_placement;
  const std::vector<float>& bias_f;
  const std::vector<int32_t>& bias_q;
  const std::vector<float>& weight_scales;
  QuantSpec in_q, out_q;
  const ActivationSpec& act;
};
absl::Status CheckLayerOperands(const LayerOperands& l);

// Element i of compile-time float weights (F32 or F16 bytes).
float LoadWeight(const std::vector<uint8_t>& w, int32_t dtype, size_t i);

}  // namespace tessera::systolic::internal

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_GEMM_CORE_H_
