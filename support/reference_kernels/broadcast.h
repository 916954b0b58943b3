// Numpy multidirectional broadcasting: shape inference plus an index walker
// that maps every output element to the flat offset of each input.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_BROADCAST_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_BROADCAST_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_util.h"

namespace tessera::cpu {

// Right-aligns the shapes; each dim pair must be equal or one of them 1.
// Returns InvalidArgument naming `op` when they are incompatible.
absl::StatusOr<Shape> BroadcastShapes(int32_t op, std::span<const Shape> shapes);

// Element strides of `in` seen through `out` (rank(out) entries, 0 on the
// broadcast dims). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);

// Visits every element of `out` in row-major order and calls
// fn(out_index, in_offsets) where in_offsets[k] is the flat element offset
// into input k.
class BroadcastWalker {
 public:
  BroadcastWalker(const Shape& out, std::span<const Shape> inputs);

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    const int64_t total = ShapeElements(out_);
    if (total == 0) return;
    const size_t rank = out_.size(), n = strides_.size();
    std::vector<int64_t> idx(rank, 0), off(n, 0);
    for (int64_t o = 0; o < total; ++o) {
      fn(o, static_cast<const int64_t*>(off.data()));
      // Odometer increment, keeping the offsets in step.
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < out_[d]) {
          for (size_t k = 0; k < n; ++k) off[k] += strides_[k][d];
          break;
        }
        for (size_t k = 0; k < n; ++k) off[k] -= strides_[k][d] * (out_[d] - 1);
        idx[d] = 0;
      }
    }
  }

 private:
  Shape out_;
  std::vector<std::vector<int64_t>> strides_;
};

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_BROADCAST_H_
