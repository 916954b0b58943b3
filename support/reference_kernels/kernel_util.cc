#include "support/reference_kernels/kernel_util.h"

#include "support/reference_kernels/fixed_ints_attr.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera::cpu {

std::string ShapeStr(std::span<const int64_t> shape) { return absl::StrCat("[", absl::StrJoin(shape, ","), "]"); }

int64_t ShapeElements(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return 0;
    n *= d;
  }
  return n;
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

absl::Status UnsupportedDType(int32_t op, int32_t dtype, absl::string_view role) {
  return absl::UnimplementedError(absl::StrCat(OpTypeName(op), ": ", role, "dtype ", DTypeName(dtype), " unsupported"));
}

absl::Status OpError(int32_t op, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(OpTypeName(op), ": ", message));
}

absl::Status CheckArity(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                        size_t min_in, size_t max_in, size_t n_out) {
  if (inputs.size() < min_in || inputs.size() > max_in) {
    std::string want = min_in == max_in ? absl::StrCat(min_in) : absl::StrCat(min_in, "..", max_in);
    return OpError(op, absl::StrCat("expects ", want, " inputs, got ", inputs.size()));
  }
  if (outputs.size() != n_out) {
    return OpError(op, absl::StrCat("expects ", n_out, " output(s), got ", outputs.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!IsKnownDType(outputs[i].dtype))
      return OpError(op, absl::StrCat("output ", i, " has invalid dtype ", DTypeName(outputs[i].dtype)));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (IsPresent(inputs[i]) && !IsKnownDType(inputs[i].dtype))
      return OpError(op, absl::StrCat("input ", i, " has invalid dtype ", inputs[i].dtype));
  }
  return absl::OkStatus();
}

absl::Status CheckPresent(int32_t op, std::span<const TensorRef> inputs, size_t i) {
  if (!IsPresent(inputs, i)) return OpError(op, absl::StrCat("required input ", i, " is absent"));
  return absl::OkStatus();
}

absl::Status CheckData(int32_t op, const TensorRef& t, absl::string_view role) {
  for (int64_t d : t.shape) {
    if (d < 0) return OpError(op, absl::StrCat(role, " has negative dim in shape ", ShapeStr(t.shape)));
  }
  if (t.data == nullptr && t.element_count() > 0) return OpError(op, absl::StrCat(role, " has no data"));
  return absl::OkStatus();
}

absl::Status CheckAllData(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!IsPresent(inputs[i])) continue;
    absl::Status s = CheckData(op, inputs[i], absl::StrCat("input ", i));
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    absl::Status s = CheckData(op, outputs[i], absl::StrCat("output ", i));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckOutputShape(int32_t op, const TensorRef& out, std::span<const int64_t> expected, size_t index) {
  if (!std::equal(out.shape.begin(), out.shape.end(), expected.begin(), expected.end())) {
    return OpError(op, absl::StrCat("output ", index, " shape ", ShapeStr(out.shape), " but the op produces ",
                                    ShapeStr(expected)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> NormalizeAxis(int32_t op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return OpError(op, absl::StrCat("axis ", axis, " out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<float> LoadFloats(const TensorRef& t) {
  const int64_t n = t.element_count();
  std::vector<float> v(n);
  if (t.dtype == TSR_DTYPE_F32) {
    if (n) std::memcpy(v.data(), t.data, n * sizeof(float));
  } else {
    for (int64_t i = 0; i < n; ++i) v[i] = LoadFloat(t, i);
  }
  return v;
}

std::vector<int64_t> LoadInts(const TensorRef& t) {
  const int64_t n = t.element_count();
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = LoadInt(t, i);
  return v;
}

int64_t IntDTypeMin(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_I8:
      return -128;
    case TSR_DTYPE_U8:
      return 0;
    case TSR_DTYPE_I32:
      return std::numeric_limits<int32_t>::min();
    case TSR_DTYPE_I64:
      return std::numeric_limits<int64_t>::min();
    case TSR_DTYPE_BOOL:
      return 0;
    default:
      return 0;
  }
}

int64_t IntDTypeMax(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_I8:
      return 127;
    case TSR_DTYPE_U8:
      return 255;
    case TSR_DTYPE_I32:
      return std::numeric_limits<int32_t>::max();
    case TSR_DTYPE_I64:
      return std::numeric_limits<int64_t>::max();
    case TSR_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

int64_t FloatToIntSaturating(double v, int32_t dtype) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  const int64_t lo = IntDTypeMin(dtype), hi = IntDTypeMax(dtype);
  if (t <= static_cast<double>(lo)) return lo;
  // 2^63 is the first double above INT64_MAX.
  if (t >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(t);
}

double RoundHalfToEven(double v) {
  if (!std::isfinite(v)) return v;
  const double r = std::round(v);  // half away from zero
  if (std::fabs(v - std::trunc(v)) == 0.5) {
    // Tie: pick the even neighbour.
    return 2.0 * std::round(v / 2.0);
  }
  return r;
}

absl::StatusOr<std::vector<int64_t>> IntsFromInputOrAttr(int32_t op, std::span<const TensorRef> inputs,
                                                         size_t input_index, const Attributes& attrs, int32_t key,
                                                         bool* found) {
  if (IsPresent(inputs, input_index)) {
    const TensorRef& t = inputs[input_index];
    if (t.dtype != TSR_DTYPE_I32 && t.dtype != TSR_DTYPE_I64)
      return UnsupportedDType(op, t.dtype, absl::StrCat("input ", input_index, " "));
    if (t.shape.size() > 1) return OpError(op, absl::StrCat("input ", input_index, " must be a 1-D int list"));
    *found = true;
    return LoadInts(t);
  }
  *found = attrs.Has(key);
  auto v = attrs.GetInts(key);
  return std::vector<int64_t>(v.begin(), v.end());
}

absl::StatusOr<std::vector<int64_t>> FixedIntsAttr(int32_t op, const Attributes& attrs, int32_t key, const char* name,
                                                   size_t len, int64_t dflt, int64_t min_value, int64_t max_value) {
  auto v = attrs.GetInts(key);
  if (v.empty()) return std::vector<int64_t>(len, dflt);
  if (v.size() != len) return OpError(op, absl::StrCat(name, " must have ", len, " values, got ", v.size()));
  for (int64_t e : v)
    if (e < min_value || e > max_value)
      return OpError(op, max_value == std::numeric_limits<int64_t>::max()
                             ? absl::StrCat(name, " values must be >= ", min_value, ", got ", e)
                             : absl::StrCat(name, " value ", e, " is out of range [", min_value, ", ", max_value, "]"));
  return std::vector<int64_t>(v.begin(), v.end());
}

}  // namespace tessera::cpu
