// Memory planning of one partition (docs/systolic_npu_isa.md §5 "Memory
// planning"): which tensors live in the on-chip activation arena
// (RegionKind::kOnChip) and where, so that a layer's output stays on chip
// for the next layer instead of a round trip through DRAM.
//
// As Vela does for Ethos-U's SRAM: each candidate tensor is live from the
// op that writes it to the last op that reads it (through RESHAPE /
// SQUEEZE / UNSQUEEZE aliases), and a greedy allocator places the largest
// tensors first at the lowest offset no tensor of an overlapping lifetime
// uses. A tensor that does not fit the budget stays in DRAM scratch, where
// its layers stream it through the ping-pong tile buffers as before.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_MEMORY_PLAN_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_MEMORY_PLAN_H_

#include <cstdint>
#include <map>
#include <vector>

#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {

// RESHAPE, SQUEEZE, UNSQUEEZE: the output is the input's bytes (an alias
// inside a partition; a DMA copy only into a partition output).
bool IsLayoutOnly(int32_t op_type);

struct ActivationPlan {
  // Tensor -> byte offset in the arena (64-byte aligned).
  std::map<int32_t, uint64_t> offset;
  // Partition inputs copied into the arena before the first op (in
  // g.inputs order): those a GEMM-family layer reads, which re-reads its
  // input (im2col taps, one pass per column tile) and would otherwise
  // re-read DRAM.
  std::vector<int32_t> staged;
  uint64_t arena_bytes = 0;  // 0: no arena
};

// Candidates: every tensor an op writes that is not a partition output and
// not an alias, and the staged inputs above. `budget`: the most arena bytes.
ActivationPlan PlanActivations(const kit::GraphSnapshot& g, uint64_t budget);

// The arena budgets the compiler tries on this SoC, smallest first: half
// and three quarters of the SRAM. A larger arena holds more activations
// and leaves smaller tile buffers; LowerGraph keeps the fastest program.
std::vector<uint64_t> ArenaBudgets(const SystolicNpuConfig& npu);

// The SoC as the tiler sees it when `arena_bytes` of SRAM hold the arena:
// every bank shrunk by the same fraction, to whole KiB, so that the banks
// give up at least `arena_bytes` together.
SystolicNpuConfig TileBanks(const SystolicNpuConfig& npu, uint64_t arena_bytes);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_MEMORY_PLAN_H_
