#include "plugins/systolic_npu/machine/int8_tables.h"

#include <cmath>

#include "plugins/systolic_npu/machine/quant.h"

namespace tessera::systolic {
namespace {

// The cpu reference's f64 evaluation (support/reference_kernels/unary.cc), which
// the core cannot link: the same expressions, so the same libm results.
double Evaluate(Int8Function f, double x) {
  switch (f) {
    case Int8Function::kSigmoid:
      if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
      return std::exp(x) / (1.0 + std::exp(x));
    case Int8Function::kTanh:
      return std::tanh(x);
    case Int8Function::kExp:
      return std::exp(x);
  }
  return 0;
}

template <typename Fn>
Int8Table Tabulate(float in_scale, int32_t in_zero_point, float out_scale, int32_t out_zero_point, Fn real_result) {
  Int8Table t{};
  for (int q = -128; q < 128; ++q) {
    const float x = DequantizeInt8(static_cast<int8_t>(q), in_scale, in_zero_point);
    t[q + 128] = QuantizeToInt8(real_result(x), out_scale, out_zero_point);
  }
  return t;
}

}  // namespace

Int8Table Int8FunctionTable(Int8Function f, float in_scale, int32_t in_zero_point, float out_scale,
                            int32_t out_zero_point) {
  return Tabulate(in_scale, in_zero_point, out_scale, out_zero_point,
                  [f](float x) { return static_cast<float>(Evaluate(f, x)); });
}

Int8Table Int8DivisionTable(float in_scale, int32_t in_zero_point, float divisor, float out_scale,
                            int32_t out_zero_point) {
  return Tabulate(in_scale, in_zero_point, out_scale, out_zero_point, [divisor](float x) { return x / divisor; });
}

}  // namespace tessera::systolic
