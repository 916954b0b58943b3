#include "testing/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<int> allocations{0};
std::atomic<size_t> allocated_bytes{0};
}  // namespace

namespace tessera {

AllocationCounter::AllocationCounter() {
  allocations = 0;
  allocated_bytes = 0;
  counting = true;
}
AllocationCounter::~AllocationCounter() { counting = false; }
int AllocationCounter::count() const { return allocations.load(); }
size_t AllocationCounter::bytes() const { return allocated_bytes.load(); }

}  // namespace tessera

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// GCC sees free() of an operator new pointer once these are inlined; they
// are a matched pair (malloc/free underneath).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  if (counting.load()) {
    allocations.fetch_add(1);
    allocated_bytes.fetch_add(n);
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#endif
