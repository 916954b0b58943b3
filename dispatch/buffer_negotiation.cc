#include "buffer_negotiation.h"

#include <algorithm>
#include <string>

#include "tessera/common.h"

namespace tessera {
namespace {

BufferTypeList OrHost(const BufferTypeList& l) { return l.empty() ? BufferTypeList{TSR_BUFFER_TYPE_HOST} : l; }

bool Accepts(const BufferTypeList& l, int32_t type) { return std::find(l.begin(), l.end(), type) != l.end(); }

}  // namespace

BufferDecision NegotiateBufferTypes(const BufferTypeList& producer_in, const std::vector<BufferTypeList>& consumers_in) {
  const BufferTypeList producer = OrHost(producer_in);
  std::vector<BufferTypeList> consumers;
  for (const BufferTypeList& c : consumers_in) consumers.push_back(OrHost(c));
  BufferDecision d;
  d.primary_type = producer.front();
  for (int32_t candidate : producer) {
    bool everyone = std::all_of(consumers.begin(), consumers.end(),
                                [&](const BufferTypeList& c) { return Accepts(c, candidate); });
    if (everyone) {
      d.primary_type = candidate;
      break;
    }
  }
  for (const BufferTypeList& c : consumers) d.consumer_types.push_back(Accepts(c, d.primary_type) ? d.primary_type : c.front());
  return d;
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
