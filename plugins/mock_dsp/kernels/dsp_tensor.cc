#include "plugins/mock_dsp/kernels/dsp_tensor.h"

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

size_t DtypeWidth(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F16: return 2;
    case TSR_DTYPE_I64: return 8;
    case TSR_DTYPE_BOOL:
    case TSR_DTYPE_I8:
    case TSR_DTYPE_U8: return 1;
    default: return 4;
  }
}

namespace {

// Rows of t: (count, elements per row, bytes from one row to the next).
struct Rows {
  int64_t count, length, stride;
};
Rows RowsOf(const DspTensor& t) {
  const int64_t length = t.shape.empty() ? 1 : t.shape.back();
  const int64_t count = length == 0 ? 0 : t.elements() / length;
  const int64_t stride = t.row_stride_bytes > 0 ? t.row_stride_bytes : length * static_cast<int64_t>(DtypeWidth(t.dtype));
  return {count, length, stride};
}

}  // namespace

bool DspTensor::dense() const {
  return row_stride_bytes == 0 || shape.empty() ||
         row_stride_bytes == shape.back() * static_cast<int64_t>(DtypeWidth(dtype));
}

int64_t TcmRowStride(int32_t dtype, std::span<const int64_t> shape) {
  if ((dtype != TSR_DTYPE_F32 && dtype != TSR_DTYPE_F16) || shape.size() < 2) return 0;
  const int64_t row = shape.back() * static_cast<int64_t>(DtypeWidth(dtype));
  const int64_t padded = (row + kTcmLineBytes - 1) / kTcmLineBytes * kTcmLineBytes;
  return padded == row ? 0 : padded;
}

uint64_t LaidOutBytes(int32_t dtype, std::span<const int64_t> shape, int64_t row_stride_bytes) {
  DspTensor t{dtype, std::vector<int64_t>(shape.begin(), shape.end()), nullptr, row_stride_bytes};
  const Rows r = RowsOf(t);
  // Whole padded rows, the last one included: a vector load of it stays inside.
  return static_cast<uint64_t>(r.count * r.stride);
}

void PackRows(const uint8_t* dense, const DspTensor& t) {
  const Rows r = RowsOf(t);
  const size_t row_bytes = static_cast<size_t>(r.length) * DtypeWidth(t.dtype);
  for (int64_t i = 0; i < r.count; ++i) std::memcpy(t.data + i * r.stride, dense + i * row_bytes, row_bytes);
}

void UnpackRows(const DspTensor& t, uint8_t* dense) {
  const Rows r = RowsOf(t);
  const size_t row_bytes = static_cast<size_t>(r.length) * DtypeWidth(t.dtype);
  for (int64_t i = 0; i < r.count; ++i) std::memcpy(dense + i * row_bytes, t.data + i * r.stride, row_bytes);
}

std::vector<float> LoadFloats(const DspTensor& t) {
  const size_t n = static_cast<size_t>(t.elements());
  std::vector<float> v(n);
  const Rows r = RowsOf(t);
  // Row by row: each row starts at its own stride (one load per
  // 128-byte line on the device), the padding after it is never read.
  for (int64_t row = 0; row < r.count; ++row) {
    const uint8_t* src = t.data + row * r.stride;
    float* dst = v.data() + row * r.length;
    if (t.dtype == TSR_DTYPE_F32) {
      std::memcpy(dst, src, static_cast<size_t>(r.length) * sizeof(float));
    } else {
      for (int64_t i = 0; i < r.length; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        dst[i] = HalfToFloat(h);
      }
    }
  }
  return v;
}

void StoreFloats(std::span<const float> values, const DspTensor& t) {
  const Rows r = RowsOf(t);
  for (int64_t row = 0; row < r.count; ++row) {
    uint8_t* dst = t.data + row * r.stride;
    const float* src = values.data() + row * r.length;
    if (t.dtype == TSR_DTYPE_F32) {
      std::memcpy(dst, src, static_cast<size_t>(r.length) * sizeof(float));
    } else {
      for (int64_t i = 0; i < r.length; ++i) {
        const uint16_t h = FloatToHalf(src[i]);
        std::memcpy(dst + 2 * i, &h, 2);
      }
    }
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
