#include "plugins/systolic_npu/machine/classic_model.h"

#include <iterator>

namespace tessera::systolic {

uint64_t ClassicFoldOverhead(Dataflow df, uint64_t R, uint64_t C) {
  // OS has no weight-load prefix: its operands start streaming at once.
  if (df == Dataflow::kOutputStationary) return R + C - 2;
  return 2 * R + C - 2;
}

void ClassicFolds::Overwritten(uint32_t space, uint64_t lo, uint64_t hi) {
  auto it = folds_.lower_bound({space, lo});
  // Folds are disjoint and sorted: only the one before `lo` can straddle it.
  if (it != folds_.begin()) {
    const auto prev = std::prev(it);
    if (prev->first.first == space && prev->second.hi > lo) it = prev;
  }
  while (it != folds_.end() && it->first.first == space && it->first.second < hi) it = folds_.erase(it);
}

bool ClassicFolds::Continues(const Instruction& in) {
  const uint64_t M = in.f[3], K = in.f[4], N = in.f[5];
  const uint64_t es = NpuDtypeSize(in.b);
  const Dataflow df = static_cast<Dataflow>(in.a);
  uint32_t addr = in.f[1];  // WS: the weight tile
  uint64_t bytes = K * N * es;
  uint32_t rows = static_cast<uint32_t>(K), cols = static_cast<uint32_t>(N);
  if (df == Dataflow::kInputStationary) {  // the input tile
    addr = in.f[0];
    bytes = M * K * es;
    cols = static_cast<uint32_t>(M);
  } else if (df == Dataflow::kOutputStationary) {  // the accumulator tile
    addr = in.f[2];
    bytes = M * N * 4;
    rows = static_cast<uint32_t>(M);
  }
  const std::pair<uint32_t, uint64_t> key{SramBankBits(addr), SramOffset(addr)};
  const Fold fold{key.second + bytes, in.a, rows, cols};
  bool continues = false;
  if (auto it = folds_.find(key); it != folds_.end()) {
    const Fold& f = it->second;
    continues = f.hi == fold.hi && f.dataflow == fold.dataflow && f.rows == rows && f.cols == cols &&
                (df != Dataflow::kOutputStationary || (in.c & 1) != 0);
  }
  const uint32_t acc = in.f[2];
  Overwritten(SramBankBits(acc), SramOffset(acc), SramOffset(acc) + M * N * 4);
  Overwritten(key.first, key.second, fold.hi);
  folds_[key] = fold;
  return continues;
}

}  // namespace tessera::systolic
