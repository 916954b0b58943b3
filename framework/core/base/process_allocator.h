// The `tessera` binary's allocator policy: freed memory is kept for reuse.
//
// glibc's malloc maps each block above a threshold (128 KiB, rising to at
// most 32 MiB as blocks are freed) with its own mmap, unmaps it on free, and
// returns the heap's top to the kernel beyond 128 KiB. A command that
// allocates and frees large arrays then faults every page of each new array
// in again: the partition step at a million ops took 70,000-120,000 page
// faults, a third of its time, and `tessera import` of 1 GB of weights
// twice its time (docs/benchmarks.md, "The `tessera` binary's allocator").
// With both thresholds raised, freed blocks are reused, as jemalloc and
// tcmalloc do by default; peak RSS is unchanged, and the memory goes back
// at exit.
//
// Process-wide, so only a program's main() calls it, never the library: an
// app that embeds Tessera keeps its own allocator policy.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_PROCESS_ALLOCATOR_H_
#define TESSERA_FRAMEWORK_CORE_BASE_PROCESS_ALLOCATOR_H_

namespace tessera {

// False when the C library refused the settings (not glibc, or a sanitizer's
// allocator): nothing changed, and nothing else depends on it.
bool KeepFreedMemoryForReuse();

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_PROCESS_ALLOCATOR_H_
