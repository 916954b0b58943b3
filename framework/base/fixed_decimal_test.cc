#include "base/fixed_decimal.h"

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
  EXPECT_EQ(Fixed(-2.25, 1), "-2.2");   // an exact tie: rounds to even, as printf
  EXPECT_EQ(Fixed(0.125, 2), "0.12");   // an exact tie
  EXPECT_EQ(Fixed(0.135, 2), "0.14");   // 0.135 is 0.13500000000000000888 in binary
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
  std::uniform_int_distribution<int> exponent(-30, 30), decimals(0, 17);
  for (int i = 0; i < 100000; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    const int d = decimals(rng);
    ASSERT_EQ(Fixed(v, d), Printf(v, d)) << "value " << v << " decimals " << d;
  }
}

TEST(FixedDecimal, AppendsToWhatIsThere) {
  std::string s = "x = ";
  AppendFixed(&s, 3.14159, 3);
  EXPECT_EQ(s, "x = 3.142");
}

}  // namespace
}  // namespace tessera
