#include "plugins/mock_dsp/dispatch/dsp_layouts.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/dsp_contract.h"
#include "plugins/kit/host_buffers.h"
#include "plugins/mock_dsp/kernels/dsp_tensor.h"
#include "plugins/kit/plugin_status.h"

namespace tessera::mock_dsp {
namespace {

// One side of a conversion, as its layout describes it.
struct Rows {
  bool padded = false;
  int64_t element = 0;  // padded: bytes per element
  int64_t stride = 0;   // padded: bytes from row to row
  uint64_t size = 0;    // the layout's bytes
};

tsr_status ReadRows(const tsr_buffer_layout* l, const char* which, Rows* out) {
  if (l == nullptr || !TSR_ABI_HAS_FIELD(l, tsr_buffer_layout, vendor_layout_id))
    return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("convert_buffer: ", which, " layout NULL or too small"));
  out->size = l->size_bytes;
  if (l->layout == TSR_LAYOUT_DENSE) return TSR_OK;
  if (l->layout != TSR_LAYOUT_STRIDED_ND || l->rank < 2 || l->rank > TSR_MAX_RANK)
    return kit::ReportError(TSR_UNIMPLEMENTED,
                            absl::StrCat("convert_buffer: the DSP converts dense and padded-row (STRIDED_ND, rank >= 2) "
                                         "layouts only; the ", which, " layout is ", l->layout, " of rank ", l->rank));
  out->padded = true;
  out->element = l->strides_bytes[l->rank - 1];
  out->stride = l->strides_bytes[l->rank - 2];
  if (out->element <= 0 || out->stride < out->element || out->size % static_cast<uint64_t>(out->stride) != 0)
    return kit::ReportError(TSR_INVALID_ARGUMENT,
                            absl::StrCat("convert_buffer: the ", which, " layout's rows are inconsistent (element ",
                                         out->element, " B, row stride ", out->stride, " B, ", out->size, " bytes)"));
  return TSR_OK;
}

}  // namespace

int64_t BufferRowStride(int32_t buffer_type, const kit::SnapshotTensor& t) {
  return buffer_type == kDspTcmBufferType ? TcmRowStride(t.dtype, t.shape) : 0;
}

uint64_t BufferBytes(int32_t buffer_type, const kit::SnapshotTensor& t) {
  return LaidOutBytes(t.dtype, t.shape, BufferRowStride(buffer_type, t));
}

size_t LayoutCount(bool accepts_dmabuf) { return accepts_dmabuf ? 2 : 1; }

int32_t LayoutBufferType(bool accepts_dmabuf, size_t alternative) {
  return accepts_dmabuf && alternative == 0 ? TSR_BUFFER_TYPE_DMABUF : kDspTcmBufferType;
}

void FillLayout(const kit::SnapshotTensor& t, bool accepts_dmabuf, size_t alternative, tsr_buffer_layout* out) {
  const int32_t type = LayoutBufferType(accepts_dmabuf, alternative);
  const int64_t row_stride = BufferRowStride(type, t);
  out->buffer_type = type;
  out->alignment = kDspAlignment;
  out->size_bytes = BufferBytes(type, t);
  out->vendor_layout_id = 0;
  std::fill(out->strides_bytes, out->strides_bytes + TSR_MAX_RANK, 0);
  if (row_stride == 0) {
    out->layout = TSR_LAYOUT_DENSE;
    out->rank = 0;
    return;
  }
  // Padded rows as byte strides: elements, then rows, then whole row blocks.
  const size_t rank = t.shape.size();
  out->layout = TSR_LAYOUT_STRIDED_ND;
  out->rank = static_cast<uint32_t>(rank);
  out->strides_bytes[rank - 1] = t.dtype == TSR_DTYPE_F16 ? 2 : 4;
  out->strides_bytes[rank - 2] = row_stride;
  for (size_t i = rank - 2; i-- > 0;) out->strides_bytes[i] = out->strides_bytes[i + 1] * std::max<int64_t>(t.shape[i + 1], 1);
}

tsr_status ConvertRows(tsr_buffer src, const tsr_buffer_layout* src_layout, tsr_buffer dst,
                       const tsr_buffer_layout* dst_layout) {
  if (src == nullptr || dst == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "convert_buffer: NULL buffer");
  Rows a, b;
  if (tsr_status s = ReadRows(src_layout, "source", &a); s != TSR_OK) return s;
  if (tsr_status s = ReadRows(dst_layout, "destination", &b); s != TSR_OK) return s;
  if (a.size > src->size || b.size > dst->size)
    return kit::ReportError(TSR_INVALID_ARGUMENT,
                            absl::StrCat("convert_buffer: layouts of ", a.size, " and ", b.size, " bytes for buffers of ",
                                         src->size, " and ", dst->size));
  const auto* from = static_cast<const uint8_t*>(src->host);
  auto* to = static_cast<uint8_t*>(dst->host);
  if (!a.padded && !b.padded) {  // a DMA of the dense bytes
    if (a.size != b.size)
      return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("convert_buffer: dense layouts of ", a.size, " and ",
                                                                 b.size, " bytes hold different tensors"));
    if (a.size > 0) std::memcpy(to, from, a.size);
    return TSR_OK;
  }
  // Rows: counted on a padded side (whole padded rows), their length from
  // the dense side, or the shorter stride between two paddings (the bytes
  // past a row are padding either way).
  const Rows& p = a.padded ? a : b;
  const uint64_t count = p.size / static_cast<uint64_t>(p.stride);
  uint64_t row = 0;
  if (a.padded && b.padded) {
    if (a.element != b.element || b.size / static_cast<uint64_t>(b.stride) != count)
      return kit::ReportError(TSR_INVALID_ARGUMENT, "convert_buffer: padded layouts of different tensors");
    row = static_cast<uint64_t>(std::min(a.stride, b.stride));
  } else {
    const Rows& d = a.padded ? b : a;
    row = count == 0 ? 0 : d.size / count;
    if (count * row != d.size || row > static_cast<uint64_t>(p.stride) || row % static_cast<uint64_t>(p.element) != 0)
      return kit::ReportError(TSR_INVALID_ARGUMENT,
                              absl::StrCat("convert_buffer: a dense layout of ", d.size, " bytes is not ", count,
                                           " rows of at most ", p.stride, " bytes"));
  }
  const uint64_t from_stride = a.padded ? static_cast<uint64_t>(a.stride) : row;
  const uint64_t to_stride = b.padded ? static_cast<uint64_t>(b.stride) : row;
  for (uint64_t r = 0; r < count; ++r) std::memcpy(to + r * to_stride, from + r * from_stride, row);
  return TSR_OK;
}

}  // namespace tessera::mock_dsp
