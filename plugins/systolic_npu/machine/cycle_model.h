// The cycle model: one formula per instruction and the scheduler that
// composes them into a run (docs/systolic_npu_isa.md, "Cycle model").
//
// Two conventions:
//   kDefault: four engines (DMA-in, DMA-out, matrix unit, vector unit) run
//             concurrently; an instruction starts when its engine is free
//             and every earlier instruction it conflicts with (SRAM/DRAM
//             read-after-write, write-after-read, write-after-write) has
//             finished. The matrix unit double-buffers its weights (WS) and
//             drains while the next tile streams.
//   kNone:    the classic analytic model of SCALE-Sim v2 (classic_model.h):
//             every fold of the stationary operand pays the full array's
//             fill and drain plus its streaming cycles, in sequence; vector
//             ops run after it, and DMA never stalls (costs zero cycles).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CYCLE_MODEL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CYCLE_MODEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/classic_model.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {

enum class Overlap : uint8_t { kDefault = 0, kNone = 1 };
const char* OverlapName(Overlap o);  // "default" / "none"
absl::StatusOr<Overlap> ParseOverlap(std::string_view s);

// Timing of one MATMUL_TILE in isolation, in cycles:
//   fill   cycles before the first operand enters PE(0,0)
//   stream cycles during which PE(0,0) receives operands
//   drain  cycles after that until the last result is in the accumulator
struct MatmulTiming {
  uint64_t fill = 0, stream = 0, drain = 0;
  uint64_t total() const { return fill + stream + drain; }
  bool operator==(const MatmulTiming&) const = default;
};

// WS: fill = K (weights shift in row by row), stream = M,
//     drain = N + R - 1 (skew across N columns, psums cross all R rows).
// OS: fill = 0, stream = K, drain = M + N + R - 1 (skew to PE(M-1,N-1),
//     then the R-deep drain chain).
// IS: fill = K (input rows shift in, A^T held K x M), stream = N (one
//     weight column per cycle), drain = M + R - 1.
MatmulTiming MatmulFormula(Dataflow df, uint64_t M, uint64_t K, uint64_t N, uint64_t R, uint64_t C);

// DMA: dram_latency_cycles + ceil(bytes / bytes_per_cycle).
uint64_t DmaCycles(uint64_t dram_bytes, const SystolicNpuConfig& npu);

// DMA to or from the on-chip arena (RegionKind::kOnChip): an SRAM-to-SRAM
// move, kSramDmaLatencyCycles + ceil(bytes / SramDmaBytesPerCycle), where
// the arena's port moves one 32-bit word per array row per cycle (4 * R
// bytes: a WS stream consumes one row of A per cycle, so an im2col tile
// read from the arena keeps the array fed, even from an F32 tensor).
inline constexpr uint64_t kSramDmaLatencyCycles = 8;
inline uint64_t SramDmaBytesPerCycle(const SystolicNpuConfig& npu) { return 4 * static_cast<uint64_t>(npu.array_rows); }
uint64_t SramDmaCycles(uint64_t bytes, const SystolicNpuConfig& npu);

inline constexpr uint64_t kVectorPipelineDepth = 4;
// VECTOR: depth + passes * ceil(elements / vector_width), where elements
// are the result elements and passes is the pool window size, 2 for
// SIGMOID (two table lookups), 1 else.
uint64_t VectorCycles(const Program& p, const Instruction& in, const SystolicNpuConfig& npu);

// Bytes an instruction moves (for the metrics).
struct Traffic {
  uint64_t sram_read = 0, sram_write = 0, dram_read = 0, dram_write = 0;
  uint64_t macs = 0;
};
// `on_chip`: the DMA's region is the on-chip arena, so its far side is
// SRAM traffic, not DRAM.
Traffic InstructionTraffic(const Program& p, const Instruction& in, bool on_chip = false);

// Memory footprint for hazard detection: spaces 0-2 are the SRAM banks,
// 3 + r is DRAM region r. Ranges are bounding boxes [lo, hi). Fixed size:
// no instruction reads more than 3 ranges or writes more than 1.
struct Range {
  uint32_t space = 0;
  uint64_t lo = 0, hi = 0;
};
struct Footprint {
  Range reads[3];
  Range write;
  uint8_t read_count = 0;
  bool has_write = false;
  uint64_t read_spaces = 0, write_spaces = 0;  // bit (space % 64)
  void AddRead(const Range& r);
  void SetWrite(const Range& r);
};
Footprint InstructionFootprint(const Program& p, const Instruction& in);

struct RunMetrics {
  uint64_t cycles_total = 0;
  uint64_t cycles_compute = 0;
  uint64_t cycles_dma_stall = 0;
  uint64_t macs = 0;
  double utilization = 0;  // macs / (cycles_compute * array PEs)
  uint64_t sram_read_bytes = 0, sram_write_bytes = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  // What a run cannot avoid (CompulsoryDramBytes): weights, inputs,
  // outputs once each; 0 when the scheduler was not given the entry.
  uint64_t dram_bytes_compulsory = 0;
  double time_us = 0;
  bool operator==(const RunMetrics&) const = default;
  // (name, value, unit) triples in the documented order. Names and units
  // are static strings, so a run's metrics allocate nothing.
  struct Named_ {
    const char* name;
    double value;
    const char* unit;
  };
  static constexpr size_t kNamedCount = 11;
  std::array<Named_, kNamedCount> Named() const;
};

// Composes instruction timings into a run under one convention.
class Scheduler {
 public:
  // `busy_storage`, when given, holds the compute intervals (cleared here,
  // its capacity kept): a caller that runs repeatedly passes the same one,
  // so that a run allocates nothing.
  // `entry` (optional): the entry point the instructions come from, to
  // cost DMA to its on-chip arena and report its compulsory DRAM bytes.
  Scheduler(const SystolicNpuConfig& npu, Overlap overlap,
            std::vector<std::pair<uint64_t, uint64_t>>* busy_storage = nullptr, const EntryPoint* entry = nullptr);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // `mt` is used for MATMUL_TILE only (from the formula or a simulation).
  void Issue(const Program& p, const Instruction& in, const MatmulTiming& mt);
  RunMetrics Finish();

 private:
  enum Engine { kDmaIn = 0, kDmaOut = 1, kMxu = 2, kVpu = 3, kEngines = 4 };
  struct Record {
    Footprint fp;
    int engine = 0;
    uint64_t read_end = 0, done = 0;
  };
  uint64_t Dependencies(const Footprint& fp, int engine) const;
  void Retire(Record r);

  SystolicNpuConfig npu_;
  Overlap overlap_;
  uint64_t engine_free_[kEngines] = {};
  uint64_t mxu_prev_stream_start_ = 0, mxu_prev_stream_end_ = 0;
  uint64_t mxu_prev_preload_end_ = 0;
  uint64_t barrier_ = 0;  // SYNC and retired records
  uint64_t end_ = 0;      // latest completion
  uint64_t serial_ = 0;   // kNone: running total
  ClassicFolds folds_;    // kNone: which tiles continue a fold
  // The scoreboard: the last kWindow instructions, a ring (a deque
  // allocated a block every few instructions, ~150 times per run).
  static constexpr size_t kWindow = 128;
  std::array<Record, kWindow> window_;
  size_t window_head_ = 0, window_size_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> own_busy_;
  std::vector<std::pair<uint64_t, uint64_t>>* busy_;  // compute intervals
  Traffic traffic_;
  const EntryPoint* entry_;
  uint64_t compulsory_ = 0;
  bool compulsory_known_ = false;
};

// The whole-run estimate from formulas alone (no data): what the compiler
// reports as estimated_cycles.
RunMetrics EstimateEntry(const Program& p, const EntryPoint& e, const SystolicNpuConfig& npu, Overlap overlap);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CYCLE_MODEL_H_
