// ARG_MAX / ARG_MIN along TSR_ATTR_AXIS (default 0): the i64 index of the
// largest / smallest element of each lane (ONNX ArgMax/ArgMin, numpy's
// argmax/argmin):
//  * ties: the first index, or the last with TSR_ATTR_SELECT_LAST_INDEX = 1;
//  * NaN counts as the extreme for both: the first NaN of a lane wins (the
//    last one with SELECT_LAST_INDEX), as numpy.argmax/argmin return it;
//  * TSR_ATTR_KEEP_DIMS (default 1) keeps the axis as length 1;
//  * an empty axis is an error (there is no index to return).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/axis_lanes.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

// True when `v` replaces the current best `best` (found at a lower index).
template <typename T>
bool Beats(T v, T best, bool is_max, bool last) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(best)) return last && std::isnan(v);
    if (std::isnan(v)) return true;
  }
  if (v == best) return last;
  return is_max ? v > best : v < best;
}

template <typename T, typename Load>
void ArgLanes(const AxisLanes& lanes, bool is_max, bool last, Load load, const TensorRef& y) {
  for (int64_t lane = 0; lane < lanes.lanes(); ++lane) {
    int64_t best_j = 0;
    T best = load(lanes.At(lane, 0, lanes.len));
    for (int64_t j = 1; j < lanes.len; ++j) {
      const T v = load(lanes.At(lane, j, lanes.len));
      if (Beats(v, best, is_max, last)) {
        best = v;
        best_j = j;
      }
    }
    StoreInt(y, lane, best_j);  // y's flat order is the lane order
  }
}

}  // namespace

absl::Status CheckArgReduce(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckLaneOpArity(op, inputs, outputs, 1);
  if (!s.ok()) return s;
  if (!IsNumericDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype);
  if (outputs[0].dtype != TSR_DTYPE_I64)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be i64"));
  return absl::OkStatus();
}

absl::Status RunArgReduce(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                          std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  auto axis = LaneAxis(op, attrs, inputs, outputs);
  if (!axis.ok()) return axis.status();
  absl::Status s;
  Shape out = x.shape;
  if (attrs.GetInt(TSR_ATTR_KEEP_DIMS, 1) != 0)
    out[*axis] = 1;
  else
    out.erase(out.begin() + *axis);
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const AxisLanes lanes(x.shape, *axis);
  if (lanes.len == 0 && lanes.lanes() > 0)
    return OpError(op, absl::StrCat("axis ", *axis, " has length 0: no index to return"));
  const bool is_max = op == TSR_OP_ARG_MAX;
  const bool last = attrs.GetInt(TSR_ATTR_SELECT_LAST_INDEX, 0) != 0;
  if (IsFloatDType(x.dtype))
    ArgLanes<float>(
        lanes, is_max, last, [&](int64_t i) { return LoadFloat(x, i); }, y);
  else
    ArgLanes<int64_t>(
        lanes, is_max, last, [&](int64_t i) { return LoadInt(x, i); }, y);
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
