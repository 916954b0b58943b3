// Is a pointer a plugin hands the host code it can call, or data it can read?
//
// A function table of garbage (pointers into data, the heap, or nowhere)
// passes every NULL and size check, and the host's first call through it
// crashes. So does an entry symbol that is a data object rather than a
// function. Both are checked against the process's loaded objects before
// the host calls anything: a callable address lies inside an executable
// (PF_X) PT_LOAD segment of some loaded library (not necessarily the
// plugin's own: a plugin may hand out functions of a library it loads).
// This rejects garbage; it cannot prove that code at a real code address
// is the function the table claims (nothing in-process can).
#ifndef TESSERA_FRAMEWORK_LOADER_CODE_ADDRESS_H_
#define TESSERA_FRAMEWORK_LOADER_CODE_ADDRESS_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace tessera {

// True when `address` lies inside an executable segment of a loaded object.
bool IsCodeAddress(const void* address);

// The same for the data a plugin hands the host (its function table, its
// info struct and the strings and arrays it points to): true when
// [address, address + bytes) lies inside one readable segment of a loaded
// object, where static tables live. A small integer such as 0x10, an
// unmapped or a heap address is not; reading it could crash the host.
bool IsLoadedData(const void* address, size_t bytes);

// True when `s` is a NUL-terminated string of at most `max_length` bytes
// lying wholly inside one readable segment of a loaded object (nothing past
// the segment's end is read).
bool IsLoadedString(const char* s, size_t max_length);

// OK when the symbol `name` that dlsym resolved to `address` is a function
// (STT_FUNC or STT_GNU_IFUNC) in executable memory; FAILED_PRECONDITION
// saying what it is otherwise.
absl::Status CheckEntrySymbolIsCode(const void* address, const std::string& name);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_CODE_ADDRESS_H_
