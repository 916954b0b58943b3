#include "framework/app/nonfinite_scan.h"

#include <cstring>

namespace tessera::app {

NonFiniteCount CountNonFinite(int32_t dtype, std::span<const uint8_t> bytes) {
  NonFiniteCount n;
  if (dtype == TSR_DTYPE_F32) {
    // All-ones exponent: an infinity when the mantissa is 0, else a NaN.
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      uint32_t bits;
      std::memcpy(&bits, bytes.data() + i, 4);
      if ((bits & 0x7f800000u) != 0x7f800000u) continue;
      ((bits & 0x007fffffu) != 0 ? n.nan : n.inf) += 1;
    }
  } else if (dtype == TSR_DTYPE_F16) {
    for (size_t i = 0; i + 2 <= bytes.size(); i += 2) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + i, 2);
      if ((bits & 0x7c00u) != 0x7c00u) continue;
      ((bits & 0x03ffu) != 0 ? n.nan : n.inf) += 1;
    }
  }
  return n;
}

void ScanNonFinite(const tessera::Graph& graph, const std::vector<std::span<const uint8_t>>& inputs,
                   const std::vector<std::span<uint8_t>>& outputs, RunProfile* profile) {
  profile->nonfinite_checked = true;
  profile->inputs_finite = true;
  profile->nonfinite_outputs.clear();
  for (size_t i = 0; i < inputs.size() && i < graph.inputs.size(); ++i)
    if (CountNonFinite(graph.tensors[graph.inputs[i]].dtype, inputs[i]).any()) profile->inputs_finite = false;
  for (size_t i = 0; i < outputs.size() && i < graph.outputs.size(); ++i) {
    const tessera::Tensor& t = graph.tensors[graph.outputs[i]];
    const NonFiniteCount n = CountNonFinite(t.dtype, outputs[i]);
    if (n.any()) profile->nonfinite_outputs.push_back({i, t.name, n.nan, n.inf});
  }
}

}  // namespace tessera::app
