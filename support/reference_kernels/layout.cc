// Layout ops that move bytes, for every dtype: RESHAPE / SQUEEZE /
// UNSQUEEZE (plain copy), TRANSPOSE, CONCAT, GATHER. Quant params are not
// looked at (the output is expected to carry the same ones).
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

// Input 0 present with a known dtype; output dtype equal to it.
absl::Status CheckMoveTypes(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                            size_t min_in, size_t max_in) {
  absl::Status s = CheckArity(op, inputs, outputs, min_in, max_in, 1);
  if (s.ok()) s = CheckPresent(op, inputs, 0);
  if (!s.ok()) return s;
  if (!IsKnownDType(inputs[0].dtype)) return UnsupportedDType(op, inputs[0].dtype);
  if (outputs[0].dtype != inputs[0].dtype)
    return OpError(op,
                   absl::StrCat("output dtype ", DTypeName(outputs[0].dtype), " must be ", DTypeName(inputs[0].dtype)));
  return absl::OkStatus();
}

}  // namespace

// ---- RESHAPE / SQUEEZE / UNSQUEEZE -----------------------------------------

absl::Status CheckReshape(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  // Inputs after the first (shape / axes tensors) are ignored.
  return CheckMoveTypes(op, inputs, outputs, 1, SIZE_MAX);
}

absl::Status RunReshape(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                        std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckData(op, x, "input 0");
  if (s.ok()) s = CheckData(op, y, "output 0");
  if (!s.ok()) return s;
  if (x.element_count() != y.element_count())
    return OpError(op, absl::StrCat("output shape ", ShapeStr(y.shape),
                                    " has a different element count than "
                                    "input shape ",
                                    ShapeStr(x.shape)));
  if (x.byte_size() && x.data != y.data) std::memmove(y.data, x.data, x.byte_size());
  return absl::OkStatus();
}

// ---- TRANSPOSE -------------------------------------------------------------

absl::Status CheckTranspose(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  return CheckMoveTypes(op, inputs, outputs, 1, 1);
}

absl::Status RunTranspose(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                          std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> perm(attrs.GetInts(TSR_ATTR_PERM).begin(), attrs.GetInts(TSR_ATTR_PERM).end());
  if (perm.empty()) {
    perm.resize(rank);
    for (int64_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
  }
  if (static_cast<int64_t>(perm.size()) != rank)
    return OpError(op, absl::StrCat("PERM has ", perm.size(), " entries for rank ", rank));
  std::vector<bool> seen(rank, false);
  for (int64_t& p : perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[p]) return OpError(op, "PERM is not a permutation");
    seen[p] = true;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape);
  Shape out(rank), strides(rank);
  for (int64_t d = 0; d < rank; ++d) {
    out[d] = x.shape[perm[d]];
    strides[d] = in_strides[perm[d]];
  }
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const size_t es = DTypeSize(x.dtype);
  ForEachStrided(out, 0, strides, [&](int64_t o, int64_t i) { CopyElement(y, o, x, i, es); });
  return absl::OkStatus();
}

// ---- CONCAT ----------------------------------------------------------------

absl::Status CheckConcat(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckMoveTypes(op, inputs, outputs, 1, SIZE_MAX);
  if (!s.ok()) return s;
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].dtype != inputs[0].dtype)
      return OpError(op, absl::StrCat("input ", i, " dtype ", DTypeName(inputs[i].dtype), " must be ",
                                      DTypeName(inputs[0].dtype)));
  }
  return absl::OkStatus();
}

absl::Status RunConcat(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef& y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const Shape& s0 = inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s0.size());
  if (rank == 0) return OpError(op, "inputs must have rank >= 1");
  auto axis = NormalizeAxis(op, attrs.GetInt(TSR_ATTR_AXIS, 0), rank);
  if (!axis.ok()) return axis.status();
  Shape out = s0;
  out[*axis] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& si = inputs[i].shape;
    bool ok = si.size() == s0.size();
    for (int64_t d = 0; ok && d < rank; ++d) ok = d == *axis || si[d] == s0[d];
    if (!ok)
      return OpError(op, absl::StrCat("input ", i, " shape ", ShapeStr(si), " does not match input 0 shape ",
                                      ShapeStr(s0), " off axis ", *axis));
    out[*axis] += si[*axis];
  }
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const size_t es = DTypeSize(y.dtype);
  const int64_t outer = ShapeElements(std::span(out).first(*axis));
  const int64_t inner = ShapeElements(std::span(out).subspan(*axis + 1));
  char* dst = static_cast<char*>(y.data);
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorRef& t : inputs) {
      const size_t chunk = static_cast<size_t>(t.shape[*axis] * inner) * es;
      if (chunk == 0) continue;
      std::memcpy(dst, static_cast<const char*>(t.data) + o * chunk, chunk);
      dst += chunk;
    }
  }
  return absl::OkStatus();
}

// ---- GATHER ----------------------------------------------------------------

absl::Status CheckGather(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckMoveTypes(op, inputs, outputs, 2, 2);
  if (s.ok()) s = CheckPresent(op, inputs, 1);
  if (!s.ok()) return s;
  if (inputs[1].dtype != TSR_DTYPE_I32 && inputs[1].dtype != TSR_DTYPE_I64)
    return UnsupportedDType(op, inputs[1].dtype, "indices ");
  return absl::OkStatus();
}

absl::Status RunGather(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &ind = inputs[1], &y = outputs[0];
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) return OpError(op, "data must have rank >= 1");
  auto axis = NormalizeAxis(op, attrs.GetInt(TSR_ATTR_AXIS, 0), rank);
  if (!axis.ok()) return axis.status();
  Shape out(x.shape.begin(), x.shape.begin() + *axis);
  out.insert(out.end(), ind.shape.begin(), ind.shape.end());
  out.insert(out.end(), x.shape.begin() + *axis + 1, x.shape.end());
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  const int64_t dim = x.shape[*axis];
  const int64_t outer = ShapeElements(std::span(x.shape).first(*axis));
  const int64_t inner = ShapeElements(std::span(x.shape).subspan(*axis + 1));
  const int64_t n_ind = ind.element_count();
  std::vector<int64_t> idx(n_ind);
  for (int64_t i = 0; i < n_ind; ++i) {
    int64_t v = LoadInt(ind, i);
    if (v < -dim || v >= dim)
      return OpError(op, absl::StrCat("index ", v, " out of range for axis ", *axis, " of size ", dim));
    idx[i] = v < 0 ? v + dim : v;
  }
  const size_t es = DTypeSize(x.dtype);
  const size_t block = static_cast<size_t>(inner) * es;
  if (block == 0) return absl::OkStatus();
  char* dst = static_cast<char*>(y.data);
  const char* src = static_cast<const char*>(x.data);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < n_ind; ++i) {
      std::memcpy(dst, src + (o * dim + idx[i]) * block, block);
      dst += block;
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
