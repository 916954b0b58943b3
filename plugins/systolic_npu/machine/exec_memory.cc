// SizeBanks, apart from the executor: the device context's SRAM pool
// calls it at creation, and linking it must not pull in the executor's
// multiversioned kernels (their ifunc resolvers run before a sanitizer
// runtime has started, which crashes ThreadSanitizer builds of tests that
// link the pool alone).
#include <cstdint>
#include <vector>

#include "plugins/systolic_npu/machine/executor.h"

namespace tessera::systolic {

void SizeBanks(ExecMemory& memory, const SystolicNpuConfig& npu, bool fresh[3]) {
  const int64_t sizes[3] = {npu.input_bank_bytes(), npu.weight_bank_bytes(), npu.accum_bank_bytes()};
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t>& bank = memory.banks[i];
    fresh[i] = bank.size() != static_cast<size_t>(sizes[i]);
    if (fresh[i]) {
      bank.assign(static_cast<size_t>(sizes[i]), 0);  // reuses the capacity of earlier runs
      memory.dirty[i] = 0;
    }
  }
}

}  // namespace tessera::systolic
