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

// One endpoint's accepted types and who owns them. Only HOST and DMABUF
// mean the same memory everywhere; DEVICE_DRAM and vendor types belong to
// one dispatch library (common.h's namespace rule), so they match only
// between endpoints of the same `owner` (a device session; -1 = the app).
struct BufferEndpoint {
  BufferTypeList types;
  int32_t owner = -1;
};

struct BufferDecision {
  int32_t primary_type = 0;           // where the producer writes
  // One entry per consumer: the type it reads, and whether that is the
  // producer's buffer itself (zero-copy) or a converted copy. A consumer
  // may read a type of the same number as primary_type and still need a
  // copy: another library's DEVICE_DRAM is other memory.
  std::vector<int32_t> consumer_types;
  std::vector<bool> reads_primary;
  bool zero_copy() const {
    for (bool r : reads_primary) if (!r) return false;
    return true;
  }
};

// The first type of the producer's list that every consumer accepts (the
// same memory, by the namespace rule); if none, the producer's first type,
// and each consumer that doesn't accept it reads its own first type
// through a conversion. Empty lists are treated as {HOST}.
BufferDecision NegotiateBufferTypes(const BufferEndpoint& producer, const std::vector<BufferEndpoint>& consumers);
// Every endpoint in one library (tests, single-vendor paths).
BufferDecision NegotiateBufferTypes(const BufferTypeList& producer, const std::vector<BufferTypeList>& consumers);

// True when `a` of `owner_a` and `b` of `owner_b` are the same memory kind.
bool SameBufferType(int32_t a, int32_t owner_a, int32_t b, int32_t owner_b);

std::string BufferTypeName(int32_t type);  // "host", "dmabuf", ..., "vendor+N"

}  // namespace tessera

#endif  // TESSERA_DISPATCH_BUFFER_NEGOTIATION_H_
