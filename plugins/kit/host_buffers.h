// Buffers for dispatch libraries whose memory the CPU can address (every
// bundled, simulated device): a ready-made struct tsr_buffer_s and the five
// buffer functions of the dispatch table, checking the types the library
// accepts.
#ifndef TESSERA_PLUGINS_KIT_HOST_BUFFERS_H_
#define TESSERA_PLUGINS_KIT_HOST_BUFFERS_H_

#include <cstdint>
#include <initializer_list>

#include "tessera/dispatch.h"

struct tsr_buffer_s {
  int32_t type = TSR_BUFFER_TYPE_HOST;
  void* host = nullptr;
  uint64_t size = 0;
  bool owned = false;  // allocated here (freed on release) or registered
  ~tsr_buffer_s();
};

namespace tessera::kit {

// `accepted` lists the buffer types this library allocates and registers.
tsr_status AllocateHostBuffer(const tsr_buffer_desc* desc, std::initializer_list<int32_t> accepted,
                              uint32_t min_alignment, tsr_buffer* out);
tsr_status RegisterHostBuffer(const tsr_buffer_desc* desc, std::initializer_list<int32_t> accepted,
                              tsr_buffer* out);
void ReleaseHostBuffer(tsr_buffer buffer);
tsr_status MapHostBuffer(tsr_buffer buffer, void** out_host_address);
tsr_status UnmapHostBuffer(tsr_buffer buffer);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_HOST_BUFFERS_H_
