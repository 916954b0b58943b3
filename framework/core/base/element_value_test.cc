// ElementAsDouble against values written out by hand: the IEEE binary16
// encodings (sign, 5-bit exponent biased by 15, 10-bit fraction) and the
// two's-complement bytes of each integer type.
#include "framework/core/base/element_value.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"
#include "tessera/common.h"

namespace tessera {
namespace {

TEST(ElementValue, HalvesDecodeExactly) {
  EXPECT_EQ(HalfBitsToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfBitsToDouble(0x3C01), 1.0 + 0x1p-10);
  EXPECT_EQ(HalfBitsToDouble(0xC000), -2.0);
  EXPECT_EQ(HalfBitsToDouble(0x7BFF), 65504.0);         // largest finite
  EXPECT_EQ(HalfBitsToDouble(0x0400), 0x1p-14);         // smallest normal
  EXPECT_EQ(HalfBitsToDouble(0x03FF), 1023 * 0x1p-24);  // largest subnormal
  EXPECT_EQ(HalfBitsToDouble(0x0001), 0x1p-24);         // smallest subnormal
  EXPECT_EQ(HalfBitsToDouble(0x8000), 0.0);
  EXPECT_TRUE(std::signbit(HalfBitsToDouble(0x8000)));
  EXPECT_EQ(HalfBitsToDouble(0x7C00), INFINITY);
  EXPECT_EQ(HalfBitsToDouble(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(HalfBitsToDouble(0x7E00)));
  EXPECT_TRUE(std::isnan(HalfBitsToDouble(0x7C01)));  // signalling payload
}

TEST(ElementValue, EveryDTypeReadsItsOwnWidthAtAnyAlignment) {
  // One byte of padding first: the reader must not need aligned data.
  unsigned char buf[1 + 16] = {};
  const auto put = [&](const void* v, size_t n) { std::memcpy(buf + 1, v, n); };
  const float f[2] = {1.5f, -0.25f};
  put(f, sizeof(f));
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_F32, buf + 1, 1), -0.25);
  const uint16_t h[2] = {0x3C00, 0xB800};  // 1, -0.5
  put(h, sizeof(h));
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_F16, buf + 1, 1), -0.5);
  const unsigned char bytes[2] = {0x7F, 0x80};
  put(bytes, sizeof(bytes));
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_I8, buf + 1, 1), -128);
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_U8, buf + 1, 1), 128);
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_BOOL, buf + 1, 0), 1);
  const int32_t i32[2] = {7, -2147483647 - 1};
  put(i32, sizeof(i32));
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_I32, buf + 1, 1), -2147483648.0);
  const int64_t i64[2] = {0, (int64_t{1} << 53) + 1};
  put(i64, sizeof(i64));
  EXPECT_EQ(ElementAsDouble(TSR_DTYPE_I64, buf + 1, 1), 0x1p53);  // nearest double (ties to even)
  EXPECT_EQ(ElementAsDouble(-1, buf + 1, 0), 0);
}

}  // namespace
}  // namespace tessera
