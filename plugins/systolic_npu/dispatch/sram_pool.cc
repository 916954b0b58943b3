#include "plugins/systolic_npu/dispatch/sram_pool.h"

namespace tessera::systolic {

SramPool::Lease::~Lease() {
  if (pool_ != nullptr && memory_ != nullptr) pool_->GiveBack(std::move(memory_));
}

SramPool::Lease SramPool::Borrow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<ExecMemory> memory = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(memory));
    }
  }
  // The banks themselves are sized by the first run (core/executor.cc),
  // outside the lock.
  auto memory = std::make_unique<ExecMemory>();
  std::lock_guard<std::mutex> lock(mu_);
  ++made_;
  idle_.reserve(made_);  // so that GiveBack, called from a destructor, never allocates
  return Lease(this, std::move(memory));
}

void SramPool::Warm(const SystolicNpuConfig& npu) {
  auto memory = std::make_unique<ExecMemory>();
  bool fresh[3];
  SizeBanks(*memory, npu, fresh);
  std::lock_guard<std::mutex> lock(mu_);
  ++made_;
  idle_.reserve(made_);
  idle_.push_back(std::move(memory));
}

size_t SramPool::memories_made() const {
  std::lock_guard<std::mutex> lock(mu_);
  return made_;
}

void SramPool::GiveBack(std::unique_ptr<ExecMemory> memory) {
  // The run's precomputed first-touch list belongs to its executable, which
  // may be unloaded while this memory waits here.
  memory->first_touch = nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(memory));
}

}  // namespace tessera::systolic
