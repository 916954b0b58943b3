// SOFTMAX (TSR_ATTR_AXIS, default -1; ONNX opset-13 semantics: along one
// axis) and LAYER_NORM (ONNX LayerNormalization: X, scale, optional bias;
// normalizes over dims [axis, rank); optional outputs Mean and InvStdDev of
// shape X.shape[:axis] + [1]*(rank-axis)). All math in f64, one rounding.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/broadcast.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

absl::Status CheckSameFloat(int32_t op, const TensorRef& t, int32_t d, const char* role) {
  if (t.dtype != d) return OpError(op, absl::StrCat(role, " dtype ", DTypeName(t.dtype), " must be ", DTypeName(d)));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSoftmax(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 1, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (!IsFloatDType(d)) return UnsupportedDType(op, d);
  return CheckSameFloat(op, outputs[0], d, "output");
}

absl::Status RunSoftmax(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                        std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (s.ok()) s = CheckOutputShape(op, y, x.shape);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) return OpError(op, "input must have rank >= 1");
  auto axis = NormalizeAxis(op, attrs.GetInt(TSR_ATTR_AXIS, -1), rank);
  if (!axis.ok()) return axis.status();
  const int64_t len = x.shape[*axis];
  const int64_t inner = ShapeElements(std::span(x.shape).subspan(*axis + 1));
  const int64_t outer = len == 0 || inner == 0 ? 0 : x.element_count() / (len * inner);
  std::vector<double> e(len);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < len; ++i) mx = std::max(mx, static_cast<double>(LoadFloat(x, base + i * inner)));
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) {
        e[i] = std::exp(LoadFloat(x, base + i * inner) - mx);
        sum += e[i];
      }
      for (int64_t i = 0; i < len; ++i) StoreFloat(y, base + i * inner, static_cast<float>(e[i] / sum));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLayerNorm(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  if (outputs.size() < 1 || outputs.size() > 3)
    return OpError(op, absl::StrCat("expects 1..3 outputs, got ", outputs.size()));
  // Outputs 1 (Mean) and 2 (InvStdDev) are optional: UNKNOWN dtype = absent.
  absl::Status s = CheckArity(op, inputs, outputs.first(1), 2, 3, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (!IsFloatDType(d)) return UnsupportedDType(op, d);
  if (!(s = CheckSameFloat(op, inputs[1], d, "scale")).ok()) return s;
  if (IsPresent(inputs, 2) && !(s = CheckSameFloat(op, inputs[2], d, "bias")).ok()) return s;
  if (!(s = CheckSameFloat(op, outputs[0], d, "output")).ok()) return s;
  for (size_t i = 1; i < outputs.size(); ++i)
    if (outputs[i].dtype != TSR_DTYPE_UNKNOWN && !IsFloatDType(outputs[i].dtype))
      return UnsupportedDType(op, outputs[i].dtype, absl::StrCat("output ", i, " "));
  return absl::OkStatus();
}

absl::Status RunLayerNorm(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                          std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &scale = inputs[1], &y = outputs[0];
  const TensorRef* bias = IsPresent(inputs, 2) ? &inputs[2] : nullptr;
  absl::Status s = CheckAllData(op, inputs, outputs.first(1));
  if (s.ok()) s = CheckOutputShape(op, y, x.shape);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) return OpError(op, "input must have rank >= 1");
  auto axis = NormalizeAxis(op, attrs.GetInt(TSR_ATTR_AXIS, -1), rank);
  if (!axis.ok()) return axis.status();
  auto stat_present = [&](size_t i) { return outputs.size() > i && outputs[i].dtype != TSR_DTYPE_UNKNOWN; };
  const double eps = attrs.GetFloat(TSR_ATTR_EPSILON, 1e-5f);
  const Shape norm_shape(x.shape.begin() + *axis, x.shape.end());
  // scale / bias broadcast (unidirectionally) to the normalized shape.
  std::vector<std::vector<int64_t>> param_index;
  for (const TensorRef* p : {&scale, bias}) {
    if (!p) continue;
    const Shape both[2] = {norm_shape, p->shape};
    auto b = BroadcastShapes(op, both);
    if (!b.ok() || *b != norm_shape)
      return OpError(
          op, absl::StrCat("scale/bias shape ", ShapeStr(p->shape), " does not broadcast to ", ShapeStr(norm_shape)));
    std::vector<int64_t> idx(ShapeElements(norm_shape));
    const Shape one[1] = {p->shape};
    BroadcastWalker(norm_shape, one).ForEach([&](int64_t o, const int64_t* off) { idx[o] = off[0]; });
    param_index.push_back(std::move(idx));
  }
  Shape stat_shape(x.shape.begin(), x.shape.begin() + *axis);
  stat_shape.resize(rank, 1);
  for (size_t i = 1; i < outputs.size(); ++i) {
    if (!stat_present(i)) continue;
    if (!(s = CheckOutputShape(op, outputs[i], stat_shape, i)).ok()) return s;
    if (!(s = CheckData(op, outputs[i], absl::StrCat("output ", i))).ok()) return s;
  }

  const int64_t len = ShapeElements(norm_shape);
  const int64_t rows = len == 0 ? 0 : x.element_count() / len;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * len;
    double mean = 0;
    for (int64_t i = 0; i < len; ++i) mean += LoadFloat(x, base + i);
    mean /= static_cast<double>(len);
    double var = 0;
    for (int64_t i = 0; i < len; ++i) {
      const double dlt = LoadFloat(x, base + i) - mean;
      var += dlt * dlt;
    }
    var /= static_cast<double>(len);
    const double inv_std = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < len; ++i) {
      double v = (LoadFloat(x, base + i) - mean) * inv_std * LoadFloat(scale, param_index[0][i]);
      if (bias) v += LoadFloat(*bias, param_index[1][i]);
      StoreFloat(y, base + i, static_cast<float>(v));
    }
    if (stat_present(1)) StoreFloat(outputs[1], r, static_cast<float>(mean));
    if (stat_present(2)) StoreFloat(outputs[2], r, static_cast<float>(inv_std));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
