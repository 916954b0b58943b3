// The lanes of a tensor along one axis: x viewed as [outer, len, inner],
// so element j of lane (o, i) is at (o * len + j) * inner + i. ARG_MAX,
// ARG_MIN, TOP_K and CUM_SUM read and write whole lanes.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_AXIS_LANES_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_AXIS_LANES_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_util.h"

namespace tessera::cpu {

struct AxisLanes {
  int64_t outer = 1, len = 1, inner = 1;
  // `axis` already normalized to [0, rank).
  AxisLanes(std::span<const int64_t> shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (d < axis)
        outer *= shape[d];
      else if (d == axis)
        len = shape[d];
      else
        inner *= shape[d];
    }
  }
  int64_t lanes() const { return outer * inner; }
  // Flat index of element j of lane `lane` in a tensor whose axis has
  // length `axis_len` (the input's, or an output's cut to k or 1).
  int64_t At(int64_t lane, int64_t j, int64_t axis_len) const {
    return ((lane / inner) * axis_len + j) * inner + lane % inner;
  }
};

// The Check* part these ops share: one present input, `n_out` outputs.
inline absl::Status CheckLaneOpArity(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                                     size_t n_out) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, n_out);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  return s;
}

// The Run* part: data present, input rank >= 1, and TSR_ATTR_AXIS
// (default 0) normalized against it.
inline absl::StatusOr<int64_t> LaneAxis(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                                        std::span<const TensorRef> outputs) {
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(inputs[0].shape.size());
  if (rank == 0) return OpError(op, "input must have rank >= 1");
  return NormalizeAxis(op, attrs.GetInt(TSR_ATTR_AXIS, 0), rank);
}

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_AXIS_LANES_H_
