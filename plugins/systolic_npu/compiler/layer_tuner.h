// The layer tuner (option systolic_npu.tune=search): for one GEMM-family
// op (FULLY_CONNECTED, MATMUL, CONV_2D), every dataflow (WS, OS, IS) times
// every array-aligned cap on the tile the rule sizes to fill SRAM, each
// lowered on its own and scored by the cycle model (default overlap: the
// device's schedule, DMA and compute concurrent). The fewest cycles win;
// a tie keeps the rule. A vendor compiler's "build" or "optimize" mode
// (TensorRT's tactic timing, TVM's schedule search) does this work once,
// at AOT compile time; JIT pays it at every process start.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LAYER_TUNER_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LAYER_TUNER_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/soc_config.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

bool IsGemmFamily(int32_t op_type);

struct LayerTuning {
  TilerOptions options;      // the winner
  uint64_t rule_cycles = 0;  // the rule (`rule_dataflow`, largest tile); 0 when it does not fit
  uint64_t tuned_cycles = 0;
  int candidates = 0;        // tilings lowered and scored
};

// Searches op `op_index` of `g` (a GEMM-family op that passes
// CheckOpSupport). Fails with the rule's error when no candidate fits.
absl::StatusOr<LayerTuning> TuneLayer(const kit::GraphSnapshot& g, size_t op_index,
                                      const SystolicNpuConfig& npu, Dataflow rule_dataflow);

// Remembers each distinct layer's search for one plugin instance, so that a
// model's repeated layers, and the claims, estimate and compile passes over
// one op, search once. The key is what the search depends on: the NPU's
// configuration, the rule's dataflow, and the op's type, attributes and
// tensors' dtypes, shapes and constness; never weight values, which no
// cycle count depends on. Thread-safe.
class TuningMemo {
 public:
  // TuneLayer, or its remembered result (counted in `tally` as a hit).
  absl::StatusOr<LayerTuning> Tune(const kit::GraphSnapshot& g, size_t op_index, const SystolicNpuConfig& npu,
                                   Dataflow rule_dataflow, TuningTally* tally);

  // What the searches of this memo's life cost.
  struct Totals {
    int layers = 0, candidates = 0;
    double search_ms = 0;
  };
  Totals totals() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, LayerTuning> done_;
  Totals totals_;
};

// Adds one search (hit: remembered, no tilings scored now) to `tally`.
void AddToTally(const LayerTuning& t, bool hit, TuningTally& tally);
// Adds every count of `from` to `into`.
void AddTally(const TuningTally& from, TuningTally& into);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_LAYER_TUNER_H_
