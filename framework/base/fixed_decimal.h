// Appends a double with a fixed number of decimals, as printf's "%.Nf"
// writes it (the same digits: std::to_chars rounds the exact binary value,
// as glibc's printf does), without a format string.
//
// Why: the cost policy writes a refusal detail for every partition it gives
// back, five figures each. On a million-op graph that alternates vendors it
// gives back half a million partitions, and absl::StrFormat's "%.2f" was
// most of the time of that step.
#ifndef TESSERA_FRAMEWORK_BASE_FIXED_DECIMAL_H_
#define TESSERA_FRAMEWORK_BASE_FIXED_DECIMAL_H_

#include <string>

namespace tessera {

// "%.{decimals}f" of `value` appended to *out; decimals in [0, 17].
void AppendFixed(std::string* out, double value, int decimals);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_BASE_FIXED_DECIMAL_H_
