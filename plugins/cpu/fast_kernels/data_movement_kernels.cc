// SLICE, SELECT and TRANSPOSE: exact copies (oneDNN reorders, or a direct
// loop where oneDNN has no primitive).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {

// SLICE (attribute form, positive steps) as a reorder from a strided view
// of the input: exact.
std::unique_ptr<FastOp> PrepareSlice(const dnnl::engine& engine, const Attributes& attrs,
                                     std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SLICE;
  if (ins.size() != 1 || outs.size() != 1) Refuse("SLICE: starts/ends given as inputs");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0 || x.data != nullptr) Refuse("SLICE: rank 0 or constant input");
  const auto starts = attrs.GetInts(TSR_ATTR_STARTS), ends = attrs.GetInts(TSR_ATTR_ENDS);
  std::vector<int64_t> axes(attrs.GetInts(TSR_ATTR_AXES).begin(), attrs.GetInts(TSR_ATTR_AXES).end());
  std::vector<int64_t> steps(attrs.GetInts(TSR_ATTR_STEPS).begin(), attrs.GetInts(TSR_ATTR_STEPS).end());
  const size_t n = starts.size();
  if (n == 0 || ends.size() != n) Refuse("SLICE: STARTS/ENDS");
  if (axes.empty())
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(n, 1);
  if (axes.size() != n || steps.size() != n) Refuse("SLICE: AXES/STEPS length");
  const Dims in_dims(x.shape.begin(), x.shape.end());
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims out_dims = in_dims, view_strides = in_strides;
  int64_t offset = 0;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (ax < 0 || ax >= rank || seen[ax]) Refuse("SLICE: axes");
    seen[ax] = true;
    const int64_t dim = in_dims[ax], st = steps[i];
    if (st <= 0) Refuse("SLICE: non-positive step");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    b = std::clamp<int64_t>(b, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    const int64_t count = e > b ? (e - b + st - 1) / st : 0;
    if (count == 0) Refuse("SLICE: empty");
    out_dims[ax] = count;
    view_strides[ax] = in_strides[ax] * st;
    offset += b * in_strides[ax];
  }
  RequireOutputShape(op, outs[0], {out_dims.begin(), out_dims.end()});
  memory::desc view(out_dims, memory::data_type::f32, view_strides);
  view.data.offset0 = offset;
  const dnnl::reorder::primitive_desc pd(engine, view, engine, Plain(out_dims));
  auto plan = std::make_unique<PlanOp>("SLICE", engine);
  plan->AddStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, plan->AddSlot(SlotKind::kInput, 0, view)},
                                    {DNNL_ARG_TO, plan->AddSlot(SlotKind::kOutput, 0, Plain(out_dims))}});
  return plan;
}

// SELECT (f32 values, bool condition, numpy broadcasting): oneDNN 2.6 has
// no select primitive, and this is a pure memory-bound copy, so a direct
// loop over the rows of the broadcast walk (loop_op.h). Exact.
std::unique_ptr<FastOp> PrepareSelect(std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SELECT;
  if (ins.size() != 3 || outs.size() != 1) Refuse("SELECT: arity");
  if (ins[0].dtype != TSR_DTYPE_BOOL) Refuse("SELECT: condition dtype");
  if (ins[0].quant.quantized()) Refuse("SELECT: quantized");
  for (int64_t d : ins[0].shape)
    if (d <= 0) Refuse("SELECT: empty tensor");
  RequireF32(op, ins.subspan(1));
  RequireF32(op, outs);
  size_t r = 0;
  for (const TensorRef& t : ins) r = std::max(r, t.shape.size());
  if (r == 0) Refuse("SELECT: scalars");
  const std::vector<int64_t> shapes[3] = {ins[0].shape, ins[1].shape, ins[2].shape};
  auto walk = std::make_shared<const BroadcastWalk>(shapes);
  if (!walk->ok()) Refuse("SELECT: shapes do not broadcast");
  RequireOutputShape(op, outs[0], walk->out_shape());
  const int64_t cs = walk->row_stride(0), xs = walk->row_stride(1), ys = walk->row_stride(2), len = walk->row_length();
  return std::make_unique<LoopOp>("SELECT", 3, 1, [=](auto in, auto out) {
    const auto* c = static_cast<const uint8_t*>(in[0]);
    const auto* x = static_cast<const float*>(in[1]);
    const auto* y = static_cast<const float*>(in[2]);
    auto* dst = static_cast<float*>(out[0]);
    walk->ForEachRow([&](int64_t o, const int64_t* off) {
      const uint8_t* cr = c + off[0];
      const float *xr = x + off[1], *yr = y + off[2];
      for (int64_t j = 0; j < len; ++j) dst[o + j] = cr[j * cs] ? xr[j * xs] : yr[j * ys];
    });
    return absl::OkStatus();
  });
}

// TRANSPOSE as a reorder: the input is described in the output's dim order
// with permuted strides, and copied into the plain output. Exact.
std::unique_ptr<FastOp> PrepareTranspose(const dnnl::engine& engine, const Attributes& attrs,
                                         std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_TRANSPOSE;
  if (ins.size() != 1 || outs.size() != 1) Refuse("TRANSPOSE: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const size_t r = x.shape.size();
  if (r == 0 || x.data != nullptr) Refuse("TRANSPOSE: rank 0 or constant input");
  std::vector<int64_t> perm(attrs.GetInts(TSR_ATTR_PERM).begin(), attrs.GetInts(TSR_ATTR_PERM).end());
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) Refuse("TRANSPOSE: PERM length");
  std::vector<bool> seen(r, false);
  for (int64_t& p : perm) {
    if (p < 0) p += static_cast<int64_t>(r);
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[p]) Refuse("TRANSPOSE: PERM is not a permutation");
    seen[p] = true;
  }
  const Dims in_dims(x.shape.begin(), x.shape.end());
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims out_dims(r), view_strides(r);
  for (size_t i = 0; i < r; ++i) {
    out_dims[i] = in_dims[perm[i]];
    view_strides[i] = in_strides[perm[i]];
  }
  RequireOutputShape(op, outs[0], {out_dims.begin(), out_dims.end()});
  const memory::desc view(out_dims, memory::data_type::f32, view_strides);
  const dnnl::reorder::primitive_desc pd(engine, view, engine, Plain(out_dims));
  auto plan = std::make_unique<PlanOp>("TRANSPOSE", engine);
  plan->AddStep(dnnl::reorder(pd), {{DNNL_ARG_FROM, plan->AddSlot(SlotKind::kInput, 0, view)},
                                    {DNNL_ARG_TO, plan->AddSlot(SlotKind::kOutput, 0, Plain(out_dims))}});
  return plan;
}

}  // namespace tessera::cpu::fast::detail
