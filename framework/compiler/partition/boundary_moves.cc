#include "framework/compiler/partition/boundary_moves.h"

#include <algorithm>

namespace tessera {

std::vector<BoundaryMove> ProfitableBoundaryMoves(const PlanCostModel& model, const PartitionPlan& plan,
                                                  const std::vector<AcceleratorClaims>& claims) {
  return ProfitableBoundaryMoves(model, plan, claims, model.OpMemories(plan));
}

std::vector<BoundaryMove> ProfitableBoundaryMoves(const PlanCostModel& model, const PartitionPlan& plan,
                                                  const std::vector<AcceleratorClaims>& claims,
                                                  std::span<const int32_t> memory) {
  const int32_t cpu = model.fallback_memory();
  std::vector<BoundaryMove> out;
  std::vector<int32_t> outside;
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlannedPartition& part = plan.partitions[p];
    if (model.accelerators()[part.accelerator].fallback || part.ops.size() < 2) continue;
    const int32_t here = model.accelerator_memory(static_cast<size_t>(part.accelerator));
    const int32_t self = static_cast<int32_t>(p);
    auto inside = [&](int32_t op) { return op >= 0 && plan.op_partition[op] == self; };
    for (int32_t o : part.ops) {
      if (claims[part.accelerator].claims[o].group != 0) continue;
      const std::span<const int32_t> inputs = model.inputs(static_cast<size_t>(o));
      const std::span<const int32_t> outputs = model.outputs(static_cast<size_t>(o));
      bool source = true, sink = true;
      for (int32_t t : inputs)
        if (t >= 0 && !model.is_constant(t) && inside(model.producer()[t])) source = false;
      for (int32_t t : outputs)
        for (int32_t c : model.uses().consumers(t))
          if (inside(c)) sink = false;
      if (!source && !sink) continue;
      BoundaryMove m{o, model.OpTimeUs(claims, static_cast<size_t>(part.accelerator), static_cast<size_t>(o)),
                     model.cpu_us(static_cast<size_t>(o))};
      for (int32_t t : inputs) {
        if (t < 0 || model.is_constant(t)) continue;
        const uint64_t bytes = model.bytes(t);
        const int32_t prod = model.producer()[t];
        if (inside(prod)) {  // a sink's input from its partition now leaves it
          m.cpu_us += model.TransferUs(here, cpu, bytes);
          continue;
        }
        const int32_t from = prod >= 0 ? memory[prod] : PlanCostModel::kHost;
        bool others_read = false;
        for (int32_t c : model.uses().consumers(t)) others_read = others_read || (c != o && inside(c));
        if (!others_read) m.here_us += model.TransferUs(from, here, bytes);
        m.cpu_us += model.TransferUs(from, cpu, bytes);
      }
      for (int32_t t : outputs) {
        if (t < 0) continue;
        const uint64_t bytes = model.bytes(t);
        bool read_inside = false;
        outside.clear();
        for (int32_t c : model.uses().consumers(t)) {
          if (inside(c))
            read_inside = true;
          else
            outside.push_back(memory[c]);
        }
        if (model.uses().is_graph_output(t)) outside.push_back(PlanCostModel::kHost);
        std::sort(outside.begin(), outside.end());
        outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
        if (read_inside) m.cpu_us += model.TransferUs(cpu, here, bytes);
        for (int32_t to : outside) {
          m.here_us += model.TransferUs(here, to, bytes);
          m.cpu_us += model.TransferUs(cpu, to, bytes);
        }
      }
      if (m.gain_us() > 0) out.push_back(m);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const BoundaryMove& a, const BoundaryMove& b) { return a.gain_us() > b.gain_us(); });
  return out;
}

}  // namespace tessera
