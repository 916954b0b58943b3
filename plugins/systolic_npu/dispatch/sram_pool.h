// One device's SRAM model, shared by every executable loaded on it.
//
// The modelled NPU has one set of SRAM banks per device, and the executor's
// ExecMemory (machine/executor.h) models them: the three banks (2 MiB on
// ref-phone) plus the scratch regions. One per invocation would make a
// model of 5,000 NPU partitions, one invocation each, hold 5,000 copies of
// the device's SRAM (over 8 GB). So a device context keeps one pool: an invoke
// borrows a memory for the run and gives it back, so the context holds as
// many memories as invokes ever ran on it at the same time (distinct
// invocations may invoke concurrently, tessera/dispatch.h), not one per
// partition or per invocation.
//
// Sharing does not leak data between runs: a run re-zeroes every SRAM byte
// it reads before writing it, and the scratch regions are zeroed, whatever
// ran on the memory before (sram_first_touch.h).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_DISPATCH_SRAM_POOL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_DISPATCH_SRAM_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "plugins/systolic_npu/machine/executor.h"

namespace tessera::systolic {

class SramPool {
 public:
  // A borrowed memory, given back to its pool when the lease ends.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : pool_(other.pool_), memory_(std::move(other.memory_)) { other.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    ExecMemory& memory() { return *memory_; }

   private:
    friend class SramPool;
    Lease(SramPool* pool, std::unique_ptr<ExecMemory> memory) : pool_(pool), memory_(std::move(memory)) {}
    SramPool* pool_;
    std::unique_ptr<ExecMemory> memory_;
  };

  // An idle memory, or a new one when every memory is in use. Thread-safe.
  // May throw std::bad_alloc (callers run inside kit::Guarded).
  Lease Borrow();

  // Makes one memory with its banks sized and zeroed for `npu`, idle, so
  // that the device's first run pays no page faults for them. May throw
  // std::bad_alloc.
  void Warm(const SystolicNpuConfig& npu);

  // Memories this pool ever made: the most invokes that ran at once (at
  // least one once warmed).
  size_t memories_made() const;

 private:
  void GiveBack(std::unique_ptr<ExecMemory> memory);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<ExecMemory>> idle_;
  size_t made_ = 0;
};

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_DISPATCH_SRAM_POOL_H_
