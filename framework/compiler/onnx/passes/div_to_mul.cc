#include "framework/compiler/onnx/passes/div_to_mul.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/passes/graph_edit.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

// The reciprocals of `c`, or nullopt when one would not be a normal number
// of `dtype` (then x * (1/c) is not within an ulp or two of x / c).
std::optional<std::vector<double>> Reciprocals(const std::vector<double>& c, int32_t dtype) {
  const double smallest = dtype == TSR_DTYPE_F16 ? 6.103515625e-05 : std::numeric_limits<float>::min();
  const double largest = dtype == TSR_DTYPE_F16 ? 65504.0 : std::numeric_limits<float>::max();
  std::vector<double> r;
  r.reserve(c.size());
  for (double v : c) {
    if (!std::isfinite(v) || v == 0) return std::nullopt;
    const double inv = 1.0 / v;
    if (std::fabs(inv) < smallest || std::fabs(inv) > largest) return std::nullopt;
    r.push_back(inv);
  }
  return r;
}

}  // namespace

int64_t DivToMul(Graph& graph) {
  MadeConstants made;  // one reciprocal per divisor, however many divide by it
  int64_t changed = 0;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    ++ImportPassWork();
    if (graph.ops[i].type != TSR_OP_DIV || graph.ops[i].inputs.size() != 2 || graph.ops[i].outputs.size() != 1)
      continue;
    const int32_t x = graph.ops[i].inputs[0], c = graph.ops[i].inputs[1];
    if (x < 0 || c < 0) continue;
    const Tensor& divisor = graph.tensors[c];
    const Tensor& out = graph.tensors[graph.ops[i].outputs[0]];
    if (!IsFloatDType(out.dtype) || out.quant.quantized() || graph.tensors[x].quant.quantized() ||
        divisor.dtype != out.dtype)
      continue;
    const std::optional<std::vector<double>> values = FloatConstant(graph, c);
    if (!values) continue;
    const std::optional<std::vector<double>> inverse = Reciprocals(*values, divisor.dtype);
    if (!inverse) continue;
    // A new constant: `c` may be read by other ops.
    const int32_t dtype = divisor.dtype;
    std::vector<int64_t> shape = divisor.shape;
    const int32_t r = made.Make(graph, c, absl::StrCat(divisor.name, "/reciprocal"), dtype, std::move(shape), *inverse);
    graph.ops[i].type = TSR_OP_MUL;
    graph.ops[i].inputs[1] = r;
    ++changed;
  }
  return changed;
}

}  // namespace tessera::onnx_import
