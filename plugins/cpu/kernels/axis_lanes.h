// The lanes of a tensor along one axis: x viewed as [outer, len, inner],
// so element j of lane (o, i) is at (o * len + j) * inner + i. ARG_MAX,
// ARG_MIN, TOP_K and CUM_SUM read and write whole lanes.
#ifndef TESSERA_PLUGINS_CPU_KERNELS_AXIS_LANES_H_
#define TESSERA_PLUGINS_CPU_KERNELS_AXIS_LANES_H_

#include <cstdint>
#include <span>

namespace tessera::cpu {

struct AxisLanes {
  int64_t outer = 1, len = 1, inner = 1;
  // `axis` already normalized to [0, rank).
  AxisLanes(std::span<const int64_t> shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (d < axis) outer *= shape[d];
      else if (d == axis) len = shape[d];
      else inner *= shape[d];
    }
  }
  int64_t lanes() const { return outer * inner; }
  // Flat index of element j of lane `lane` in a tensor whose axis has
  // length `axis_len` (the input's, or an output's cut to k or 1).
  int64_t At(int64_t lane, int64_t j, int64_t axis_len) const {
    return ((lane / inner) * axis_len + j) * inner + lane % inner;
  }
};

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_KERNELS_AXIS_LANES_H_
