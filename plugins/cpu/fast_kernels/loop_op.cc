#include "plugins/cpu/fast_kernels/loop_op.h"

#include <algorithm>

#include "support/reference_kernels/kernel_util.h"

namespace tessera::cpu::fast::detail {

BroadcastWalk::BroadcastWalk(std::span<const std::vector<int64_t>> shapes) {
  size_t r = 1;  // a scalar walks as one row of one element
  for (const auto& s : shapes) r = std::max(r, s.size());
  std::vector<std::vector<int64_t>> padded;
  out_shape_.assign(r, 1);
  for (const auto& s : shapes) {
    std::vector<int64_t> p(r - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    for (size_t i = 0; i < r; ++i) {
      if (p[i] != 1 && out_shape_[i] != 1 && p[i] != out_shape_[i]) return;
      out_shape_[i] = std::max(out_shape_[i], p[i]);
    }
    padded.push_back(std::move(p));
  }
  size_t max_rank = 0;
  for (const auto& s : shapes) max_rank = std::max(max_rank, s.size());
  // The uncollapsed output shape keeps the inputs' rank (rank 0 for scalars).
  const std::vector<int64_t> full = out_shape_;
  out_shape_.erase(out_shape_.begin(), out_shape_.begin() + static_cast<int64_t>(r - max_rank));

  // Per input: element strides, 0 along broadcast dims.
  std::vector<std::vector<int64_t>> strides;
  for (const auto& p : padded) {
    std::vector<int64_t> st(r, 0);
    int64_t acc = 1;
    for (size_t i = r; i-- > 0;) {
      st[i] = p[i] == 1 ? 0 : acc;
      acc *= p[i];
    }
    strides.push_back(std::move(st));
  }
  // Merge dim i into the current innermost merged dim j when, for every
  // input, stride[i] == stride[j] * dim[j] (contiguous across both) or both
  // strides are 0 (broadcast along both). Size-1 dims merge with anything.
  strides_.assign(shapes.size(), {});
  for (size_t i = 0; i < r; ++i) {
    const int64_t d = full[i];
    if (d == 1 && !dims_.empty()) continue;
    bool merge = !dims_.empty();
    for (size_t k = 0; merge && dims_.back() != 1 && k < shapes.size(); ++k) {
      const int64_t outer = strides_[k].back(), inner = strides[k][i];
      // Walking outer-to-inner: the merged dim so far is "outer".
      merge = (outer == 0 && inner == 0) || (inner != 0 && outer == inner * d);
    }
    if (merge) {
      dims_.back() *= d;
      for (size_t k = 0; k < shapes.size(); ++k) strides_[k].back() = strides[k][i];
    } else {
      dims_.push_back(d);
      for (size_t k = 0; k < shapes.size(); ++k) strides_[k].push_back(d == 1 ? 0 : strides[k][i]);
    }
  }
  ok_ = true;
}

std::vector<double> ConstantValues(const TensorRef& t) {
  std::vector<double> v;
  if (t.data == nullptr) return v;
  const int64_t n = t.element_count();
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v.push_back(LoadDouble(t, i));
  return v;
}

}  // namespace tessera::cpu::fast::detail
