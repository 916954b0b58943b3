#include "dispatch/layout_conversion.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {

absl::Status Relayout(std::span<const uint8_t> src, const BufferLayout& from, std::span<uint8_t> dst,
                      const BufferLayout& to, std::span<const int64_t> shape, size_t element_size) {
  if (!HostReadable(from) || !HostReadable(to))
    return absl::FailedPreconditionError("a VENDOR layout is read by its own library only (convert_buffer)");
  const uint64_t need_src = LayoutExtent(BufferLayout{.layout = from.layout, .row_stride_bytes = from.row_stride_bytes,
                                                      .strides_bytes = from.strides_bytes},
                                         shape, element_size);
  const uint64_t need_dst = LayoutExtent(BufferLayout{.layout = to.layout, .row_stride_bytes = to.row_stride_bytes,
                                                      .strides_bytes = to.strides_bytes},
                                         shape, element_size);
  if (src.size() < need_src || dst.size() < need_dst)
    return absl::InvalidArgumentError(absl::StrCat("relayout: buffers of ", src.size(), " and ", dst.size(),
                                                   " bytes, the layouts need ", need_src, " and ", need_dst));
  uint64_t elements = 1;
  for (int64_t d : shape) elements *= static_cast<uint64_t>(d);
  if (elements == 0) return absl::OkStatus();
  if (SameLayout(from, to)) {  // one arrangement: the bytes as they are (allocates nothing)
    std::memcpy(dst.data(), src.data(), need_src);
    return absl::OkStatus();
  }
  const std::vector<int64_t> a = ByteStrides(from, shape, element_size);
  const std::vector<int64_t> b = ByteStrides(to, shape, element_size);
  const size_t rank = shape.size();
  if (rank == 0) {
    std::memcpy(dst.data(), src.data(), element_size);
    return absl::OkStatus();
  }
  // The innermost dim moves as one run where both sides keep it contiguous
  // (padded rows <-> dense), element by element otherwise (NCHW <-> NHWC).
  const int64_t e = static_cast<int64_t>(element_size);
  const bool runs = a[rank - 1] == e && b[rank - 1] == e;
  const int64_t inner = shape[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t sa = 0, sb = 0;  // byte offsets of `index`
  const size_t outer_dims = rank - 1;
  for (;;) {
    if (runs) {
      std::memcpy(dst.data() + sb, src.data() + sa, static_cast<size_t>(inner * e));
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(dst.data() + sb + i * b[rank - 1], src.data() + sa + i * a[rank - 1], element_size);
    }
    // Odometer over the outer dims.
    size_t d = outer_dims;
    while (d-- > 0) {
      sa += a[d];
      sb += b[d];
      if (++index[d] < shape[d]) break;
      sa -= a[d] * shape[d];
      sb -= b[d] * shape[d];
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
  return absl::OkStatus();
}

std::string ConversionKind(bool same_memory, bool same_layout) {
  if (same_layout) return "copy";
  return same_memory ? "layout" : "copy+layout";
}

}  // namespace tessera
