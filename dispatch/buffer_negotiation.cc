#include "dispatch/buffer_negotiation.h"

#include <string>

#include "tessera/common.h"

namespace tessera {

bool SameBufferType(int32_t a, int32_t owner_a, int32_t b, int32_t owner_b) {
  return a == b && (tsr_buffer_type_is_shared(a) || owner_a == owner_b);
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
