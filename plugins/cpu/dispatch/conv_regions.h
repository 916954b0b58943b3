// Convolution regions at load: a convolution or pool and the 4-D ops that
// follow it — more convolutions and pools, the ADD/SUB/MUL/DIV of residual
// blocks and squeeze-and-excitation rescales — become one fast op
// (fast::FastEngine::PrepareRegion) at the region's first op, so the
// tensors inside stay in the convolutions' layout and only the region's
// inputs and outputs are reordered to and from NCHW.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_CONV_REGIONS_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_CONV_REGIONS_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "plugins/cpu/dispatch/activation_tails.h"
#include "plugins/cpu/dispatch/cpu_program.h"

namespace tessera::cpu {

// For every region of two or more ops that the fast kernels accept: sets
// fast_ops, fast_inputs and fast_outputs of its first op and fused_into of
// the others (activation tails of its convolutions included), and adds
// them to fast_op_count. `readers[t]` are the ops reading tensor t;
// `tails[o]` the activation tail after compute op o; `parallel(ops)` says
// whether a link doing those ops is worth the engine's threads.
void FuseConvRegions(CpuProgram& p, const fast::FastEngine& engine, const std::vector<std::vector<size_t>>& readers,
                     const std::vector<std::optional<ActivationTail>>& tails,
                     const std::function<bool(const std::vector<size_t>&)>& parallel);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_CONV_REGIONS_H_
