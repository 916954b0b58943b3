// The host side of a conversion that changes layout: every element of a
// tensor read where one layout puts it and written where another does,
// through memory the host can address (map_buffer). DENSE, STRIDED and
// STRIDED_ND, any strides: padded rows <-> dense, NCHW <-> NHWC, and any
// mix. VENDOR layouts are the library's own (its convert_buffer).
#ifndef TESSERA_DISPATCH_LAYOUT_CONVERSION_H_
#define TESSERA_DISPATCH_LAYOUT_CONVERSION_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "dispatch/buffer_layout.h"

namespace tessera {

// Copies the `shape` tensor of `element_size`-byte elements from `src`
// (laid out as `from`) to `dst` (as `to`). Only element bytes are written:
// the padding of `dst` keeps what it held. Refuses a VENDOR layout, or a
// buffer smaller than its layout's extent, before touching anything.
absl::Status Relayout(std::span<const uint8_t> src, const BufferLayout& from, std::span<uint8_t> dst,
                      const BufferLayout& to, std::span<const int64_t> shape, size_t element_size);

// What a conversion between two buffers does: "copy" (other memory, same
// layout), "layout" (same memory kind, other layout) or "copy+layout".
std::string ConversionKind(bool same_memory, bool same_layout);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_LAYOUT_CONVERSION_H_
