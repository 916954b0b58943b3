// Appends a double with a fixed number of decimals, exactly as printf's
// "%.Nf" writes it (the exact binary value rounded to nearest, ties to
// even), without a format string. Up to 4 decimals it scales and rounds in
// integers (about 10 ns); otherwise std::to_chars (about 70 ns), which
// rounds the same way; snprintf took about 250 ns.
//
// Why: the cost policy writes a refusal detail for every partition it gives
// back, five figures each. On a million-op graph that alternates vendors it
// gives back half a million partitions: 2.5 million figures.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_FIXED_DECIMAL_H_
#define TESSERA_FRAMEWORK_CORE_BASE_FIXED_DECIMAL_H_

#include <string>

namespace tessera {

// "%.{decimals}f" of `value` appended to *out; decimals in [0, 17].
void AppendFixed(std::string* out, double value, int decimals);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_FIXED_DECIMAL_H_
