#include "kernels/dsp_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/common.h"

namespace tessera::mock_dsp {

int64_t DspTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in f32
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if (std::isnan(f)) return sign | 0x7e00u;  // a quiet NaN
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00u;  // rounds past the largest half
  if (a < 6.103515625e-05f) {
    // Subnormal half: a multiple of 2^-24; nearbyint rounds half to even.
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  // Normal: keep 10 mantissa bits, rounding the 13 dropped ones to even.
  uint32_t m = std::bit_cast<uint32_t>(a);
  const uint32_t dropped = m & 0x1fffu;
  m >>= 13;
  if (dropped > 0x1000u || (dropped == 0x1000u && (m & 1u))) ++m;  // may carry into the exponent: still right
  return sign | static_cast<uint16_t>(m - (112u << 10));
}

std::vector<float> LoadFloats(const DspTensor& t) {
  const size_t n = static_cast<size_t>(t.elements());
  std::vector<float> v(n);
  if (t.dtype == TSR_DTYPE_F32) {
    if (n > 0) std::memcpy(v.data(), t.data, n * sizeof(float));
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, t.data + 2 * i, 2);
      v[i] = HalfToFloat(h);
    }
  }
  return v;
}

void StoreFloats(std::span<const float> values, const DspTensor& t) {
  if (t.dtype == TSR_DTYPE_F32) {
    if (!values.empty()) std::memcpy(t.data, values.data(), values.size() * sizeof(float));
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t h = FloatToHalf(values[i]);
    std::memcpy(t.data + 2 * i, &h, 2);
  }
}

std::vector<int64_t> LoadInts(const DspTensor& t) {
  const size_t n = static_cast<size_t>(t.elements());
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (t.dtype == TSR_DTYPE_I64) {
      std::memcpy(&v[i], t.data + 8 * i, 8);
    } else {
      int32_t x;
      std::memcpy(&x, t.data + 4 * i, 4);
      v[i] = x;
    }
  }
  return v;
}

std::vector<int64_t> Strides(std::span<const int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

absl::StatusOr<std::vector<int64_t>> BroadcastShape(std::span<const std::vector<int64_t>> shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      const int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1) {
        std::vector<std::string> texts;
        for (const auto& t : shapes) texts.push_back(absl::StrCat("[", absl::StrJoin(t, ","), "]"));
        return absl::InvalidArgumentError(absl::StrCat("shapes ", absl::StrJoin(texts, " "), " do not broadcast"));
      }
      o = d;
    }
  }
  return out;
}

std::vector<int64_t> BroadcastIndex(std::span<const int64_t> in, std::span<const int64_t> out) {
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> index(static_cast<size_t>(total), 0);
  const size_t offset = out.size() - in.size();
  // The stride each output dim contributes to the input offset (0 where the
  // input repeats).
  std::vector<int64_t> in_strides = Strides(in);
  std::vector<int64_t> step(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) step[offset + i] = in[i] == 1 ? 0 : in_strides[i];
  std::vector<int64_t> coord(out.size(), 0);
  int64_t pos = 0;
  for (int64_t k = 0; k < total; ++k) {
    index[static_cast<size_t>(k)] = pos;
    for (size_t d = out.size(); d-- > 0;) {  // odometer increment
      pos += step[d];
      if (++coord[d] < out[d]) break;
      pos -= step[d] * coord[d];
      coord[d] = 0;
    }
  }
  return index;
}

}  // namespace tessera::mock_dsp
