#include "framework/core/base/fixed_decimal.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace tessera {
namespace {

// x * 10^decimals, rounded as printf rounds (to nearest, ties to even, on
// the exact binary value), as an integer; false when it does not fit. For
// up to 4 decimals the product is exact in x86's 64-bit long double
// mantissa: 10^d = 5^d * 2^d, whose significant bits are 5^d's (625 takes
// 10), and 53 + 10 <= 64. The integer and fractional parts of an exact
// product are exact too, so the tie test is exact.
bool ScaledRound(double x, int decimals, uint64_t* out) {
  static constexpr long double kTen[] = {1, 10, 100, 1000, 10000};
  if (decimals > 4 || std::numeric_limits<long double>::digits < 64) return false;
  const long double y = std::fabs(static_cast<long double>(x)) * kTen[decimals];
  if (!(y < 9.0e18L)) return false;
  uint64_t whole = static_cast<uint64_t>(y);
  const long double frac = y - static_cast<long double>(whole);
  if (frac > 0.5L || (frac == 0.5L && (whole & 1) != 0)) ++whole;
  *out = whole;
  return true;
}

}  // namespace

void AppendFixed(std::string* out, double value, int decimals) {
  char buf[352];  // any finite double at 17 decimals: 309 digits, the point, 17
  uint64_t scaled = 0;
  if (std::isfinite(value) && ScaledRound(value, decimals, &scaled)) {
    static constexpr uint64_t kTen[] = {1, 10, 100, 1000, 10000};
    char* end = buf + sizeof buf;
    char* p = end;
    uint64_t frac = scaled % kTen[decimals], whole = scaled / kTen[decimals];
    for (int i = 0; i < decimals; ++i, frac /= 10) *--p = static_cast<char>('0' + frac % 10);
    if (decimals > 0) *--p = '.';
    do {
      *--p = static_cast<char>('0' + whole % 10);
      whole /= 10;
    } while (whole != 0);
    if (std::signbit(value)) *--p = '-';  // printf writes -0.00 for -0.001 and -0.0
    out->append(p, end);
    return;
  }
  // NaN and infinities through snprintf, so their text stays printf's
  // (to_chars spells NaN's sign differently).
  if (!std::isfinite(value)) {
    const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  out->append(buf, r.ptr);
}

}  // namespace tessera
