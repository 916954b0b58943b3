// The classic analytic model of the matrix unit (overlap=none), as
// SCALE-Sim v2 computes it (Samajdar et al., ISPASS 2020;
// scalesim/compute/systolic_compute_{ws,os,is}.py): the GEMM A (M x K) x
// B (K x N) is cut into folds of the stationary operand against the R x C
// array, and every fold, partial or not, is charged the full array's fill
// and drain plus its streaming cycles, with nothing overlapped:
//
//   WS  stationary B   (K x N on R x C)  fold = 2R + C - 2 + M
//   OS  stationary out (M x N on R x C)  fold =  R + C - 2 + K
//   IS  stationary A^T (K x M on R x C)  fold = 2R + C - 2 + N
//
// (SCALE-Sim's demand matrices per fold: WS R rows of weight load, M input
// rows, C - 1 rows of drain, skewed over R rows; OS K operand rows, C - 1
// drain rows, skewed over R rows; IS as WS with N weight columns.)
//
// The tiler cuts the streamed dimension of one fold into several
// MATMUL_TILEs when SRAM demands it (WS: M tiles; OS: K tiles; IS: the N
// column tiles). ClassicFolds recognises them from the instruction stream:
// a tile continues a fold when its stationary operand is the same SRAM
// bytes as an earlier tile's, in the same dataflow and shape, and nothing
// has written those bytes since (OS: it accumulates into the same
// accumulator tile). Such a tile pays only its streaming cycles.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CLASSIC_MODEL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CLASSIC_MODEL_H_

#include <cstdint>
#include <map>
#include <utility>

#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {

// The per-fold cycles of the classic model that do not depend on the
// streamed dimension (fill, drain and skew of the full R x C array).
uint64_t ClassicFoldOverhead(Dataflow df, uint64_t R, uint64_t C);

class ClassicFolds {
 public:
  // `in` is a verified MATMUL_TILE. True when it continues a fold recorded
  // earlier; either way it becomes the live fold of its stationary bytes
  // and its accumulator write ends every other fold stored there.
  bool Continues(const Instruction& in);
  // SRAM space `space` (bank 0..2; DRAM spaces hold no folds), bytes
  // [lo, hi) were written: the folds stored there end.
  void Overwritten(uint32_t space, uint64_t lo, uint64_t hi);

 private:
  struct Fold {
    uint64_t hi = 0;
    uint8_t dataflow = 0;
    uint32_t rows = 0, cols = 0;  // shape of the stationary operand
  };
  // Keyed by (space, lo); the folds of one space never overlap.
  std::map<std::pair<uint32_t, uint64_t>, Fold> folds_;
};

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_CLASSIC_MODEL_H_
