// Internal helpers shared by the reference kernels: shape arithmetic,
// validation messages, and per-element load/store for every dtype.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_UTIL_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/reference_kernels/half.h"
#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu {

using Shape = std::vector<int64_t>;

// "[2,3,4]".
std::string ShapeStr(std::span<const int64_t> shape);
// Product of dims (1 for rank 0); 0 when any dim is <= 0.
int64_t ShapeElements(std::span<const int64_t> shape);
// Row-major element strides.
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape);

inline bool IsFloatDType(int32_t d) { return d == TSR_DTYPE_F32 || d == TSR_DTYPE_F16; }
inline bool IsIntDType(int32_t d) {
  return d == TSR_DTYPE_I8 || d == TSR_DTYPE_U8 || d == TSR_DTYPE_I32 || d == TSR_DTYPE_I64;
}
inline bool IsKnownDType(int32_t d) { return d >= TSR_DTYPE_F32 && d <= TSR_DTYPE_BOOL; }
// f32 f16 i8 u8 i32 i64.
inline bool IsNumericDType(int32_t d) { return IsFloatDType(d) || IsIntDType(d); }
// An optional input is absent when its dtype is UNKNOWN (data == nullptr).
inline bool IsPresent(const TensorRef& t) { return t.dtype != TSR_DTYPE_UNKNOWN; }
inline bool IsPresent(std::span<const TensorRef> ts, size_t i) { return i < ts.size() && IsPresent(ts[i]); }

// --- Error helpers (all messages start with the op name). -------------------

// Unimplemented: "SIN: dtype i32 unsupported" (role e.g. "input 1 ").
absl::Status UnsupportedDType(int32_t op, int32_t dtype, absl::string_view role = "");
// InvalidArgument with "OPNAME: " prefix.
absl::Status OpError(int32_t op, absl::string_view message);
// Arity: inputs in [min_in, max_in], outputs == n_out.
absl::Status CheckArity(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                        size_t min_in, size_t max_in, size_t n_out);
// Input i must be present (not an absent optional).
absl::Status CheckPresent(int32_t op, std::span<const TensorRef> inputs, size_t i);
// Data pointer must be set when the tensor has elements.
absl::Status CheckData(int32_t op, const TensorRef& t, absl::string_view role);
// Checks every present input and every output for data.
absl::Status CheckAllData(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs);
// Output shape must equal `expected`.
absl::Status CheckOutputShape(int32_t op, const TensorRef& out, std::span<const int64_t> expected, size_t index = 0);
// Maps axis in [-rank, rank) to [0, rank).
absl::StatusOr<int64_t> NormalizeAxis(int32_t op, int64_t axis, int64_t rank);

// --- Element access. i is a flat element index. ----------------------------

inline float LoadFloat(const TensorRef& t, int64_t i) {
  if (t.dtype == TSR_DTYPE_F16) return HalfToFloat(static_cast<const uint16_t*>(t.data)[i]);
  return static_cast<const float*>(t.data)[i];
}
inline void StoreFloat(const TensorRef& t, int64_t i, float v) {
  if (t.dtype == TSR_DTYPE_F16)
    static_cast<uint16_t*>(t.data)[i] = FloatToHalf(v);
  else
    static_cast<float*>(t.data)[i] = v;
}
// Integer and bool dtypes.
inline int64_t LoadInt(const TensorRef& t, int64_t i) {
  switch (t.dtype) {
    case TSR_DTYPE_I8:
      return static_cast<const int8_t*>(t.data)[i];
    case TSR_DTYPE_U8:
      return static_cast<const uint8_t*>(t.data)[i];
    case TSR_DTYPE_I32:
      return static_cast<const int32_t*>(t.data)[i];
    case TSR_DTYPE_I64:
      return static_cast<const int64_t*>(t.data)[i];
    case TSR_DTYPE_BOOL:
      return static_cast<const uint8_t*>(t.data)[i] != 0;
    default:
      return 0;
  }
}
// Integer dtypes: keeps the low bits (two's-complement wrap-around, like a
// C++20 integral conversion). BOOL stores v != 0.
inline void StoreInt(const TensorRef& t, int64_t i, int64_t v) {
  switch (t.dtype) {
    case TSR_DTYPE_I8:
      static_cast<int8_t*>(t.data)[i] = static_cast<int8_t>(v);
      break;
    case TSR_DTYPE_U8:
      static_cast<uint8_t*>(t.data)[i] = static_cast<uint8_t>(v);
      break;
    case TSR_DTYPE_I32:
      static_cast<int32_t*>(t.data)[i] = static_cast<int32_t>(v);
      break;
    case TSR_DTYPE_I64:
      static_cast<int64_t*>(t.data)[i] = v;
      break;
    case TSR_DTYPE_BOOL:
      static_cast<uint8_t*>(t.data)[i] = v != 0;
      break;
    default:
      break;
  }
}
// Any numeric dtype as double (i64 beyond 2^53 rounds).
inline double LoadDouble(const TensorRef& t, int64_t i) {
  if (IsFloatDType(t.dtype)) return LoadFloat(t, i);
  return static_cast<double>(LoadInt(t, i));
}
// Copies element `src_i` of `src` to element `dst_i` of `dst` (same dtype).
inline void CopyElement(const TensorRef& dst, int64_t dst_i, const TensorRef& src, int64_t src_i, size_t esize) {
  std::memcpy(static_cast<char*>(dst.data) + dst_i * esize, static_cast<const char*>(src.data) + src_i * esize, esize);
}

// Visits every element of `out_shape` in row-major order, calling
// fn(out_index, in_offset) with in_offset = base + sum(idx[d] * strides[d])
// (strides may be zero or negative). Used for transpose and slice.
template <typename Fn>
void ForEachStrided(std::span<const int64_t> out_shape, int64_t base, std::span<const int64_t> strides, Fn&& fn) {
  const int64_t total = ShapeElements(out_shape);
  const size_t rank = out_shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = base;
  for (int64_t o = 0; o < total; ++o) {
    fn(o, off);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (out_shape[d] - 1);
      idx[d] = 0;
    }
  }
}

// Whole tensor (f32/f16) as floats.
std::vector<float> LoadFloats(const TensorRef& t);
// Whole tensor (int dtypes / bool) as int64.
std::vector<int64_t> LoadInts(const TensorRef& t);

// Range of an integer dtype.
int64_t IntDTypeMin(int32_t dtype);
int64_t IntDTypeMax(int32_t dtype);
inline int64_t SaturateTo(int32_t dtype, int64_t v) {
  const int64_t lo = IntDTypeMin(dtype), hi = IntDTypeMax(dtype);
  return v < lo ? lo : (v > hi ? hi : v);
}
// Truncates toward zero then saturates to the dtype range; NaN -> 0.
int64_t FloatToIntSaturating(double v, int32_t dtype);
// Round half to even, independent of the FP environment.
double RoundHalfToEven(double v);
// Round half away from zero (std::round).
inline double RoundHalfAwayFromZero(double v) { return std::round(v); }

// Reads an int list from an optional input tensor (i32/i64) if present,
// else from an attribute; `found` tells whether either existed.
absl::StatusOr<std::vector<int64_t>> IntsFromInputOrAttr(int32_t op, std::span<const TensorRef> inputs,
                                                         size_t input_index, const Attributes& attrs, int32_t key,
                                                         bool* found);

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_UTIL_H_
