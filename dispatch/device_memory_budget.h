// Budgets::max_device_memory_bytes: what a compiled model asks of one
// device, checked by the host while the model loads, before the device
// holds it.
//
// A device (one dispatch session, one vendor) holds, for a model:
//   - each executable loaded on it: its bytecode entry (code and weights;
//     the bundled NPU keeps them in its modelled DRAM), checked before
//     load_executable is called for it;
//   - the buffers it allocates for one run context (DEVICE_DRAM and other
//     storages whose allocating session it is), checked once the buffers
//     are planned, before any run context allocates them.
// Not counted: the device's working memory (the NPU's SRAM model), which a
// library keeps once per device context, shared by all its executables
// (plugins/systolic_npu/dispatch/sram_pool.h); and the size of a JIT
// handle's body, which the host cannot see (such an executable counts 0
// bytes).
#ifndef TESSERA_DISPATCH_DEVICE_MEMORY_BUDGET_H_
#define TESSERA_DISPATCH_DEVICE_MEMORY_BUDGET_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "framework/core/base/budgets.h"

namespace tessera {

class DeviceMemoryUse {
 public:
  DeviceMemoryUse(std::string vendor, const Budgets& budgets) : vendor_(std::move(vendor)), budgets_(&budgets) {}

  // Each adds to the device's total and fails (RESOURCE_EXHAUSTED, naming
  // the device, what it holds and the budget) once the total is above
  // budgets.max_device_memory_bytes. The total is then unchanged.
  absl::Status AddExecutable(uint64_t bytecode_bytes);
  absl::Status AddBuffer(uint64_t bytes);

  uint64_t total_bytes() const { return total_; }

 private:
  absl::Status Add(uint64_t bytes, size_t* count);

  std::string vendor_;
  const Budgets* budgets_;
  uint64_t total_ = 0;
  size_t executables_ = 0, buffers_ = 0;
};

// The size of entry `entry_point` of an envelope the host already verified,
// or 0 when the envelope or entry cannot be read (load_executable then
// reports why).
uint64_t BytecodeEntryBytes(const void* blob, size_t size, const char* entry_point);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_DEVICE_MEMORY_BUDGET_H_
