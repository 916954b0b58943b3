#include "plugins/systolic_npu/machine/vector_softmax.h"

#include <cmath>
#include <limits>
#include <vector>

#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/element_access.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/lookup_tables.h"

namespace tessera::systolic {

uint64_t SoftmaxCycles(uint64_t rows, uint64_t cols, uint64_t lanes) {
  uint64_t fold = 0;  // ceil(log2 lanes): the steps of a lane reduction tree
  while ((uint64_t{1} << fold) < lanes) ++fold;
  const uint64_t passes = (cols + lanes - 1) / lanes;
  return kVectorPipelineDepth + rows * (3 * passes + 2 * fold + 1);
}

void ExecuteSoftmaxRows(int32_t dtype, uint64_t rows, uint64_t cols, const uint8_t* src, uint8_t* dst) {
  const size_t es = NpuDtypeSize(dtype);
  thread_local std::vector<float> e;
  e.resize(cols);
  for (uint64_t r = 0; r < rows; ++r) {
    const uint8_t* x = src + r * cols * es;
    float m = -std::numeric_limits<float>::infinity();
    bool nan = false;
    for (uint64_t c = 0; c < cols; ++c) {
      const float v = LoadFloat(x + c * es, dtype);
      nan = nan || std::isnan(v);
      if (v > m) m = v;
    }
    if (nan) m = std::numeric_limits<float>::quiet_NaN();
    float s = 0;
    for (uint64_t c = 0; c < cols; ++c) {
      e[c] = LutExp(LoadFloat(x + c * es, dtype) - m);
      s += e[c];
    }
    const float inv = 1.0f / s;
    uint8_t* y = dst + r * cols * es;
    for (uint64_t c = 0; c < cols; ++c) StoreFloat(y + c * es, dtype, e[c] * inv);
  }
}

}  // namespace tessera::systolic
