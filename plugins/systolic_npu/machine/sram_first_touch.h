// Which SRAM bytes an entry point reads before it writes them.
//
// A run must never see its predecessor's data. Zeroing all of SRAM (2 MiB
// on ref-phone) before every run would cost a small layer more than its
// GEMM, and is not needed: only bytes that some instruction reads
// before any earlier instruction of the same run wrote them can carry old
// data into a result: those are the ranges returned here, and the only
// ones the executor re-zeroes. Code from the tiling compiler loads every
// tile before using it, so for it the list is empty.
//
// Exact, not heuristic: SRAM footprints (cycle_model.h) are dense
// [lo, hi) byte ranges for reads and writes alike (every SRAM tile is a
// contiguous rows x cols block), and the executor runs instructions in
// program order, so "written by an earlier instruction" is decided by the
// same walk.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SRAM_FIRST_TOUCH_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SRAM_FIRST_TOUCH_H_

#include <vector>

#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/program.h"

namespace tessera::systolic {

// Ranges (space = bank 0..2) read before written, in no particular order,
// possibly overlapping.
std::vector<Range> SramReadsBeforeWrites(const Program& p, const EntryPoint& entry);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SRAM_FIRST_TOUCH_H_
