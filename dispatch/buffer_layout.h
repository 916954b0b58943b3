// One memory layout a tensor's buffer may have (dispatch.h's
// tsr_buffer_layout, owned), and what the runtime must know of it: whether
// two endpoints read the same bytes the same way, where each element sits,
// how many bytes that takes, and a name for reports.
//
// Layouts are compared in canonical form (CanonicalLayout): a STRIDED
// layout whose row stride is the dense row, or STRIDED_ND strides that are
// the dense ones, put every byte where DENSE does, so they are DENSE. Two
// libraries that spell one layout differently still share a buffer.
#ifndef TESSERA_DISPATCH_BUFFER_LAYOUT_H_
#define TESSERA_DISPATCH_BUFFER_LAYOUT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/dispatch.h"

namespace tessera {

class DeviceSession;

struct BufferLayout {
  int32_t type = TSR_BUFFER_TYPE_HOST;   // tsr_buffer_type (namespace rule: common.h)
  int32_t layout = TSR_LAYOUT_DENSE;     // tsr_layout
  uint64_t row_stride_bytes = 0;         // STRIDED
  std::vector<int64_t> strides_bytes;    // STRIDED_ND, outermost first, one per dim
  uint64_t vendor_layout_id = 0;         // VENDOR: equal ids are compatible within one library
  uint32_t alignment = 0;                // bytes, power of two (0 = no requirement)
  uint64_t size_bytes = 0;               // the endpoint's minimum buffer size
};

// What the app gives and gets: dense host bytes.
BufferLayout DenseHostLayout();

// `l` checked against a tensor of `shape` with `element_size`-byte
// elements, in canonical form. Refuses, with what is wrong: an unknown
// layout, a row stride below the dense row, STRIDED_ND of another rank or
// with a negative stride, an alignment that is not a power of two.
absl::StatusOr<BufferLayout> CanonicalLayout(BufferLayout l, std::span<const int64_t> shape, size_t element_size);

// Same arrangement of bytes (the buffer type is not compared). VENDOR ids
// compare equal only within one library: the caller checks the owner.
bool SameLayout(const BufferLayout& a, const BufferLayout& b);

// The host can read and write every layout but VENDOR.
inline bool HostReadable(const BufferLayout& l) { return l.layout != TSR_LAYOUT_VENDOR; }

// Where element [i0, i1, ...] sits: sum of index * stride, outermost first.
// Host-readable layouts only (canonical).
std::vector<int64_t> ByteStrides(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size);

// The bytes a buffer of layout `l` needs: past its farthest element, and at
// least the endpoint's size_bytes (a VENDOR layout: size_bytes, or dense).
uint64_t LayoutExtent(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size);

// "dense", "strided(row 128 B)", "nhwc" (4-D strides that are NCHW's
// channels last), "strides(48,4,16)" (bytes), "vendor(7)".
std::string LayoutName(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size);

// The ABI struct, for convert_buffer. tsr_buffer_layout has no row stride,
// so padded rows go as their STRIDED_ND strides; size_bytes is at least
// the layout's extent (the library counts rows from it).
tsr_buffer_layout ToAbiLayout(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size,
                              tsr_version version);

// Every layout alternative of one input or output of `executable`, most
// preferred first, checked and canonical: the library's
// buffer_layout_count/get_buffer_layout where it has them, else one per
// buffer type of `req` in req's layout. `what` names the endpoint in errors.
absl::StatusOr<std::vector<BufferLayout>> QueryLayouts(const DeviceSession& s, tsr_executable executable,
                                                       int32_t io_kind, size_t index,
                                                       const tsr_buffer_requirements& req,
                                                       std::span<const int64_t> shape, size_t element_size,
                                                       const std::string& what);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_BUFFER_LAYOUT_H_
