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
  uint8_t* data = nullptr;  // dense, row-major; owned elsewhere
  int64_t elements() const;
};

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);  // round to nearest even; overflow to inf

// Reads every element of a f32/f16 tensor as f32.
std::vector<float> LoadFloats(const DspTensor& t);
// Writes `values` (t.elements() of them) as t's dtype (f32 or f16).
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
