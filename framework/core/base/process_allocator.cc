#include "framework/core/base/process_allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tessera {

bool KeepFreedMemoryForReuse() {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // Blocks up to 1 GiB come from the heap (a larger one is rare and big
  // enough to pay for its own mapping); the heap's top is never trimmed.
  const int mmap_ok = mallopt(M_MMAP_THRESHOLD, 1 << 30);
  const int trim_ok = mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
  return mmap_ok == 1 && trim_ok == 1;
#else
  return false;
#endif
}

}  // namespace tessera
