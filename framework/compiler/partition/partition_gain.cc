#include "framework/compiler/partition/partition_gain.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "framework/core/base/fixed_decimal.h"

namespace tessera {

std::vector<Gain> GainModel::Of(const PartitionPlan& plan, std::span<const int32_t> memory,
                                const std::vector<AcceleratorClaims>& claims) {
  std::fill(seen_.begin(), seen_.end(), -1);
  std::vector<Gain> gains(plan.partitions.size());
  const int32_t cpu = model_.fallback_memory();
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlannedPartition& part = plan.partitions[p];
    if (model_.accelerators()[part.accelerator].fallback) continue;
    const size_t a = static_cast<size_t>(part.accelerator);
    const int32_t here = model_.accelerator_memory(a);
    Gain& gain = gains[p];
    gain.dispatch_us = model_.accelerators()[a].overhead_us;
    for (int32_t o : part.ops) {
      gain.compute_us += model_.OpTimeUs(claims, a, static_cast<size_t>(o));
      gain.cpu_us += model_.cpu_us(static_cast<size_t>(o));
      for (int32_t t : model_.inputs(static_cast<size_t>(o))) {
        if (t < 0 || model_.is_constant(t) || seen_[t] == static_cast<int32_t>(p)) continue;
        const int32_t prod = model_.producer()[t];
        if (prod >= 0 && plan.op_partition[prod] == static_cast<int32_t>(p)) continue;
        seen_[t] = static_cast<int32_t>(p);
        const int32_t from = prod >= 0 ? memory[prod] : PlanCostModel::kHost;
        const uint64_t bytes = model_.bytes(t);
        gain.transfer_us += model_.TransferUs(from, here, bytes);
        gain.cpu_us += model_.TransferUs(from, cpu, bytes);
      }
      for (int32_t t : model_.outputs(static_cast<size_t>(o))) {
        if (t < 0) continue;
        outside_.clear();
        for (int32_t c : model_.uses().consumers(t))
          if (plan.op_partition[c] != static_cast<int32_t>(p)) outside_.push_back(memory[c]);
        if (model_.uses().is_graph_output(t)) outside_.push_back(PlanCostModel::kHost);
        if (outside_.empty()) continue;
        std::sort(outside_.begin(), outside_.end());
        outside_.erase(std::unique(outside_.begin(), outside_.end()), outside_.end());
        const uint64_t bytes = model_.bytes(t);
        for (int32_t to : outside_) {
          gain.transfer_us += model_.TransferUs(here, to, bytes);
          gain.cpu_us += model_.TransferUs(cpu, to, bytes);
        }
      }
    }
    gain.here_us = gain.compute_us + gain.dispatch_us + gain.transfer_us;
  }
  return gains;
}

std::string GainDetail(const PlannedPartition& part, const Gain& g) {
  std::string s;
  s.reserve(160);  // the whole text: one allocation, not one per doubling
  absl::StrAppend(&s, "partition of ", part.ops.size(), " ops on ", part.vendor, " models ");
  AppendFixed(&s, g.here_us, 2);
  s += " us (compute ";
  AppendFixed(&s, g.compute_us, 2);
  s += " + dispatch ";
  AppendFixed(&s, g.dispatch_us, 2);
  s += " + transfer ";
  AppendFixed(&s, g.transfer_us, 2);
  s += ") against ";
  AppendFixed(&s, g.cpu_us, 2);
  s += " us on the cpu";
  return s;
}

}  // namespace tessera
