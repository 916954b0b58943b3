// Graph partitions (read through the graph view into a kit::GraphSnapshot)
// to NPU programs: which ops the NPU claims, and their lowering onto the
// tiling compiler of core/.
//
// Claimed: FULLY_CONNECTED, MATMUL (also batched), CONV_2D (fused bias +
// RELU/CLIP), ADD, SUB, MUL (same shapes, trailing-dims or per-channel
// broadcasting), DIV by a constant (MUL by its reciprocal), RELU, CLIP,
// SIGMOID, TANH, EXP (lookup tables), MAX_POOL_2D, AVG_POOL_2D,
// GLOBAL_AVG_POOL, QUANTIZE, DEQUANTIZE (per tensor, i8), RESHAPE, SQUEEZE,
// UNSQUEEZE (aliases; a DMA copy only into a partition output); tensors f32 (run as FP16 on the matrix
// unit), f16, or int8 with quantization parameters (docs/ops.md "Quantized
// compute"). FP16 weights and biases may arrive at run time; int8 ones must
// be constants. The per-family checks live in gemm_family_layers.h,
// vector_op_layers.h and convert_op_layers.h.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LOWERING_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/soc_config.h"
#include "tessera/compiler_plugin.h"

namespace tessera::systolic {

class TuningMemo;

// What the layer tuner did while lowering (compiler/layer_tuner.h).
struct TuningTally {
  int layers = 0;          // GEMM-family layers tuned
  int remembered = 0;      // of them, answered from the TuningMemo
  int candidates = 0;      // tilings scored, over the layers searched now
  uint64_t rule_cycles = 0, tuned_cycles = 0;  // the layers alone, summed
  int chosen[kDataflowCount] = {};             // layers per winning dataflow
  int capped = 0;                              // of them, with a capped tile
  // Lowerings whose whole tuned program was not faster than the rule's, so
  // the rule's was kept (LowerGraph).
  int programs_kept_rule = 0;
};

struct LoweringOptions {
  Dataflow dataflow = Dataflow::kWeightStationary;
  // Search every GEMM-family layer's tiling (dataflow x tile size) for the
  // fewest modelled cycles instead of applying `dataflow` and the largest
  // tile (option systolic_npu.tune=search). The whole program is then
  // compared with the rule's, and the rule's kept unless the tuned one is
  // faster.
  bool tune = false;
  TuningTally* tally = nullptr;  // optional: counts of the search
  TuningMemo* memo = nullptr;    // optional: searches to reuse and keep
  // TilerOptions::free_tile_cap of every GEMM-family layer when not tuning
  // (the tuner's candidates); 0 = the largest tile that fits.
  int64_t free_tile_cap = 0;
  // Keep intermediates in the on-chip arena where they fit (memory_plan.h;
  // the program is kept only when it models no more cycles than the
  // all-DRAM one). Off: every intermediate in DRAM scratch (the layer
  // tuner scores a layer's tiling this way, alone).
  bool on_chip_arena = true;
};

struct OpSupport {
  bool supported = false;
  int32_t reason = TSR_REFUSAL_NONE;  // tsr_refusal_reason
  std::string detail;                 // human text for a refusal
};

// Static checks of one op (type, dtypes, quantization, shapes, constants,
// attributes). Does not try to tile it: see EstimateOp.
OpSupport CheckOpSupport(const kit::GraphSnapshot& g, const kit::SnapshotOp& op);

// Lowers a whole partition into a program with one entry point `name`:
// graph inputs are INPUT regions, graph outputs OUTPUT regions (in graph
// order); intermediates that the memory plan keeps on chip live in one
// ON_CHIP region (memory_plan.h, with options.on_chip_arena), the others
// share one SCRATCH region. Every op must pass CheckOpSupport.
absl::StatusOr<Program> LowerGraph(const kit::GraphSnapshot& g, const SystolicNpuConfig& npu,
                                   const LoweringOptions& options, const std::string& name);

// The modelled cost of op `op_index` alone (its own program, formulas of
// the cycle model). Fails (ResourceExhausted, InvalidArgument) when the op
// cannot be tiled onto this SoC. `computes_fp16` (when given) receives
// whether that program computes an F32 tensor's math in FP16 (numerics.h),
// which the claim declares (TSR_CLAIM_FLAG_COMPUTES_FP16).
absl::StatusOr<RunMetrics> EstimateOp(const kit::GraphSnapshot& g, size_t op_index, const SystolicNpuConfig& npu,
                                      const LoweringOptions& options, Overlap overlap, bool* computes_fp16 = nullptr);

const char* OpName(int32_t op_type);

// The one-op partition of `op_index`: the op, its tensors, its non-constant
// inputs as partition inputs and its outputs as partition outputs.
kit::GraphSnapshot SingleOpGraph(const kit::GraphSnapshot& g, size_t op_index);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LOWERING_H_
