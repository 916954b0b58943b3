// The byte-moving layout ops, for every dtype (they never look at values):
// RESHAPE / SQUEEZE / UNSQUEEZE (one copy), CONCAT (one copy per input and
// outer index) and GATHER (one copy per outer index and index). Exact.
// The reference kernels do the same copies but re-derive and re-check the
// geometry on every run; here it is done once, at prepare.
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "support/reference_kernels/kernel_util.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// Known dtype, not empty, output dtype equal to input 0's. Quant params are
// carried by the tensors, not the bytes: nothing to check.
void RequireSameKnownDType(int32_t op, Ins ins, Outs outs) {
  if (ins.empty() || outs.size() != 1) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  if (!IsKnownDType(ins[0].dtype) || ins[0].dtype == TSR_DTYPE_UNKNOWN) Refuse(absl::StrCat(OpTypeName(op), ": dtype"));
  if (outs[0].dtype != ins[0].dtype) Refuse(absl::StrCat(OpTypeName(op), ": output dtype"));
  if (ins[0].element_count() == 0) Refuse(absl::StrCat(OpTypeName(op), ": empty tensor"));
}

}  // namespace

std::unique_ptr<FastOp> PrepareReshape(int32_t op, Ins ins, Outs outs) {
  RequireSameKnownDType(op, ins, outs);
  if (outs[0].element_count() != ins[0].element_count()) Refuse(absl::StrCat(OpTypeName(op), ": element count"));
  const size_t bytes = ins[0].byte_size();
  return std::make_unique<LoopOp>(OpTypeName(op), 1, 1, [=](auto in, auto out) {
    if (in[0] != out[0]) std::memmove(out[0], in[0], bytes);
    return absl::OkStatus();
  });
}

std::unique_ptr<FastOp> PrepareConcat(const Attributes& attrs, Ins ins, Outs outs) {
  const int32_t op = TSR_OP_CONCAT;
  RequireSameKnownDType(op, ins, outs);
  const std::vector<int64_t>& s0 = ins[0].shape;
  const int64_t rank = static_cast<int64_t>(s0.size());
  if (rank == 0) Refuse("CONCAT: rank 0");
  int64_t axis = attrs.GetInt(TSR_ATTR_AXIS, 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) Refuse("CONCAT: axis");
  std::vector<int64_t> out = s0;
  out[axis] = 0;
  for (const TensorRef& t : ins) {
    if (t.dtype != ins[0].dtype || t.shape.size() != s0.size()) Refuse("CONCAT: inputs differ in dtype or rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t.shape[d] != s0[d]) Refuse("CONCAT: shapes differ off the axis");
    out[axis] += t.shape[axis];
  }
  RequireOutputShape(op, outs[0], out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= out[d];
  const size_t es = DTypeSize(ins[0].dtype);
  std::vector<size_t> chunk;  // bytes per outer index, per input
  for (const TensorRef& t : ins) chunk.push_back(static_cast<size_t>(t.shape[axis] * inner) * es);
  return std::make_unique<LoopOp>("CONCAT", ins.size(), 1, [=](auto in, auto out_ptrs) {
    auto* dst = static_cast<char*>(out_ptrs[0]);
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < chunk.size(); ++i) {
        if (chunk[i] == 0) continue;
        std::memcpy(dst, static_cast<const char*>(in[i]) + o * chunk[i], chunk[i]);
        dst += chunk[i];
      }
    return absl::OkStatus();
  });
}

// GATHER along one axis; indices (i32/i64) may be constant or computed at
// run time, so they are range-checked on every run (an out-of-range index
// is the reference kernel's error too), all of them before any output is
// written, and then read again while copying rather than kept: a run
// allocates nothing.
std::unique_ptr<FastOp> PrepareGather(const Attributes& attrs, Ins ins, Outs outs) {
  const int32_t op = TSR_OP_GATHER;
  RequireSameKnownDType(op, ins, outs);
  if (ins.size() != 2) Refuse("GATHER: arity");
  const TensorRef &x = ins[0], &ind = ins[1];
  if (ind.dtype != TSR_DTYPE_I32 && ind.dtype != TSR_DTYPE_I64) Refuse("GATHER: index dtype");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) Refuse("GATHER: rank 0");
  int64_t axis = attrs.GetInt(TSR_ATTR_AXIS, 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) Refuse("GATHER: axis");
  std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), ind.shape.begin(), ind.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  RequireOutputShape(op, outs[0], out);
  const int64_t dim = x.shape[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t count = ind.element_count();
  const size_t block = static_cast<size_t>(inner) * DTypeSize(x.dtype);
  const bool wide = ind.dtype == TSR_DTYPE_I64;
  return std::make_unique<LoopOp>("GATHER", 2, 1, [=](auto in, auto out_ptrs) {
    auto index = [&](int64_t i) -> int64_t {
      return wide ? static_cast<const int64_t*>(in[1])[i] : static_cast<const int32_t*>(in[1])[i];
    };
    for (int64_t i = 0; i < count; ++i) {
      const int64_t v = index(i);
      if (v < -dim || v >= dim)
        return absl::InvalidArgumentError(
            absl::StrCat("GATHER: index ", v, " out of range for axis ", axis, " of size ", dim));
    }
    const auto* src = static_cast<const char*>(in[0]);
    auto* dst = static_cast<char*>(out_ptrs[0]);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < count; ++i, dst += block) {
        const int64_t v = index(i);
        std::memcpy(dst, src + (o * dim + (v < 0 ? v + dim : v)) * block, block);
      }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
