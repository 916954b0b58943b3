// The device's shared SRAM pool: one memory serves every run that does not
// overlap another, and a memory given back carries no executable's
// first-touch list.
#include "plugins/systolic_npu/dispatch/sram_pool.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

TEST(SramPool, RunsOneAfterAnotherShareOneMemory) {
  SramPool pool;
  ExecMemory* first = nullptr;
  for (int run = 0; run < 1000; ++run) {
    SramPool::Lease lease = pool.Borrow();
    if (first == nullptr) first = &lease.memory();
    EXPECT_EQ(&lease.memory(), first) << "run " << run;
  }
  EXPECT_EQ(pool.memories_made(), 1u);
}

TEST(SramPool, OverlappingRunsGetDistinctMemories) {
  SramPool pool;
  SramPool::Lease a = pool.Borrow();
  SramPool::Lease b = pool.Borrow();
  EXPECT_NE(&a.memory(), &b.memory());
  EXPECT_EQ(pool.memories_made(), 2u);
}

TEST(SramPool, AGivenBackMemoryForgetsItsFirstTouchList) {
  SramPool pool;
  const std::vector<Range> ranges(3);
  {
    SramPool::Lease lease = pool.Borrow();
    lease.memory().first_touch = &ranges;
  }
  SramPool::Lease again = pool.Borrow();
  EXPECT_EQ(again.memory().first_touch, nullptr);
}

TEST(SramPool, MemoriesAreBoundedByConcurrencyNotByRuns) {
  constexpr int kThreads = 4, kRuns = 200;
  SramPool pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRuns; ++r) {
        SramPool::Lease lease = pool.Borrow();
        lease.memory().dirty[0] = static_cast<uint64_t>(r);  // a run writes its memory (TSan sees a race if shared)
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(pool.memories_made(), static_cast<size_t>(kThreads));
  EXPECT_GE(pool.memories_made(), 1u);
}

}  // namespace
}  // namespace tessera::systolic
