// TOP_K along TSR_ATTR_AXIS (default 0): the TSR_ATTR_K largest
// (TSR_ATTR_LARGEST = 1, the default) or smallest elements of each lane,
// output 0 the values (x's dtype), output 1 their i64 indices (ONNX TopK):
//  * order: by value, largest first (smallest first when LARGEST = 0);
//    TSR_ATTR_SORTED = 0 leaves the order unspecified in ONNX, and this
//    kernel returns the sorted order then too;
//  * ties: the lower index first (the ONNX rule);
//  * NaN ranks above every number (numpy's sort order): the largest k take
//    NaNs first, the smallest k last; NaNs tie among themselves;
//  * 0 <= k <= axis length; k = 0 gives empty outputs.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/axis_lanes.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

// Strict "a ranks before b" on values, NaN above every number.
template <typename T>
bool Before(T a, T b, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return largest ? (na && !nb) : (!na && nb);
  }
  return largest ? a > b : a < b;
}

template <typename T, typename Load>
void TopKLanes(const AxisLanes& lanes, int64_t k, bool largest, Load load, const TensorRef& values,
               const TensorRef& indices, const TensorRef& x) {
  const size_t esize = DTypeSize(x.dtype);
  std::vector<T> lane_values(static_cast<size_t>(lanes.len));
  std::vector<int64_t> order(static_cast<size_t>(lanes.len));
  for (int64_t lane = 0; lane < lanes.lanes(); ++lane) {
    for (int64_t j = 0; j < lanes.len; ++j) lane_values[j] = load(lanes.At(lane, j, lanes.len));
    std::iota(order.begin(), order.end(), int64_t{0});
    // Equal values keep index order: a total order, so partial_sort is exact.
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      if (Before(lane_values[a], lane_values[b], largest)) return true;
      if (Before(lane_values[b], lane_values[a], largest)) return false;
      return a < b;
    });
    for (int64_t j = 0; j < k; ++j) {
      const int64_t out = lanes.At(lane, j, k);
      CopyElement(values, out, x, lanes.At(lane, order[j], lanes.len), esize);
      StoreInt(indices, out, order[j]);
    }
  }
}

}  // namespace

absl::Status CheckTopK(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckLaneOpArity(op, inputs, outputs, 2);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (!IsNumericDType(d)) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("values dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  if (outputs[1].dtype != TSR_DTYPE_I64)
    return OpError(op, absl::StrCat("indices dtype ", DTypeName(outputs[1].dtype), " must be i64"));
  return absl::OkStatus();
}

absl::Status RunTopK(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                     std::span<TensorRef> outputs) {
  const TensorRef& x = inputs[0];
  auto axis = LaneAxis(op, attrs, inputs, outputs);
  if (!axis.ok()) return axis.status();
  absl::Status s;
  const int64_t k = attrs.GetInt(TSR_ATTR_K, -1);
  if (k < 0 || k > x.shape[*axis])
    return OpError(op, absl::StrCat("k = ", k, " must be in [0, ", x.shape[*axis], "] (the axis length)"));
  Shape out = x.shape;
  out[*axis] = k;
  if (!(s = CheckOutputShape(op, outputs[0], out, 0)).ok()) return s;
  if (!(s = CheckOutputShape(op, outputs[1], out, 1)).ok()) return s;
  const AxisLanes lanes(x.shape, *axis);
  const bool largest = attrs.GetInt(TSR_ATTR_LARGEST, 1) != 0;
  if (IsFloatDType(x.dtype))
    TopKLanes<float>(
        lanes, k, largest, [&](int64_t i) { return LoadFloat(x, i); }, outputs[0], outputs[1], x);
  else
    TopKLanes<int64_t>(
        lanes, k, largest, [&](int64_t i) { return LoadInt(x, i); }, outputs[0], outputs[1], x);
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
