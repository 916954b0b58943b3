#include "plugins/systolic_npu/machine/sram_first_touch.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace tessera::systolic {
namespace {

// Disjoint written intervals of one bank, lo -> hi.
using Intervals = std::map<uint64_t, uint64_t>;

// Appends to `out` the parts of [lo, hi) that `w` does not cover.
void Uncovered(const Intervals& w, uint32_t space, uint64_t lo, uint64_t hi, std::vector<Range>* out) {
  auto it = w.upper_bound(lo);
  if (it != w.begin()) {
    auto prev = std::prev(it);
    if (prev->second > lo) lo = prev->second;  // [prev.lo, prev.hi) covers the start
  }
  while (lo < hi) {
    if (it == w.end() || it->first >= hi) {
      out->push_back(Range{space, lo, hi});
      return;
    }
    if (it->first > lo) out->push_back(Range{space, lo, it->first});
    lo = std::max(lo, it->second);
    ++it;
  }
}

void Insert(Intervals& w, uint64_t lo, uint64_t hi) {
  auto it = w.upper_bound(lo);
  if (it != w.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= lo) {  // touches or overlaps: extend it
      lo = prev->first;
      hi = std::max(hi, prev->second);
      it = w.erase(prev);
    }
  }
  while (it != w.end() && it->first <= hi) {
    hi = std::max(hi, it->second);
    it = w.erase(it);
  }
  w.emplace(lo, hi);
}

}  // namespace

std::vector<Range> SramReadsBeforeWrites(const Program& p, const EntryPoint& entry) {
  Intervals written[3];
  std::vector<Range> out;
  for (const Instruction& in : entry.code) {
    const Footprint fp = InstructionFootprint(p, in);
    for (uint8_t i = 0; i < fp.read_count; ++i) {
      const Range& r = fp.reads[i];
      if (r.space < 3 && r.lo < r.hi) Uncovered(written[r.space], r.space, r.lo, r.hi, &out);
    }
    if (fp.has_write && fp.write.space < 3 && fp.write.lo < fp.write.hi)
      Insert(written[fp.write.space], fp.write.lo, fp.write.hi);
  }
  return out;
}

}  // namespace tessera::systolic
