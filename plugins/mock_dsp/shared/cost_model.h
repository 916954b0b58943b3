// The DSP's throughput model (docs/mock_dsp.md): a vector unit of
// `vector_lanes` f32 lanes at `clock_mhz`; a vector of a simple op (add,
// compare, select, a data move) costs one cycle, a vector of a
// transcendental costs `transcendental_cycles`. The compiler reports it as
// each claim's estimate; the dispatch library reports the same sum as the
// invocation's modelled device time.
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_COST_MODEL_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_COST_MODEL_H_

#include <cstdint>

#include "plugins/kit/graph_snapshot.h"
#include "plugins/mock_dsp/shared/dsp_soc.h"

namespace tessera::mock_dsp {

// Modelled cycles of op `op` of `g` (0 for an op the DSP does not run).
uint64_t OpCycles(const DspSoc& soc, const kit::GraphSnapshot& g, const kit::SnapshotOp& op);

// Cycles to microseconds at the SoC's clock.
double CyclesToMicroseconds(const DspSoc& soc, uint64_t cycles);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_COST_MODEL_H_
