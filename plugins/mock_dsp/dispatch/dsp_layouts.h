// The mock DSP's memory layouts, as its dispatch library declares and
// converts them. Like a Hexagon HVX TCM, the DSP's own memory (dsp_tcm)
// keeps every row of a f32/f16 tensor of rank >= 2 in whole 128-byte
// lines (kernels/dsp_tensor.h, TcmRowStride); shared DMABUF memory, which
// other libraries read too, stays dense. The layout of a buffer is its
// type's, so an attached buffer says how to read it.
#ifndef TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_LAYOUTS_H_
#define TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_LAYOUTS_H_

#include <cstddef>
#include <cstdint>

#include "plugins/kit/graph_snapshot.h"
#include "tessera/dispatch.h"

namespace tessera::mock_dsp {

inline constexpr uint32_t kDspAlignment = 128;  // one TCM line: every padded row starts on one

// Row stride of tensor `t` in a buffer of `buffer_type` (0 = dense).
int64_t BufferRowStride(int32_t buffer_type, const kit::SnapshotTensor& t);
// Minimum bytes of a `buffer_type` buffer holding `t`.
uint64_t BufferBytes(int32_t buffer_type, const kit::SnapshotTensor& t);

// The buffer types of one input or output, most preferred first: DMABUF
// (dense) where the SoC wires the DSP to it, so other libraries can share
// the buffer; then the TCM in its padded layout.
size_t LayoutCount(bool accepts_dmabuf);
int32_t LayoutBufferType(bool accepts_dmabuf, size_t alternative);
// Alternative `alternative` of `t` (the caller checked the index). Padded
// rows are STRIDED_ND (tsr_buffer_layout has no row-stride member), the
// same bytes as STRIDED with that row stride; dense is DENSE.
void FillLayout(const kit::SnapshotTensor& t, bool accepts_dmabuf, size_t alternative, tsr_buffer_layout* out);

// convert_buffer between two buffers of this library: a DMA where the
// layouts are the same, else a row relayout (dense <-> padded, or one
// padding to another). The layouts carry no shape; rows come from them:
// the element size and row stride from STRIDED_ND strides, the row count
// from the padded side's size_bytes (whole padded rows), the row length
// from the dense side's size_bytes. Inconsistent layouts, a VENDOR or
// STRIDED layout, or a buffer smaller than its layout are refused.
tsr_status ConvertRows(tsr_buffer src, const tsr_buffer_layout* src_layout, tsr_buffer dst,
                       const tsr_buffer_layout* dst_layout);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_LAYOUTS_H_
