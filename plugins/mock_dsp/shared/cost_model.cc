#include "plugins/mock_dsp/shared/cost_model.h"

#include <algorithm>

#include "plugins/mock_dsp/shared/op_support.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

uint64_t Elements(const kit::GraphSnapshot& g, int32_t t) {
  if (t < 0) return 0;
  const int64_t n = kit::ElementCount(g.tensors[t].shape);
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

}  // namespace

uint64_t OpCycles(const DspSoc& soc, const kit::GraphSnapshot& g, const kit::SnapshotOp& op) {
  if (op.outputs.empty() || op.inputs.empty() || soc.vector_lanes <= 0) return 0;
  const uint64_t lanes = static_cast<uint64_t>(soc.vector_lanes);
  auto vectors = [&](uint64_t elements) { return (elements + lanes - 1) / lanes; };
  const uint64_t out_vectors = vectors(Elements(g, op.outputs[0]));
  const uint64_t in_vectors = vectors(Elements(g, op.inputs[0]));
  const uint64_t tc = static_cast<uint64_t>(soc.transcendental_cycles);
  switch (ClassOf(op.type)) {
    case OpClass::kSimple:
    case OpClass::kCompare:
    case OpClass::kSelect:
    case OpClass::kLayout:
      return std::max<uint64_t>(out_vectors, 1);
    case OpClass::kTranscendental:
      return std::max<uint64_t>(out_vectors, 1) * tc;
    case OpClass::kReduce:
      return std::max<uint64_t>(in_vectors, 1);
    // max pass, exp, sum pass, scale pass.
    case OpClass::kSoftmax:
      return std::max<uint64_t>(in_vectors, 1) * (tc + 3);
    // mean pass, variance pass, normalize, scale + bias; the per-row rsqrt
    // runs on one vector of row statistics.
    case OpClass::kLayerNorm:
      return std::max<uint64_t>(in_vectors, 1) * 4 + tc;
    case OpClass::kNone:
      break;
  }
  return 0;
}

double CyclesToMicroseconds(const DspSoc& soc, uint64_t cycles) {
  return soc.clock_mhz > 0 ? static_cast<double>(cycles) / soc.clock_mhz : -1.0;
}

}  // namespace tessera::mock_dsp
