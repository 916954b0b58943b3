// CUM_SUM along TSR_ATTR_AXIS (default 0), ONNX CumSum:
//   y[j] = sum of x[i] for i <= j        (default)
//          i < j                         (TSR_ATTR_EXCLUSIVE = 1)
//          i >= j, or i > j if exclusive (TSR_ATTR_REVERSE = 1)
// f32/f16 accumulate in f64 and round each output once; i32/i64 wrap
// modulo 2^bits (two's complement), like ADD.
#include "absl/strings/str_cat.h"
#include "support/reference_kernels/axis_lanes.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

template <typename Acc, typename Load, typename Store>
void CumSumLanes(const AxisLanes& lanes, bool exclusive, bool reverse, Load load, Store store) {
  for (int64_t lane = 0; lane < lanes.lanes(); ++lane) {
    Acc acc{};
    for (int64_t step = 0; step < lanes.len; ++step) {
      const int64_t j = reverse ? lanes.len - 1 - step : step;
      const int64_t i = lanes.At(lane, j, lanes.len);
      const Acc v = load(i);
      if (!exclusive) acc += v;
      store(i, acc);
      if (exclusive) acc += v;
    }
  }
}

}  // namespace

absl::Status CheckCumSum(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckLaneOpArity(op, inputs, outputs, 1);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (!IsFloatDType(d) && d != TSR_DTYPE_I32 && d != TSR_DTYPE_I64) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  return absl::OkStatus();
}

absl::Status RunCumSum(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  auto axis = LaneAxis(op, attrs, inputs, outputs);
  if (!axis.ok()) return axis.status();
  absl::Status s;
  if (!(s = CheckOutputShape(op, y, x.shape)).ok()) return s;
  const AxisLanes lanes(x.shape, *axis);
  const bool exclusive = attrs.GetInt(TSR_ATTR_EXCLUSIVE, 0) != 0;
  const bool reverse = attrs.GetInt(TSR_ATTR_REVERSE, 0) != 0;
  if (IsFloatDType(x.dtype)) {
    CumSumLanes<double>(
        lanes, exclusive, reverse, [&](int64_t i) { return double{LoadFloat(x, i)}; },
        [&](int64_t i, double v) { StoreFloat(y, i, static_cast<float>(v)); });
  } else {
    CumSumLanes<uint64_t>(
        lanes, exclusive, reverse, [&](int64_t i) { return static_cast<uint64_t>(LoadInt(x, i)); },
        [&](int64_t i, uint64_t v) { StoreInt(y, i, static_cast<int64_t>(v)); });
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
