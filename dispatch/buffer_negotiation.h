// Zero-copy belongs to a path, not a component: a tensor can stay in one
// buffer only where the buffer types its producer and all its consumers
// accept intersect. Where they don't, the runtime keeps an extra copy of
// the consumer's preferred type and converts, and says so.
#ifndef TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_
#define TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// Buffer types one endpoint (a step's input/output, or the app) accepts,
// most preferred first.
using BufferTypeList = std::vector<int32_t>;

struct BufferDecision {
  int32_t primary_type = 0;           // where the producer writes
  // One entry per consumer: the type it reads. Equal to primary_type when
  // zero-copy; otherwise the consumer's first choice and a conversion.
  std::vector<int32_t> consumer_types;
  bool zero_copy() const {
    for (int32_t t : consumer_types) if (t != primary_type) return false;
    return true;
  }
};

// The first type of the producer's list that every consumer accepts; if
// none, the producer's first type, and each consumer that doesn't accept it
// reads its own first type through a conversion. Empty lists are treated
// as {HOST}.
BufferDecision NegotiateBufferTypes(const BufferTypeList& producer, const std::vector<BufferTypeList>& consumers);

std::string BufferTypeName(int32_t type);  // "host", "dmabuf", ..., "vendor+N"

}  // namespace tessera

#endif  // TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_
