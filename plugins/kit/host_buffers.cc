#include "plugins/kit/host_buffers.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>

#include "support/math/checked_math.h"
#include "plugins/kit/plugin_status.h"

tsr_buffer_s::~tsr_buffer_s() {
  if (owned) std::free(host);
}

namespace tessera::kit {
namespace {

bool Accepts(std::initializer_list<int32_t> accepted, int32_t type) {
  return std::find(accepted.begin(), accepted.end(), type) != accepted.end();
}

tsr_status CheckDesc(const tsr_buffer_desc* desc, std::initializer_list<int32_t> accepted, tsr_buffer* out) {
  if (out == nullptr || !TSR_ABI_HAS_FIELD(desc, tsr_buffer_desc, offset))
    return ReportError(TSR_INVALID_ARGUMENT, "buffer: NULL argument or descriptor too old");
  if (!Accepts(accepted, desc->buffer_type))
    return ReportError(TSR_UNIMPLEMENTED, "buffer type " + std::to_string(desc->buffer_type) + " is not one this library accepts");
  return TSR_OK;
}

}  // namespace

tsr_status AllocateHostBuffer(const tsr_buffer_desc* desc, std::initializer_list<int32_t> accepted,
                              uint32_t min_alignment, tsr_buffer* out) {
  if (tsr_status s = CheckDesc(desc, accepted, out); s != TSR_OK) return s;
  const uint64_t align = std::max<uint64_t>(desc->alignment, min_alignment);
  if (align == 0 || (align & (align - 1)) != 0) return ReportError(TSR_INVALID_ARGUMENT, "alignment must be a power of two");
  // A size near 2^64 wrapped the rounding to a tiny allocation that then
  // claimed the full size: checked, and bounded like any tensor.
  const std::optional<uint64_t> aligned = checked::AlignUp(desc->size_bytes, align);
  if (!aligned || *aligned > static_cast<uint64_t>(checked::kMaxTensorBytes))
    return ReportError(TSR_RESOURCE_EXHAUSTED, "allocate_buffer: size " + std::to_string(desc->size_bytes) +
                                                   " exceeds the largest tensor (2^48 bytes)");
  const uint64_t rounded = std::max<uint64_t>(*aligned, align);
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) return ReportError(TSR_RESOURCE_EXHAUSTED, "out of memory allocating a buffer");
  std::memset(p, 0, rounded);
  auto* b = new (std::nothrow) tsr_buffer_s();
  if (b == nullptr) {
    std::free(p);
    return ReportError(TSR_RESOURCE_EXHAUSTED, "out of memory allocating a buffer");
  }
  b->type = desc->buffer_type;
  b->host = p;
  b->size = desc->size_bytes;
  b->owned = true;
  *out = b;
  return TSR_OK;
}

tsr_status RegisterHostBuffer(const tsr_buffer_desc* desc, std::initializer_list<int32_t> accepted, tsr_buffer* out) {
  if (tsr_status s = CheckDesc(desc, accepted, out); s != TSR_OK) return s;
  if (desc->host_address == nullptr && desc->size_bytes > 0)
    return ReportError(TSR_INVALID_ARGUMENT, "register_buffer: host_address is NULL (this library imports by address)");
  auto* b = new (std::nothrow) tsr_buffer_s();
  if (b == nullptr) return ReportError(TSR_RESOURCE_EXHAUSTED, "out of memory registering a buffer");
  b->type = desc->buffer_type;
  b->host = desc->host_address;
  b->size = desc->size_bytes;
  *out = b;
  return TSR_OK;
}

void ReleaseHostBuffer(tsr_buffer b) { delete b; }

tsr_status MapHostBuffer(tsr_buffer b, void** out) {
  if (b == nullptr || out == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "map_buffer: NULL argument");
  *out = b->host;
  return TSR_OK;
}

tsr_status UnmapHostBuffer(tsr_buffer b) {
  return b == nullptr ? ReportError(TSR_INVALID_ARGUMENT, "unmap_buffer: NULL buffer") : TSR_OK;
}

}  // namespace tessera::kit
