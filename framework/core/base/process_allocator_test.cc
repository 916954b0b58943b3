// KeepFreedMemoryForReuse, by its effect: a large block freed and allocated
// again faults its pages in once, not twice. Process-wide, so this test
// binary holds nothing else.
#include "framework/core/base/process_allocator.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace tessera {
namespace {

long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Faults taken to allocate, touch and free `bytes`.
long FaultsOfABlock(size_t bytes) {
  const long before = MinorFaults();
  auto* p = static_cast<volatile char*>(std::malloc(bytes));
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  std::free(const_cast<char*>(p));
  return MinorFaults() - before;
}

TEST(ProcessAllocator, AFreedLargeBlockIsReusedWithoutFaultingAgain) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
#else
  constexpr size_t kBytes = 256u << 20;  // above glibc's largest dynamic mmap threshold (32 MiB)
  constexpr long kPages = kBytes / 4096;
  // glibc's defaults: a fresh mapping each time, every page faulted again.
  const long fresh = FaultsOfABlock(kBytes);
  if (fresh < kPages / 2) GTEST_SKIP() << "transparent huge pages fault 2 MiB at a time here (" << fresh << " faults)";
  EXPECT_GT(FaultsOfABlock(kBytes), kPages / 2);
  ASSERT_TRUE(KeepFreedMemoryForReuse());
  FaultsOfABlock(kBytes);  // the heap grows once
  EXPECT_LT(FaultsOfABlock(kBytes), kPages / 16);
#endif
}

}  // namespace
}  // namespace tessera
