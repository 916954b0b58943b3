// RESIZE, nearest mode only: every output element is one input element, and
// the source index of each axis depends on that axis alone. The index maps
// are computed once, at prepare time, by the reference kernel itself (a
// 1-D resize of 0, 1, ..., in−1 along each axis), so the fast path selects
// exactly what the oracle selects; the run is a byte gather. Linear mode
// goes to resize_linear_kernels.cc; cubic and tf_crop_and_resize
// (extrapolation) stay on the reference kernel.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fast/dnnl_plan.h"
#include "fast/kernel_preparers.h"
#include "fast/loop_op.h"
#include "kernel_util.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// Axis sizes the fast path takes, input and output alike: source indices
// travel as f32 (exact up to 2^24), and each output axis gets a map.
constexpr int64_t kMaxAxis = int64_t{1} << 24;

// Source index of every output position along `axis` (exact: the indices
// travel as f32, refused above kMaxAxis).
std::vector<int64_t> AxisMap(const Attributes& attrs, size_t axis, int64_t in, int64_t out) {
  Attributes one;
  for (int32_t key : {TSR_ATTR_RESIZE_MODE, TSR_ATTR_COORD_TRANSFORM, TSR_ATTR_NEAREST_MODE})
    if (attrs.Has(key)) one.SetInts(key, {attrs.GetInt(key, 0)});
  auto scales = attrs.GetFloats(TSR_ATTR_SCALES);
  if (!scales.empty()) one.SetFloats(TSR_ATTR_SCALES, {scales[axis]});
  std::vector<float> iota(static_cast<size_t>(in)), got(static_cast<size_t>(out));
  for (int64_t i = 0; i < in; ++i) iota[i] = static_cast<float>(i);
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {in};
  y.shape = {out};
  x.data = iota.data();
  y.data = got.data();
  const absl::Status s = RunReferenceOp(TSR_OP_RESIZE, one, {&x, 1}, {&y, 1});
  if (!s.ok()) Refuse(std::string(s.message()));
  std::vector<int64_t> map(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) map[o] = static_cast<int64_t>(got[o]);
  return map;
}

}  // namespace

std::unique_ptr<FastOp> PrepareResize(const Attributes& attrs, Ins ins, Outs outs) {
  if (ins.size() != 1 || outs.size() != 1) Refuse("RESIZE: arity");
  const TensorRef &x = ins[0], &y = outs[0];
  if (!IsFloatDType(x.dtype) || y.dtype != x.dtype) Refuse("RESIZE: dtype");
  if (!x.quant.scales.empty() || !y.quant.scales.empty()) Refuse("RESIZE: quantized");
  const int64_t mode = attrs.GetInt(TSR_ATTR_RESIZE_MODE, TSR_RESIZE_NEAREST);
  if (mode == TSR_RESIZE_LINEAR) return PrepareLinearResize(attrs, ins, outs);
  if (mode != TSR_RESIZE_NEAREST) Refuse("RESIZE: not nearest or linear");
  if (attrs.GetInt(TSR_ATTR_COORD_TRANSFORM, TSR_COORD_HALF_PIXEL) == TSR_COORD_TF_CROP_AND_RESIZE)
    Refuse("RESIZE: tf_crop_and_resize extrapolates");
  const size_t rank = x.shape.size();
  if (rank == 0 || y.shape.size() != rank) Refuse("RESIZE: rank");
  auto scales = attrs.GetFloats(TSR_ATTR_SCALES);
  if (!scales.empty() && scales.size() != rank) Refuse("RESIZE: scales");
  std::vector<std::vector<int64_t>> maps(rank);
  for (size_t d = 0; d < rank; ++d) {
    // The maps are built here, at load, before the host has allocated (or
    // budgeted) any output: an output axis is bounded like an input axis,
    // or a 25 KB bytecode could ask for a 17 GB map (fuzz finding 6).
    if (x.shape[d] < 1 || y.shape[d] < 1 || x.shape[d] > kMaxAxis || y.shape[d] > kMaxAxis) Refuse("RESIZE: axis size");
    maps[d] = AxisMap(attrs, d, x.shape[d], y.shape[d]);
  }
  const std::vector<int64_t> in_strides = tessera::cpu::RowMajorStrides(x.shape);
  const std::vector<int64_t> out_shape = y.shape;
  const size_t esize = DTypeSize(x.dtype);
  const int64_t total = y.element_count();
  return std::make_unique<LoopOp>("RESIZE", 1, 1, [=](auto in, auto out_ptrs) {
    const auto* src = static_cast<const char*>(in[0]);
    auto* dst = static_cast<char*>(out_ptrs[0]);
    std::vector<int64_t> idx(rank, 0);
    for (int64_t o = 0; o < total; ++o) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += maps[d][idx[d]] * in_strides[d];
      std::memcpy(dst + o * esize, src + off * esize, esize);
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < out_shape[d]) break;
        idx[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
