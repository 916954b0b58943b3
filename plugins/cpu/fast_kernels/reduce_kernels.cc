// REDUCE_MEAN / REDUCE_SUM / REDUCE_MAX on f32 as loops. The reduced axes
// are merged into one block, so the input is [outer, reduced, inner]:
// inner == 1 (the usual "last axes" case, e.g. a decomposed LayerNorm) is a
// row reduction per output (row_math.h); otherwise the reduced rows are
// accumulated column-wise, which vectorizes along `inner`. Sums are in f64
// and round once, as in the reference kernels; MAX propagates NaN.
//
// Not handled (the reference kernel runs): reduced axes that are not one
// contiguous block once size-1 dims are ignored, runtime axes tensors, and
// NOOP_WITH_EMPTY_AXES with no axes.
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "plugins/cpu/fast_kernels/row_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

TSR_VECTOR_CLONES void SumColumns(const float* x, int64_t rows, int64_t inner, double* acc) {
  for (int64_t i = 0; i < inner; ++i) acc[i] = 0;
  for (int64_t r = 0; r < rows; ++r, x += inner)
    for (int64_t i = 0; i < inner; ++i) acc[i] += x[i];
}

TSR_VECTOR_CLONES void MaxColumns(const float* x, int64_t rows, int64_t inner, float* y) {
  for (int64_t i = 0; i < inner; ++i) y[i] = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r, x += inner)
    for (int64_t i = 0; i < inner; ++i) y[i] = (x[i] != x[i] || x[i] > y[i]) ? x[i] : y[i];
}

}  // namespace

std::unique_ptr<FastOp> PrepareReduce(int32_t op, const Attributes& attrs, Ins ins, Outs outs) {
  if (ins.empty() || ins.size() > 2 || outs.size() != 1) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, ins.first(1));
  RequireF32(op, outs);
  std::vector<int64_t> axes(attrs.GetInts(TSR_ATTR_AXES).begin(), attrs.GetInts(TSR_ATTR_AXES).end());
  if (Present(ins, 1)) {
    if (ins[1].data == nullptr) Refuse(absl::StrCat(OpTypeName(op), ": axes given at run time"));
    axes.clear();
    for (double a : ConstantValues(ins[1])) axes.push_back(static_cast<int64_t>(a));
  }
  if (axes.empty() && attrs.GetInt(TSR_ATTR_NOOP_WITH_EMPTY_AXES, 0) != 0)
    Refuse(absl::StrCat(OpTypeName(op), ": no-op reduction"));
  const std::vector<int64_t>& shape = ins[0].shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || reduced[a]) Refuse(absl::StrCat(OpTypeName(op), ": axes"));
    reduced[a] = true;
  }
  std::vector<int64_t> out_shape;
  const bool keep = attrs.GetInt(TSR_ATTR_KEEP_DIMS, 1) != 0;
  // outer x block x inner, where block holds every reduced dim: a kept dim
  // (of size > 1) between two reduced ones does not fit.
  int64_t outer = 1, block = 1, inner = 1;
  int phase = 0;  // 0: before the reduced block, 1: in it, 2: after it
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      if (keep) out_shape.push_back(1);
    } else {
      out_shape.push_back(shape[d]);
    }
    if (shape[d] == 1) continue;
    if (reduced[d]) {
      if (phase == 2) Refuse(absl::StrCat(OpTypeName(op), ": reduced axes are not contiguous"));
      phase = 1;
      block *= shape[d];
    } else if (phase == 0) {
      outer *= shape[d];
    } else {
      phase = 2;
      inner *= shape[d];
    }
  }
  RequireOutputShape(op, outs[0], out_shape);
  const bool is_max = op == TSR_OP_REDUCE_MAX, is_mean = op == TSR_OP_REDUCE_MEAN;
  return std::make_unique<LoopOp>(OpTypeName(op), 1, 1, [=](auto in, auto out) {
    const auto* x = static_cast<const float*>(in[0]);
    auto* y = static_cast<float*>(out[0]);
    std::vector<double> acc(inner == 1 || is_max ? 0 : static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o, x += block * inner, y += inner) {
      if (is_max) {
        if (inner == 1)
          y[0] = MaxRow(x, block);
        else
          MaxColumns(x, block, inner, y);
      } else if (inner == 1) {
        const double s = SumRow(x, block);
        y[0] = static_cast<float>(is_mean ? s / static_cast<double>(block) : s);
      } else {
        SumColumns(x, block, inner, acc.data());
        for (int64_t i = 0; i < inner; ++i)
          y[i] = static_cast<float>(is_mean ? acc[i] / static_cast<double>(block) : acc[i]);
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
