// Checked size arithmetic for values that come from untrusted bytes (model
// files, ONNX files, bytecode, .pb tensors). Every size, count, offset and
// product derived from such input goes through these functions, so a
// crafted dimension can never wrap an allocation size.
//
// The one place for it: header-only and dependent on the C++ standard
// library alone, so the plugin kit (which plugins link) and the framework
// (which may use the kit's headers, never the reverse) share it.
#ifndef TESSERA_SUPPORT_MATH_CHECKED_MATH_H_
#define TESSERA_SUPPORT_MATH_CHECKED_MATH_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace tessera::checked {

// No tensor may exceed this many bytes (2^48, 256 TiB): far above any real
// tensor, far below int64/size_t overflow, so sums of a few such sizes and
// their alignment padding stay representable.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 48;

// a + b, a - b, a * b for int64_t or uint64_t operands of one type;
// nullopt when the exact result does not fit.
template <typename T>
std::optional<T> Add(T a, T b) {
  T r{};
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
template <typename T>
std::optional<T> Sub(T a, T b) {
  T r{};
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
template <typename T>
std::optional<T> Mul(T a, T b) {
  T r{};
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// `value` rounded up to a multiple of `alignment` (> 0); nullopt on overflow.
inline std::optional<uint64_t> AlignUp(uint64_t value, uint64_t alignment) {
  if (alignment == 0) return std::nullopt;
  const std::optional<uint64_t> bumped = Add<uint64_t>(value, alignment - 1);
  if (!bumped) return std::nullopt;
  return *bumped / alignment * alignment;
}

// Product of the dims; nullopt on a negative dim or overflow.
inline std::optional<int64_t> ElementCount(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    std::optional<int64_t> next = Mul<int64_t>(n, d);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

// Bytes of a dense tensor of `shape` with `element_size`-byte elements;
// nullopt on a negative dim, an element size of 0, overflow, or a result
// above `limit` (itself at most kMaxTensorBytes by default).
inline std::optional<int64_t> TensorBytes(std::span<const int64_t> shape, size_t element_size,
                                          int64_t limit = kMaxTensorBytes) {
  if (element_size == 0 || element_size > 64) return std::nullopt;
  const std::optional<int64_t> n = ElementCount(shape);
  if (!n) return std::nullopt;
  const std::optional<int64_t> bytes = Mul<int64_t>(*n, static_cast<int64_t>(element_size));
  if (!bytes || *bytes > limit) return std::nullopt;
  return bytes;
}

// `v` as an int64 when it is finite and in range (static_cast of a double
// outside int64's range is undefined behaviour); nullopt otherwise.
inline std::optional<int64_t> DoubleToInt64(double v) {
  // 2^63 is exactly representable; every double below it fits.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!std::isfinite(v) || v < -kTwo63 || v >= kTwo63) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace tessera::checked

#endif  // TESSERA_SUPPORT_MATH_CHECKED_MATH_H_
