#include "support/reference_kernels/broadcast.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tessera::cpu {

absl::StatusOr<Shape> BroadcastShapes(int32_t op, std::span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t d = s[i];
      int64_t& o = out[lead + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (const Shape& t : shapes) absl::StrAppend(&all, " ", ShapeStr(t));
      return OpError(op, absl::StrCat("shapes cannot be broadcast:", all));
    }
  }
  return out;
}

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const std::vector<int64_t> row = RowMajorStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) strides[lead + i] = in[i] == 1 ? 0 : row[i];
  return strides;
}

BroadcastWalker::BroadcastWalker(const Shape& out, std::span<const Shape> inputs) : out_(out) {
  for (const Shape& in : inputs) strides_.push_back(BroadcastStrides(in, out));
}

}  // namespace tessera::cpu
