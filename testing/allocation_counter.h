// Counts operator new calls in a scope, and the bytes they asked for, for
// the "a run allocates nothing" and "a load allocates this much" tests: the
// cpu plugin's fast kernels and the runtime's RunInto. The replacement
// operator new lives in allocation_counter.cc: link the
// tessera_allocation_counter target into the test binary. An executable's
// operator new also serves the dlopen()ed plugins (they resolve it from the
// process), so a test counts their allocations too.
// Under ASan or TSan the sanitizer brings its own operator new, the count
// stays 0, and kCountsAllocations says so (the tests skip).
#ifndef TESSERA_TESTING_ALLOCATION_COUNTER_H_
#define TESSERA_TESTING_ALLOCATION_COUNTER_H_

#include <cstddef>

namespace tessera {

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

// Operator new calls in `runs` calls of `run` (a callable returning true
// on success), for the "a steady-state run allocates nothing" tests; the
// counting stops at the first failure, whose own allocations then show.
template <typename Run>
int AllocationsInRuns(int runs, Run&& run) {
  AllocationCounter counter;
  for (int i = 0; i < runs; ++i)
    if (!run()) break;
  return counter.count();
}

}  // namespace tessera

#endif  // TESSERA_TESTING_ALLOCATION_COUNTER_H_
