// Counts operator new calls in a scope, and the bytes they asked for, for
// the "a run allocates nothing" and "a load allocates this much" tests of
// the fast kernels. The replacement operator new lives in
// allocation_counter_test_util.cc: link that file into the test binary.
// Under ASan or TSan the sanitizer brings its own operator new, the count
// stays 0, and kCountsAllocations says so (the tests skip).
#ifndef TESSERA_PLUGINS_CPU_FAST_ALLOCATION_COUNTER_TEST_UTIL_H_
#define TESSERA_PLUGINS_CPU_FAST_ALLOCATION_COUNTER_TEST_UTIL_H_

#include <cstddef>

namespace tessera::cpu::fast {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kCountsAllocations = false;
#else
inline constexpr bool kCountsAllocations = true;
#endif

// Counts every operator new from construction to count(), on any thread.
// One at a time.
class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  int count() const;
  // Bytes asked for by those calls (freed ones included).
  size_t bytes() const;
};

}  // namespace tessera::cpu::fast

#endif  // TESSERA_PLUGINS_CPU_FAST_ALLOCATION_COUNTER_TEST_UTIL_H_
