#include "framework/core/base/fixed_decimal.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace tessera {
namespace {

std::string Fixed(double v, int decimals) {
  std::string s;
  AppendFixed(&s, v, decimals);
  return s;
}

std::string Printf(double v, int decimals) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

TEST(FixedDecimal, HandVectors) {
  EXPECT_EQ(Fixed(0, 2), "0.00");
  EXPECT_EQ(Fixed(1.5, 2), "1.50");
  EXPECT_EQ(Fixed(-2.25, 1), "-2.2");  // an exact tie: rounds to even, as printf
  EXPECT_EQ(Fixed(0.125, 2), "0.12");  // an exact tie
  EXPECT_EQ(Fixed(0.135, 2), "0.14");  // 0.135 is 0.13500000000000000888 in binary
  EXPECT_EQ(Fixed(1234567.891, 2), "1234567.89");
  EXPECT_EQ(Fixed(2.5, 0), "2");
  EXPECT_EQ(Fixed(-0.0, 2), "-0.00");
  EXPECT_EQ(Fixed(1e300, 2).size(), 304u);  // 301 digits, the point, two decimals
}

TEST(FixedDecimal, NonFiniteValuesReadAsPrintfWritesThem) {
  EXPECT_EQ(Fixed(std::numeric_limits<double>::infinity(), 2), "inf");
  EXPECT_EQ(Fixed(-std::numeric_limits<double>::infinity(), 2), "-inf");
  EXPECT_EQ(Fixed(std::nan(""), 2), Printf(std::nan(""), 2));
}

TEST(FixedDecimal, AgreesWithPrintfOnRandomValues) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-30, 60), decimals(0, 17), few(0, 4);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    const int d = i % 2 == 0 ? decimals(rng) : few(rng);  // half on the fast path (<= 4 decimals)
    ASSERT_EQ(Fixed(v, d), Printf(v, d)) << "value " << v << " decimals " << d;
  }
}

TEST(FixedDecimal, AgreesWithPrintfAtTiesAndNearThem) {
  // k/8 and k/16 are exact binary ties at 2 and 3 decimals; k/100 and
  // k/1000 are not representable, so they round by their binary value.
  for (int k = -4000; k <= 4000; ++k)
    for (double v : {k / 8.0, k / 16.0, k / 100.0, k / 1000.0, k * 1e9 + 0.5, k * 0.005})
      for (int d = 0; d <= 5; ++d) ASSERT_EQ(Fixed(v, d), Printf(v, d)) << "value " << v << " decimals " << d;
}

TEST(FixedDecimal, AgreesWithPrintfAcrossMagnitudes) {
  // Around the fast path's limit (9e18 after scaling) and far past it.
  for (double v : {9.0e14, 8.99e16, 9.2e16, 1e17, 1e18, 1.8446744073709552e19, 1e22, 1e-300, 5e-324}) {
    for (int d = 0; d <= 4; ++d) {
      ASSERT_EQ(Fixed(v, d), Printf(v, d)) << v;
      ASSERT_EQ(Fixed(-v, d), Printf(-v, d)) << -v;
    }
  }
}

TEST(FixedDecimal, AppendsToWhatIsThere) {
  std::string s = "x = ";
  AppendFixed(&s, 3.14159, 3);
  EXPECT_EQ(s, "x = 3.142");
}

}  // namespace
}  // namespace tessera
