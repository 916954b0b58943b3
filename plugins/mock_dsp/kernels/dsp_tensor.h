// The DSP kernels' view of a tensor and the conversions at the edge of the
// vector unit: f16 is widened to f32 on load and rounded (nearest even)
// on store, so every kernel computes in f32.
#ifndef TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_TENSOR_H_
#define TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_TENSOR_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::mock_dsp {

struct DspTensor {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  uint8_t* data = nullptr;  // row-major; owned elsewhere
  // Bytes from one row (last dim) to the next; 0 = dense. The TCM keeps
  // float rows padded to whole lines (TcmRowStride), and the loads and
  // stores below read and write them in place.
  int64_t row_stride_bytes = 0;
  int64_t elements() const;
  bool dense() const;  // no padding between rows
  // An optional input the op was given (a missing one has no data).
  bool present() const { return data != nullptr && dtype != 0; }
};

// Bytes per element of a dtype the DSP stores.
size_t DtypeWidth(int32_t dtype);

// The TCM's line: 128 bytes, the width of one HVX vector load on a
// Hexagon. (The throughput model's vector_lanes is a separate knob.)
inline constexpr int64_t kTcmLineBytes = 128;
// How the TCM lays out a tensor: f32/f16 tensors of rank >= 2 keep each row
// in whole lines, so every row starts on a line boundary and a line never
// holds two rows (a vector load of a row never needs a shuffle). The row stride in
// bytes, or 0 where that is the dense layout (other dtypes, rank < 2, rows
// already a multiple of 128 bytes).
int64_t TcmRowStride(int32_t dtype, std::span<const int64_t> shape);
// The bytes of a tensor laid out with `row_stride_bytes` (0 = dense):
// whole rows, the last one padded too.
uint64_t LaidOutBytes(int32_t dtype, std::span<const int64_t> shape, int64_t row_stride_bytes);
// Copies between a dense image of t and t's own layout (staging for the
// kernels that move raw bytes, and the DSP's convert_buffer).
void PackRows(const uint8_t* dense, const DspTensor& t);
void UnpackRows(const DspTensor& t, uint8_t* dense);

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);  // round to nearest even; overflow to inf

// Reads every element of a f32/f16 tensor as f32, in its layout.
std::vector<float> LoadFloats(const DspTensor& t);
// Writes `values` (t.elements() of them) as t's dtype (f32 or f16), in
// t's layout (padding bytes untouched).
void StoreFloats(std::span<const float> values, const DspTensor& t);
// Reads an i32/i64 tensor (indices, axes, slice bounds).
std::vector<int64_t> LoadInts(const DspTensor& t);

// Row-major strides in elements.
std::vector<int64_t> Strides(std::span<const int64_t> shape);

// numpy broadcasting: the output shape of `shapes`, or InvalidArgument.
absl::StatusOr<std::vector<int64_t>> BroadcastShape(std::span<const std::vector<int64_t>> shapes);
// For each output element (row-major over `out`), the element of an input
// of shape `in` (right-aligned, size-1 dims repeat) it reads.
std::vector<int64_t> BroadcastIndex(std::span<const int64_t> in, std::span<const int64_t> out);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_TENSOR_H_
