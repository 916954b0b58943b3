// PAD (CONSTANT, EDGE and REFLECT, negative pads cropping) on f32 as a
// loop: the source index of every output coordinate is worked out per axis
// once, at prepare, so a run is one pass over the output rows (the
// reference kernel maps every element through all axes on every run).
// Pads, axes and the constant value come from attributes or constant
// inputs; given at run time, the reference kernel runs. Exact.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

std::vector<int64_t> ConstantInts(Ins ins, size_t i, const char* what) {
  if (ins[i].data == nullptr) Refuse(absl::StrCat("PAD: ", what, " given at run time"));
  std::vector<int64_t> v;
  for (double d : ConstantValues(ins[i])) v.push_back(static_cast<int64_t>(d));
  return v;
}

// Source index along one axis of size n for output index o (-1: the
// constant), as the reference kernel defines the modes.
int64_t SourceIndex(int64_t o, int64_t before, int64_t n, int64_t mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == TSR_PAD_CONSTANT) return -1;
  if (mode == TSR_PAD_EDGE) return std::clamp<int64_t>(i, 0, n - 1);
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);  // REFLECT
  i %= period;
  if (i < 0) i += period;
  return i >= n ? period - i : i;
}

}  // namespace

std::unique_ptr<FastOp> PreparePad(const Attributes& attrs, Ins ins, Outs outs) {
  const int32_t op = TSR_OP_PAD;
  if (ins.empty() || ins.size() > 4 || outs.size() != 1) Refuse("PAD: arity");
  RequireF32(op, ins.first(1));
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) Refuse("PAD: rank 0");
  std::vector<int64_t> pads(attrs.GetInts(TSR_ATTR_PADS).begin(), attrs.GetInts(TSR_ATTR_PADS).end());
  if (Present(ins, 1)) pads = ConstantInts(ins, 1, "pads");
  std::vector<int64_t> axes;
  if (Present(ins, 3)) {
    axes = ConstantInts(ins, 3, "axes");
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) Refuse("PAD: PADS length");
  std::vector<int64_t> before(rank, 0), after(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank) Refuse("PAD: axis");
    before[a] = pads[i];
    after[a] = pads[axes.size() + i];
  }
  const int64_t mode = attrs.GetInt(TSR_ATTR_PAD_MODE, TSR_PAD_CONSTANT);
  if (mode != TSR_PAD_CONSTANT && mode != TSR_PAD_REFLECT && mode != TSR_PAD_EDGE) Refuse("PAD: mode");
  float value = attrs.GetFloat(TSR_ATTR_PAD_VALUE, 0.0f);
  if (Present(ins, 2)) {
    RequireF32(op, ins.subspan(2, 1));
    const std::vector<double> v = ConstantValues(ins[2]);
    if (v.size() != 1) Refuse("PAD: constant value is not a constant scalar");
    value = static_cast<float>(v[0]);
  }
  std::vector<int64_t> out(rank);
  for (int64_t d = 0; d < rank; ++d) {
    out[d] = x.shape[d] + before[d] + after[d];
    if (out[d] <= 0) Refuse("PAD: empty output");
  }
  RequireOutputShape(op, outs[0], out);
  // Per axis: source index per output index; per axis the input stride.
  std::vector<std::vector<int64_t>> src(rank);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t o = 0; o < out[d]; ++o) src[d].push_back(SourceIndex(o, before[d], x.shape[d], mode));
  const Dims strides = RowMajorStrides(Dims(x.shape.begin(), x.shape.end()));
  const int64_t len = out[rank - 1];
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= out[d];
  return std::make_unique<LoopOp>("PAD", 1, 1, [=](auto in, auto out_ptrs) {
    const auto* px = static_cast<const float*>(in[0]);
    auto* y = static_cast<float*>(out_ptrs[0]);
    const std::vector<int64_t>& last = src[rank - 1];
    std::vector<int64_t> idx(rank, 0);
    for (int64_t r = 0; r < rows; ++r, y += len) {
      int64_t base = 0;
      bool constant_row = false;
      for (int64_t d = 0; d + 1 < rank; ++d) {
        const int64_t i = src[d][idx[d]];
        constant_row = constant_row || i < 0;
        base += i * strides[d];
      }
      if (constant_row) {
        std::fill(y, y + len, value);
      } else {
        const float* row = px + base;
        for (int64_t j = 0; j < len; ++j) y[j] = last[j] < 0 ? value : row[last[j]];
      }
      for (int64_t d = rank - 1; d-- > 0;) {  // odometer over the outer dims
        if (++idx[d] < out[d]) break;
        idx[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
