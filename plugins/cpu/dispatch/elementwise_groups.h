// Fusion of elementwise runs at load: a run of consecutive elementwise f32
// ops with one output shape (a GELU, the tail of a decomposed LayerNorm, a
// bias add) becomes one fast op (fast::FastEngine::PrepareElementwiseGroup)
// at the run's first op, so the run reads and writes the activation once.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_ELEMENTWISE_GROUPS_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_ELEMENTWISE_GROUPS_H_

#include <cstddef>
#include <vector>

#include "plugins/cpu/dispatch/cpu_program.h"

namespace tessera::cpu {

// For every run that the fast kernels accept: sets fast_ops, fast_inputs
// and fast_outputs of its first op and fused_into of the others, and adds
// them to fast_op_count. `readers[t]` are the ops reading tensor t;
// `excluded[o]` ops stay out (e.g. a RELU that fuses into a compute op).
void FuseElementwiseGroups(CpuProgram& p, const fast::FastEngine& engine,
                           const std::vector<std::vector<size_t>>& readers, const std::vector<bool>& excluded);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_ELEMENTWISE_GROUPS_H_
