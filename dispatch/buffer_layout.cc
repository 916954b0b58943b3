#include "dispatch/buffer_layout.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/status_macros.h"
#include "dispatch/device_session.h"
#include "framework/loader/plugin_library.h"

namespace tessera {
namespace {

std::vector<int64_t> DenseStrides(std::span<const int64_t> shape, size_t element_size) {
  std::vector<int64_t> s(shape.size(), static_cast<int64_t>(element_size));
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * std::max<int64_t>(shape[i], 1);
  return s;
}

uint64_t DenseBytes(std::span<const int64_t> shape, size_t element_size) {
  uint64_t n = element_size;
  for (int64_t d : shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
  return n;
}

}  // namespace

BufferLayout DenseHostLayout() { return BufferLayout{}; }

absl::StatusOr<BufferLayout> CanonicalLayout(BufferLayout l, std::span<const int64_t> shape, size_t element_size) {
  if ((l.alignment & (l.alignment - 1)) != 0)
    return absl::FailedPreconditionError(absl::StrCat("alignment ", l.alignment, " is not a power of two (or 0)"));
  const uint64_t dense_row = shape.empty() ? element_size : static_cast<uint64_t>(std::max<int64_t>(shape.back(), 0)) * element_size;
  switch (l.layout) {
    case TSR_LAYOUT_DENSE:
      break;
    case TSR_LAYOUT_STRIDED:
      if (l.row_stride_bytes < dense_row)
        return absl::FailedPreconditionError(absl::StrCat("row stride ", l.row_stride_bytes,
                                                          " bytes is below the dense row of ", dense_row, " bytes"));
      // A rank-0/1 tensor has one row: its stride moves nothing.
      if (shape.size() < 2 || l.row_stride_bytes == dense_row) l.layout = TSR_LAYOUT_DENSE;
      break;
    case TSR_LAYOUT_STRIDED_ND:
      if (l.strides_bytes.size() != shape.size())
        return absl::FailedPreconditionError(absl::StrCat("STRIDED_ND of rank ", l.strides_bytes.size(),
                                                          " for a tensor of rank ", shape.size()));
      for (int64_t s : l.strides_bytes)
        if (s < 0) return absl::FailedPreconditionError(absl::StrCat("negative stride ", s));
      if (l.strides_bytes == DenseStrides(shape, element_size)) {
        l.layout = TSR_LAYOUT_DENSE;
      } else if (shape.size() >= 2) {
        // Padded rows spelled as strides (tsr_buffer_layout has no row
        // stride member): the same bytes as STRIDED, so the same layout.
        BufferLayout rows = l;
        rows.layout = TSR_LAYOUT_STRIDED;
        rows.row_stride_bytes = static_cast<uint64_t>(l.strides_bytes[shape.size() - 2]);
        if (rows.row_stride_bytes >= dense_row && ByteStrides(rows, shape, element_size) == l.strides_bytes) l = rows;
      }
      break;
    case TSR_LAYOUT_VENDOR:
      break;
    default:
      return absl::FailedPreconditionError(absl::StrCat("unknown layout ", l.layout));
  }
  if (l.layout != TSR_LAYOUT_STRIDED) l.row_stride_bytes = 0;
  if (l.layout != TSR_LAYOUT_STRIDED_ND) l.strides_bytes.clear();
  if (l.layout != TSR_LAYOUT_VENDOR) l.vendor_layout_id = 0;
  return l;
}

bool SameLayout(const BufferLayout& a, const BufferLayout& b) {
  if (a.layout != b.layout) return false;
  switch (a.layout) {
    case TSR_LAYOUT_STRIDED: return a.row_stride_bytes == b.row_stride_bytes;
    case TSR_LAYOUT_STRIDED_ND: return a.strides_bytes == b.strides_bytes;
    case TSR_LAYOUT_VENDOR: return a.vendor_layout_id == b.vendor_layout_id;
    default: return true;
  }
}

std::vector<int64_t> ByteStrides(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size) {
  std::vector<int64_t> s = DenseStrides(shape, element_size);
  if (l.layout == TSR_LAYOUT_STRIDED_ND) return l.strides_bytes;
  if (l.layout == TSR_LAYOUT_STRIDED && shape.size() >= 2) {
    // Rows (the last dim) start every row_stride_bytes; outer dims step whole rows.
    s[shape.size() - 2] = static_cast<int64_t>(l.row_stride_bytes);
    for (size_t i = shape.size() - 2; i-- > 0;) s[i] = s[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  }
  return s;
}

uint64_t LayoutExtent(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size) {
  uint64_t extent = DenseBytes(shape, element_size);
  // DENSE allocates nothing here: RunInto's steady state stays allocation-free.
  if (l.layout != TSR_LAYOUT_DENSE && HostReadable(l) && extent > 0) {
    const std::vector<int64_t> s = ByteStrides(l, shape, element_size);
    uint64_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) last += static_cast<uint64_t>(shape[i] - 1) * static_cast<uint64_t>(s[i]);
    extent = last + element_size;
  }
  return std::max(extent, l.size_bytes);
}

std::string LayoutName(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size) {
  switch (l.layout) {
    case TSR_LAYOUT_DENSE: return "dense";
    case TSR_LAYOUT_STRIDED: return absl::StrCat("strided(row ", l.row_stride_bytes, " B)");
    case TSR_LAYOUT_VENDOR: return absl::StrCat("vendor(", l.vendor_layout_id, ")");
    default: break;
  }
  if (shape.size() == 4) {
    // NCHW with channels innermost: the dense strides of [N, H, W, C].
    const int64_t e = static_cast<int64_t>(element_size), C = shape[1], H = shape[2], W = shape[3];
    if (l.strides_bytes == std::vector<int64_t>{H * W * C * e, e, W * C * e, C * e}) return "nhwc";
  }
  return absl::StrCat("strides(", absl::StrJoin(l.strides_bytes, ","), ")");
}

tsr_buffer_layout ToAbiLayout(const BufferLayout& l, std::span<const int64_t> shape, size_t element_size,
                              tsr_version version) {
  tsr_buffer_layout out{};
  out.header = HostFilledHeader(sizeof(out), version);
  out.buffer_type = l.type;
  out.layout = l.layout;
  out.alignment = l.alignment;
  out.size_bytes = LayoutExtent(l, shape, element_size);
  out.vendor_layout_id = l.vendor_layout_id;
  if ((l.layout == TSR_LAYOUT_STRIDED || l.layout == TSR_LAYOUT_STRIDED_ND) && shape.size() <= TSR_MAX_RANK) {
    const std::vector<int64_t> strides = ByteStrides(l, shape, element_size);
    out.layout = TSR_LAYOUT_STRIDED_ND;
    out.rank = static_cast<uint32_t>(strides.size());
    std::copy(strides.begin(), strides.end(), out.strides_bytes);
  }
  return out;
}

absl::StatusOr<std::vector<BufferLayout>> QueryLayouts(const DeviceSession& s, tsr_executable executable,
                                                       int32_t io_kind, size_t index,
                                                       const tsr_buffer_requirements& req,
                                                       std::span<const int64_t> shape, size_t element_size,
                                                       const std::string& what) {
  std::vector<BufferLayout> raw;
  const tsr_dispatch_api* api = s.api();
  if (TSR_ABI_HAS(api, tsr_dispatch_api, get_buffer_layout) && api->buffer_layout_count != nullptr) {
    size_t count = 0;
    RETURN_IF_ERROR(s.Check(api->buffer_layout_count(executable, io_kind, index, &count), "buffer_layout_count"));
    if (count == 0 || count > 64)
      return absl::FailedPreconditionError(absl::StrCat(what, " list ", count, " layout alternatives (1..64)"));
    for (size_t a = 0; a < count; ++a) {
      tsr_buffer_layout l{};
      l.header = HostFilledHeader(sizeof(l), s.library().version);
      RETURN_IF_ERROR(s.Check(api->get_buffer_layout(executable, io_kind, index, a, &l), "get_buffer_layout"));
      if (l.layout == TSR_LAYOUT_STRIDED_ND && l.rank > TSR_MAX_RANK)
        return absl::FailedPreconditionError(absl::StrCat(what, " alternative ", a, ": rank ", l.rank, " above ", TSR_MAX_RANK));
      BufferLayout b{l.buffer_type, l.layout, 0, {}, l.vendor_layout_id, l.alignment, l.size_bytes};
      if (l.layout == TSR_LAYOUT_STRIDED_ND) b.strides_bytes.assign(l.strides_bytes, l.strides_bytes + l.rank);
      if (l.layout == TSR_LAYOUT_STRIDED) {
        // tsr_buffer_layout has no row stride: a STRIDED alternative is
        // the requirements' own (alternative 0 equals them).
        b.row_stride_bytes = req.row_stride_bytes;
      }
      raw.push_back(std::move(b));
    }
  } else {
    // Before layouts were negotiable: every listed type in the one layout.
    for (uint32_t i = 0; i < req.buffer_type_count; ++i)
      raw.push_back({req.buffer_types[i], req.layout, req.row_stride_bytes, {}, 0, req.alignment, req.size_bytes});
  }
  std::vector<BufferLayout> out;
  for (size_t a = 0; a < raw.size(); ++a) {
    absl::StatusOr<BufferLayout> c = CanonicalLayout(raw[a], shape, element_size);
    if (!c.ok()) return absl::FailedPreconditionError(absl::StrCat(what, " alternative ", a, ": ", c.status().message()));
    out.push_back(*std::move(c));
  }
  return out;
}

}  // namespace tessera
