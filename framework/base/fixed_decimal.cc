#include "base/fixed_decimal.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tessera {

void AppendFixed(std::string* out, double value, int decimals) {
  // to_chars writes "inf" and "nan" without printf's sign conventions for
  // NaN; those two, rare, go through snprintf so the text stays printf's.
  // 330 characters hold any finite double at 17 decimals.
  char buf[352];
  if (!std::isfinite(value)) {
    const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  out->append(buf, r.ptr);
}

}  // namespace tessera
