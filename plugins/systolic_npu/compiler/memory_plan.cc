// The on-chip arena allocator (memory_plan.h).
#include "plugins/systolic_npu/compiler/memory_plan.h"

#include <algorithm>
#include <set>

#include "plugins/systolic_npu/compiler/layer_tuner.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

struct Candidate {
  int32_t tensor = 0;
  uint64_t bytes = 0;
  int64_t first = 0, last = 0;  // op indices, inclusive
};

uint64_t AlignedBytes(const kit::SnapshotTensor& t) {
  const uint64_t n = static_cast<uint64_t>(kit::ElementCount(t.shape)) * kit::DTypeByteSize(t.dtype);
  return (n + 63) / 64 * 64;
}

}  // namespace

bool IsLayoutOnly(int32_t t) { return t == TSR_OP_RESHAPE || t == TSR_OP_SQUEEZE || t == TSR_OP_UNSQUEEZE; }

ActivationPlan PlanActivations(const kit::GraphSnapshot& g, uint64_t budget) {
  const std::set<int32_t> outputs(g.outputs.begin(), g.outputs.end());
  const std::set<int32_t> inputs(g.inputs.begin(), g.inputs.end());
  // Aliases resolve to the tensor that owns the bytes.
  std::map<int32_t, int32_t> owner;
  auto root = [&](int32_t t) {
    auto it = owner.find(t);
    return it == owner.end() ? t : it->second;
  };
  std::map<int32_t, Candidate> cand;
  std::set<int32_t> gemm_read;  // owners a GEMM-family layer reads as its input
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const kit::SnapshotOp& op = g.ops[i];
    const int64_t at = static_cast<int64_t>(i);
    for (int32_t t : op.inputs) {
      if (t < 0) continue;
      if (auto it = cand.find(root(t)); it != cand.end()) it->second.last = at;
    }
    if (IsGemmFamily(op.type) && !op.inputs.empty() && op.inputs[0] >= 0) gemm_read.insert(root(op.inputs[0]));
    for (int32_t t : op.outputs) {
      if (t < 0 || outputs.count(t)) continue;
      if (IsLayoutOnly(op.type) && !op.inputs.empty() && op.inputs[0] >= 0) {
        owner[t] = root(op.inputs[0]);
        continue;
      }
      cand[t] = Candidate{t, AlignedBytes(g.tensors.at(t)), at, at};
    }
  }
  // Partition inputs that a GEMM-family layer reads: live from the start.
  for (int32_t t : g.inputs) {
    if (!gemm_read.count(t) || outputs.count(t)) continue;
    Candidate c{t, AlignedBytes(g.tensors.at(t)), 0, 0};
    for (size_t i = 0; i < g.ops.size(); ++i)
      for (int32_t u : g.ops[i].inputs)
        if (u >= 0 && root(u) == t) c.last = static_cast<int64_t>(i);
    cand[t] = c;
  }
  std::vector<Candidate> order;
  for (const auto& [t, c] : cand)
    if (c.bytes > 0) order.push_back(c);
  // Largest first; ties by first use, then tensor id (deterministic).
  std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.first != b.first) return a.first < b.first;
    return a.tensor < b.tensor;
  });
  ActivationPlan plan;
  std::vector<std::pair<Candidate, uint64_t>> placed;
  for (const Candidate& c : order) {
    // Occupied [offset, end) ranges of tensors live at the same time.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (const auto& [p, off] : placed)
      if (p.first <= c.last && c.first <= p.last) busy.push_back({off, off + p.bytes});
    std::sort(busy.begin(), busy.end());
    uint64_t off = 0;
    for (const auto& [lo, hi] : busy) {
      if (off + c.bytes <= lo) break;
      off = std::max(off, hi);
    }
    if (off + c.bytes > budget) continue;  // stays in DRAM
    placed.push_back({c, off});
    plan.offset[c.tensor] = off;
    plan.arena_bytes = std::max(plan.arena_bytes, off + c.bytes);
  }
  for (int32_t t : g.inputs)
    if (plan.offset.count(t)) plan.staged.push_back(t);
  return plan;
}

std::vector<uint64_t> ArenaBudgets(const SystolicNpuConfig& npu) {
  const uint64_t sram =
      static_cast<uint64_t>(npu.input_bank_bytes() + npu.weight_bank_bytes() + npu.accum_bank_bytes());
  return {sram / 2, sram * 3 / 4};
}

SystolicNpuConfig TileBanks(const SystolicNpuConfig& npu, uint64_t arena_bytes) {
  SystolicNpuConfig t = npu;
  if (arena_bytes == 0) return t;
  const double total = static_cast<double>(npu.input_bank_bytes() + npu.weight_bank_bytes() + npu.accum_bank_bytes());
  const double keep = std::max(0.0, 1.0 - static_cast<double>(arena_bytes) / total);
  // Rounded down, so the banks give up at least arena_bytes together.
  t.sram_input_kib = static_cast<int64_t>(static_cast<double>(npu.sram_input_kib) * keep);
  t.sram_weight_kib = static_cast<int64_t>(static_cast<double>(npu.sram_weight_kib) * keep);
  t.sram_accum_kib = static_cast<int64_t>(static_cast<double>(npu.sram_accum_kib) * keep);
  return t;
}

}  // namespace tessera::systolic
