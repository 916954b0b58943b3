#include "buffer_negotiation.h"

#include <algorithm>
#include <string>

#include "tessera/common.h"

namespace tessera {
namespace {

BufferTypeList OrHost(const BufferTypeList& l) { return l.empty() ? BufferTypeList{TSR_BUFFER_TYPE_HOST} : l; }

bool Accepts(const BufferEndpoint& e, int32_t type, int32_t owner) {
  return std::any_of(e.types.begin(), e.types.end(), [&](int32_t t) { return SameBufferType(t, e.owner, type, owner); });
}

}  // namespace

bool SameBufferType(int32_t a, int32_t owner_a, int32_t b, int32_t owner_b) {
  return a == b && (tsr_buffer_type_is_shared(a) || owner_a == owner_b);
}

BufferDecision NegotiateBufferTypes(const BufferEndpoint& producer_in, const std::vector<BufferEndpoint>& consumers_in) {
  const BufferEndpoint producer{OrHost(producer_in.types), producer_in.owner};
  std::vector<BufferEndpoint> consumers;
  for (const BufferEndpoint& c : consumers_in) consumers.push_back({OrHost(c.types), c.owner});
  BufferDecision d;
  d.primary_type = producer.types.front();
  for (int32_t candidate : producer.types) {
    bool everyone = std::all_of(consumers.begin(), consumers.end(),
                                [&](const BufferEndpoint& c) { return Accepts(c, candidate, producer.owner); });
    if (everyone) {
      d.primary_type = candidate;
      break;
    }
  }
  for (const BufferEndpoint& c : consumers) {
    const bool same = Accepts(c, d.primary_type, producer.owner);
    d.reads_primary.push_back(same);
    d.consumer_types.push_back(same ? d.primary_type : c.types.front());
  }
  return d;
}

BufferDecision NegotiateBufferTypes(const BufferTypeList& producer, const std::vector<BufferTypeList>& consumers) {
  std::vector<BufferEndpoint> c;
  for (const BufferTypeList& l : consumers) c.push_back({l, 0});
  return NegotiateBufferTypes(BufferEndpoint{producer, 0}, c);
}

std::string BufferTypeName(int32_t type) {
  switch (type) {
    case TSR_BUFFER_TYPE_HOST: return "host";
    case TSR_BUFFER_TYPE_DMABUF: return "dmabuf";
    case TSR_BUFFER_TYPE_DEVICE_DRAM: return "device_dram";
    default:
      return type >= TSR_BUFFER_TYPE_VENDOR_BASE ? "vendor+" + std::to_string(type - TSR_BUFFER_TYPE_VENDOR_BASE)
                                                 : "unknown(" + std::to_string(type) + ")";
  }
}

}  // namespace tessera
