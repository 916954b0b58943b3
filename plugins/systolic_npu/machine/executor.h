// Runs a verified entry point on the modelled NPU. The functional result
// and the metrics come from the same instruction walk; only the matrix unit
// differs between the two modes:
//   kFast:         blocked host GEMM, tile timing from MatmulFormula.
//   kCycleStepped: register-level simulation of the R x C PE grid (data
//                  skewed in, partial sums hopping PE to PE each cycle);
//                  tile timing measured from the simulation. For small
//                  arrays and tiles.
// Both produce bit-identical outputs and identical metrics.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_EXECUTOR_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/soc_config.h"
#include "plugins/systolic_npu/machine/sram_first_touch.h"

namespace tessera::systolic {

enum class ExecMode : uint8_t { kFast = 0, kCycleStepped = 1 };
const char* ExecModeName(ExecMode m);  // "fast" / "cycle_stepped"
absl::StatusOr<ExecMode> ParseExecMode(std::string_view s);

struct ExecOptions {
  ExecMode mode = ExecMode::kFast;
  Overlap overlap = Overlap::kDefault;
};

// One MATMUL_TILE's operands, pointing into SRAM (any alignment).
//   input  M x K row-major (I8 or F16)
//   weight K x N row-major (I8 or F16)
//   acc    M x N row-major (I32 for I8, F32 for F16)
// Result: per K-tile partial sum s[m][n] = (((0 + p_0) + p_1) + ... )
// summed in k order (fp32 for F16: each product is exact in fp32), then
// acc = accumulate ? acc + s : s.
struct MatmulArgs {
  Dataflow dataflow = Dataflow::kWeightStationary;
  int32_t dtype = 0;
  bool accumulate = false;
  const uint8_t* input = nullptr;
  const uint8_t* weight = nullptr;
  uint8_t* acc = nullptr;
  uint32_t M = 0, K = 0, N = 0;
  uint32_t R = 0, C = 0;  // array size
};

class MatmulEngine {
 public:
  virtual ~MatmulEngine() = default;
  // Computes the tile and returns its isolated timing.
  virtual MatmulTiming Run(const MatmulArgs& args) = 0;
};
std::unique_ptr<MatmulEngine> MakeFastMatmulEngine();
std::unique_ptr<MatmulEngine> MakeCycleSteppedMatmulEngine();

// Executes entry `entry` of a program that passed VerifyProgram(p, npu).
// inputs[i] / outputs[i] back the entry's INPUT / OUTPUT regions with
// io_index i and must be at least the region's size. Scratch regions are
// allocated here.
// The machine's memories between runs: SRAM banks and the scratch
// region. Reusing them keeps repeated runs (one per invoke) from
// re-allocating and page-faulting megabytes of SRAM each time. A run never
// sees its predecessor's data: the scratch region is reset to zero, and
// every SRAM byte the run reads before writing it is too (`dirty`).
// Not thread-safe: one per concurrent caller.
struct ExecMemory {
  std::vector<uint8_t> banks[3];
  // Bytes at the start of each bank that any run since the allocation may
  // have written (a high-water mark; beyond it a bank is zero). Before a
  // run only the bytes it reads before writing them are re-zeroed
  // (sram_first_touch.h), not the whole 2 MiB of a ref-phone's SRAM,
  // which cost a small layer's run more than its GEMM.
  uint64_t dirty[3] = {0, 0, 0};
  std::vector<std::vector<uint8_t>> scratch;
  // SramReadsBeforeWrites of the entry the next run executes, when the
  // caller computed it once: it is a pure function of (program, entry) and
  // was a run's largest source of heap allocations. Null: the run computes
  // it. One memory may serve many programs (a device's shared SRAM), so the
  // list is the caller's, set per run, not cached here by address.
  const std::vector<Range>* first_touch = nullptr;
  // What a run needs besides the banks, kept between runs so that a
  // steady-state run allocates nothing: the region table, the im2col
  // staging copy, the scheduler's compute intervals, and the functional
  // matmul engine with its decode buffers (made by the first run).
  std::vector<uint8_t*> regions;
  std::vector<uint8_t> im2col_staging;
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  std::unique_ptr<MatmulEngine> fast_mxu;
};

// Sizes `memory`'s three banks for `npu`, zero-filled (which touches every
// page), unless a bank has that size already; fresh[i] says which were.
// A run does this itself; a device context does it at creation so that no
// run, the first included, pays the page faults (sram_pool.h).
void SizeBanks(ExecMemory& memory, const SystolicNpuConfig& npu, bool fresh[3]);

// `memory` may be null (the run allocates its own).
absl::StatusOr<RunMetrics> Execute(const Program& p, const EntryPoint& entry, const SystolicNpuConfig& npu,
                                   std::span<const std::span<const uint8_t>> inputs,
                                   std::span<const std::span<uint8_t>> outputs, const ExecOptions& options,
                                   ExecMemory* memory = nullptr);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_EXECUTOR_H_
