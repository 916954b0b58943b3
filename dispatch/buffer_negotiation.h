// Buffer types as negotiation compares and names them: the namespace rule
// (which types of which owners are the same memory) and display names.
// The negotiation itself, of types and layouts together, is
// layout_negotiation.h.
#ifndef TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_
#define TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_

#include <cstdint>
#include <string>

namespace tessera {

// True when `a` of `owner_a` and `b` of `owner_b` are the same memory kind.
bool SameBufferType(int32_t a, int32_t owner_a, int32_t b, int32_t owner_b);

std::string BufferTypeName(int32_t type);  // "host", "dmabuf", ..., "vendor+N"

}  // namespace tessera

#endif  // TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_
