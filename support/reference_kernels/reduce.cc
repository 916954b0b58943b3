// REDUCE_MEAN / REDUCE_SUM / REDUCE_MAX over TSR_ATTR_AXES (or an optional
// i32/i64 axes input 1, as in ONNX opset 18). Absent or empty axes reduce
// every axis. TSR_ATTR_KEEP_DIMS defaults to 1.
//  * floats accumulate in f64 and round once; MAX propagates NaN.
//  * ints: SUM wraps modulo 2^bits, MEAN = exact sum / count truncated
//    toward zero.
//  * empty reductions: SUM 0, MEAN NaN (ints: 0), MAX -inf (ints: min).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/broadcast.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {

absl::Status CheckReduce(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 2, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  bool ok = IsFloatDType(d) || d == TSR_DTYPE_I32 || d == TSR_DTYPE_I64;
  if (op == TSR_OP_REDUCE_MAX) ok = ok || d == TSR_DTYPE_I8 || d == TSR_DTYPE_U8;
  if (!ok) return UnsupportedDType(op, d);
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  if (IsPresent(inputs, 1) && inputs[1].dtype != TSR_DTYPE_I32 && inputs[1].dtype != TSR_DTYPE_I64)
    return UnsupportedDType(op, inputs[1].dtype, "axes input ");
  return absl::OkStatus();
}

absl::Status RunReduce(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  bool found = false;
  auto axes_or = IntsFromInputOrAttr(op, inputs, 1, attrs, TSR_ATTR_AXES, &found);
  if (!axes_or.ok()) return axes_or.status();
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> reduced(rank, axes_or->empty());
  for (int64_t a : *axes_or) {
    auto n = NormalizeAxis(op, a, rank);
    if (!n.ok()) return n.status();
    if (reduced[*n]) return OpError(op, absl::StrCat("axis ", a, " repeated"));
    reduced[*n] = true;
  }
  const int64_t keep = attrs.GetInt(TSR_ATTR_KEEP_DIMS, 1);
  Shape keep_shape, out_shape;
  int64_t count = 1;  // elements reduced into each output
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      count *= x.shape[d];
      keep_shape.push_back(1);
      if (keep) out_shape.push_back(1);
    } else {
      keep_shape.push_back(x.shape[d]);
      out_shape.push_back(x.shape[d]);
    }
  }
  if (!(s = CheckOutputShape(op, y, out_shape)).ok()) return s;
  const int64_t n_out = ShapeElements(out_shape);
  const Shape keep_only[1] = {keep_shape};
  BroadcastWalker walker(x.shape, keep_only);  // input elem -> output elem

  if (IsFloatDType(x.dtype)) {
    const bool is_max = op == TSR_OP_REDUCE_MAX;
    std::vector<double> acc(n_out, is_max ? -std::numeric_limits<double>::infinity() : 0.0);
    walker.ForEach([&](int64_t i, const int64_t* o) {
      const double v = LoadFloat(x, i);
      double& a = acc[o[0]];
      if (!is_max)
        a += v;
      else if (std::isnan(v) || v > a)
        a = std::isnan(a) ? a : v;
    });
    for (int64_t o = 0; o < n_out; ++o) {
      double v = acc[o];
      if (op == TSR_OP_REDUCE_MEAN) v = v / static_cast<double>(count);
      StoreFloat(y, o, static_cast<float>(v));
    }
    return absl::OkStatus();
  }
  if (op == TSR_OP_REDUCE_MAX) {
    std::vector<int64_t> acc(n_out, IntDTypeMin(x.dtype));
    walker.ForEach([&](int64_t i, const int64_t* o) { acc[o[0]] = std::max(acc[o[0]], LoadInt(x, i)); });
    for (int64_t o = 0; o < n_out; ++o) StoreInt(y, o, acc[o]);
    return absl::OkStatus();
  }
  std::vector<uint64_t> acc(n_out, 0);  // wraps modulo 2^64
  walker.ForEach([&](int64_t i, const int64_t* o) { acc[o[0]] += static_cast<uint64_t>(LoadInt(x, i)); });
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t v = static_cast<int64_t>(acc[o]);
    // i32 sums are exact in int64; i64 sums wrap (documented).
    if (op == TSR_OP_REDUCE_MEAN) v = count > 0 ? v / count : 0;
    StoreInt(y, o, v);
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
