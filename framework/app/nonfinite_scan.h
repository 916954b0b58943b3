// Whether a run's outputs hold a NaN or an infinity, and whether its
// inputs were all finite (RunProfile::nonfinite_outputs, inputs_finite): a
// non-finite output from finite inputs is something the model or an
// accelerator made, which the app must hear of (docs/app-guide.md).
#ifndef TESSERA_FRAMEWORK_APP_NONFINITE_SCAN_H_
#define TESSERA_FRAMEWORK_APP_NONFINITE_SCAN_H_

#include <cstdint>
#include <span>
#include <vector>

#include "framework/core/graph/graph.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

struct NonFiniteCount {
  uint64_t nan = 0, inf = 0;
  bool any() const { return nan + inf > 0; }
};

// The NaNs and infinities among `bytes` read as `dtype` (F32, F16; other
// dtypes have none).
NonFiniteCount CountNonFinite(int32_t dtype, std::span<const uint8_t> bytes);

// Fills profile->nonfinite_outputs, inputs_finite and nonfinite_checked
// from the run's views of `graph`'s inputs and outputs.
void ScanNonFinite(const tessera::Graph& graph, const std::vector<std::span<const uint8_t>>& inputs,
                   const std::vector<std::span<uint8_t>>& outputs, RunProfile* profile);

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_NONFINITE_SCAN_H_
