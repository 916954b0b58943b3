// SLICE and PAD (ONNX semantics), for every dtype.
// SLICE: STARTS, ENDS (required), AXES (default 0..n-1), STEPS (default 1),
//   or ONNX-style int inputs 1..4 which take precedence. Clamping follows
//   ONNX: negatives add the dim; for step > 0 start, end clamp to [0, dim];
//   for step < 0 start clamps to [0, dim-1] and end to [-1, dim-1]
//   (so INT64_MIN / INT64_MAX sentinels work).
// PAD: PADS [b0..bn-1, e0..en-1] (or input 1), negative = crop; PAD_MODE
//   CONSTANT / REFLECT / EDGE; PAD_VALUE float (default 0), or a scalar
//   input 2 of the data dtype; optional axes input 3 (ONNX opset 18). Each
//   output coordinate o maps to source coordinate o - b of the ORIGINAL
//   input; out of range it takes the constant, the nearest edge, or the
//   mirror image (reflect without repeating the edge, periodically).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {

absl::Status CheckSlice(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 5, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  if (outputs[0].dtype != inputs[0].dtype)
    return OpError(op,
                   absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(inputs[0].dtype)));
  for (size_t i = 1; i < inputs.size(); ++i)
    if (IsPresent(inputs[i]) && inputs[i].dtype != TSR_DTYPE_I32 && inputs[i].dtype != TSR_DTYPE_I64)
      return UnsupportedDType(op, inputs[i].dtype, absl::StrCat("input ", i, " "));
  return absl::OkStatus();
}

absl::Status RunSlice(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                      std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  bool has_starts = false, has_ends = false, has_axes = false, has_steps = false;
  auto starts = IntsFromInputOrAttr(op, inputs, 1, attrs, TSR_ATTR_STARTS, &has_starts);
  if (!starts.ok()) return starts.status();
  auto ends = IntsFromInputOrAttr(op, inputs, 2, attrs, TSR_ATTR_ENDS, &has_ends);
  if (!ends.ok()) return ends.status();
  auto axes = IntsFromInputOrAttr(op, inputs, 3, attrs, TSR_ATTR_AXES, &has_axes);
  if (!axes.ok()) return axes.status();
  auto steps = IntsFromInputOrAttr(op, inputs, 4, attrs, TSR_ATTR_STEPS, &has_steps);
  if (!steps.ok()) return steps.status();
  if (!has_starts || !has_ends) return OpError(op, "STARTS and ENDS are required");
  const size_t n = starts->size();
  if (ends->size() != n) return OpError(op, "STARTS and ENDS must have the same length");
  if (axes->empty()) {
    for (size_t i = 0; i < n; ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (steps->empty()) steps->assign(n, 1);
  if (axes->size() != n || steps->size() != n) return OpError(op, "AXES and STEPS must match the length of STARTS");

  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape);
  Shape out = x.shape;
  std::vector<int64_t> start(rank, 0), step(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    auto ax = NormalizeAxis(op, (*axes)[i], rank);
    if (!ax.ok()) return ax.status();
    if (seen[*ax]) return OpError(op, absl::StrCat("axis ", *ax, " repeated"));
    seen[*ax] = true;
    const int64_t dim = x.shape[*ax], st = (*steps)[i];
    if (st == 0) return OpError(op, "STEPS must not be 0");
    int64_t b = (*starts)[i], e = (*ends)[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (dim == 0) {
      b = 0;
      count = 0;
    } else if (st > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = b > e ? (b - e + (-st) - 1) / (-st) : 0;
    }
    out[*ax] = count;
    start[*ax] = b;
    step[*ax] = st;
  }
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  int64_t base = 0;
  std::vector<int64_t> strides(rank);
  for (int64_t d = 0; d < rank; ++d) {
    base += start[d] * in_strides[d];
    strides[d] = step[d] * in_strides[d];
  }
  const size_t es = DTypeSize(x.dtype);
  ForEachStrided(out, base, strides, [&](int64_t o, int64_t i) { CopyElement(y, o, x, i, es); });
  return absl::OkStatus();
}

absl::Status CheckPad(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 1, 4, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  const int32_t d = inputs[0].dtype;
  if (outputs[0].dtype != d)
    return OpError(op, absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(d)));
  for (size_t i : {size_t{1}, size_t{3}})
    if (IsPresent(inputs, i) && inputs[i].dtype != TSR_DTYPE_I32 && inputs[i].dtype != TSR_DTYPE_I64)
      return UnsupportedDType(op, inputs[i].dtype, absl::StrCat("input ", i, " "));
  if (IsPresent(inputs, 2) && inputs[2].dtype != d)
    return OpError(op, absl::StrCat("constant value dtype ", DTypeName(inputs[2].dtype), " must be ", DTypeName(d)));
  return absl::OkStatus();
}

absl::Status RunPad(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                    std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  bool found = false, has_axes = false;
  auto pads_in = IntsFromInputOrAttr(op, inputs, 1, attrs, TSR_ATTR_PADS, &found);
  if (!pads_in.ok()) return pads_in.status();
  std::vector<int64_t> axes;
  if (IsPresent(inputs, 3)) {
    auto a = IntsFromInputOrAttr(op, inputs, 3, attrs, TSR_ATTR_UNKNOWN, &has_axes);
    if (!a.ok()) return a.status();
    axes = *a;
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  const size_t na = axes.size();
  if (pads_in->size() != 2 * na)
    return OpError(op, absl::StrCat("PADS has ", pads_in->size(), " values, expected ", 2 * na));
  std::vector<int64_t> pb(rank, 0), pe(rank, 0);
  for (size_t i = 0; i < na; ++i) {
    auto ax = NormalizeAxis(op, axes[i], rank);
    if (!ax.ok()) return ax.status();
    pb[*ax] = (*pads_in)[i];
    pe[*ax] = (*pads_in)[na + i];
  }
  const int64_t mode = attrs.GetInt(TSR_ATTR_PAD_MODE, TSR_PAD_CONSTANT);
  if (mode != TSR_PAD_CONSTANT && mode != TSR_PAD_REFLECT && mode != TSR_PAD_EDGE)
    return OpError(op, absl::StrCat("unknown PAD_MODE ", mode));
  Shape out(rank);
  for (int64_t d = 0; d < rank; ++d) {
    out[d] = x.shape[d] + pb[d] + pe[d];
    if (out[d] < 0) return OpError(op, absl::StrCat("pads crop axis ", d, " below zero"));
    if (mode != TSR_PAD_CONSTANT && x.shape[d] == 0 && out[d] > 0)
      return OpError(op, absl::StrCat("cannot REFLECT/EDGE pad empty axis ", d));
  }
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;

  // Source coordinate per output coordinate, -1 = constant.
  std::vector<std::vector<int64_t>> src(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape[d];
    src[d].resize(out[d]);
    for (int64_t o = 0; o < out[d]; ++o) {
      int64_t i = o - pb[d];
      if (i < 0 || i >= n) {
        if (mode == TSR_PAD_CONSTANT) {
          i = -1;
        } else if (mode == TSR_PAD_EDGE) {
          i = std::clamp<int64_t>(i, 0, n - 1);
        } else if (n == 1) {
          i = 0;
        } else {
          const int64_t period = 2 * (n - 1);
          i %= period;
          if (i < 0) i += period;
          if (i >= n) i = period - i;
        }
      }
      src[d][o] = i;
    }
  }
  // Constant value bytes.
  const size_t es = DTypeSize(x.dtype);
  std::vector<char> value(es, 0);
  TensorRef vt{x.dtype, {}, value.data(), {}};
  if (IsPresent(inputs, 2)) {
    if (inputs[2].element_count() != 1) return OpError(op, "constant value input must be a scalar");
    std::memcpy(value.data(), inputs[2].data, es);
  } else {
    const float pv = attrs.GetFloat(TSR_ATTR_PAD_VALUE, 0.0f);
    if (IsFloatDType(x.dtype))
      StoreFloat(vt, 0, pv);
    else if (x.dtype == TSR_DTYPE_BOOL)
      StoreInt(vt, 0, pv != 0.0f);
    else
      StoreInt(vt, 0, FloatToIntSaturating(pv, x.dtype));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape);
  const int64_t total = ShapeElements(out);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = 0;
    bool constant = false;
    for (int64_t d = 0; d < rank && !constant; ++d) {
      const int64_t i = src[d][idx[d]];
      constant = i < 0;
      off += i * in_strides[d];
    }
    if (constant)
      CopyElement(y, o, vt, 0, es);
    else
      CopyElement(y, o, x, off, es);
    for (int64_t d = rank; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
