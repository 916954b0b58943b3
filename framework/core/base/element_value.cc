#include "framework/core/base/element_value.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "tessera/common.h"

namespace tessera {
namespace {

template <typename T>
T Load(const void* data, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(data) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

double HalfBitsToDouble(uint16_t bits) {
  const uint32_t sign = (bits >> 15) & 1, exp = (bits >> 10) & 0x1F, mant = bits & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(mant), -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(static_cast<double>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

double ElementAsDouble(int32_t dtype, const void* data, int64_t i) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return Load<float>(data, i);
    case TSR_DTYPE_F16:
      return HalfBitsToDouble(Load<uint16_t>(data, i));
    case TSR_DTYPE_I8:
      return Load<int8_t>(data, i);
    case TSR_DTYPE_U8:
      return Load<uint8_t>(data, i);
    case TSR_DTYPE_I32:
      return Load<int32_t>(data, i);
    case TSR_DTYPE_I64:
      return static_cast<double>(Load<int64_t>(data, i));
    case TSR_DTYPE_BOOL:
      return Load<uint8_t>(data, i) ? 1 : 0;
    default:
      return 0;
  }
}

}  // namespace tessera
