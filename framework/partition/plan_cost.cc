#include "partition/plan_cost.h"

#include <algorithm>

#include "partition/op_work.h"
#include "tessera/ops.h"

namespace tessera {

PlanCostModel::PlanCostModel(const Graph& graph, const SocCostModel& soc, std::vector<AcceleratorTraits> accelerators)
    : graph_(graph), soc_(soc), accelerators_(std::move(accelerators)), uses_(graph), producer_(graph.ProducerIndex()) {
  work_.resize(graph.ops.size());
  cpu_us_.resize(graph.ops.size());
  dispatch_memory_.resize(graph.ops.size());
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    const OpWork w = WorkOf(graph, graph.ops[o]);
    work_[o] = w.ops;
    cpu_us_[o] = soc.CpuTimeUs(w.ops, w.int8);
    if (graph.ops[o].dispatch.has_value()) dispatch_memory_[o] = soc.Dispatch(graph.ops[o].dispatch->vendor).memory;
  }
}

double PlanCostModel::OpTimeUs(const std::vector<AcceleratorClaims>& claims, size_t a, size_t op) const {
  const double e = claims[a].claims[op].estimated_time_us;
  return e >= 0 ? e : cpu_us_[op];
}

const std::string& PlanCostModel::MemoryOf(const PartitionPlan& plan, size_t op) const {
  const int32_t p = plan.op_partition[op];
  if (p >= 0) return accelerators_[plan.partitions[p].accelerator].memory;
  return dispatch_memory_[op].empty() ? host_ : dispatch_memory_[op];
}

PlanCost PlanCostModel::Cost(const PartitionPlan& plan, const std::vector<AcceleratorClaims>& claims,
                             const PartitionEstimator* estimator) const {
  PlanCost cost;
  cost.partitions.resize(plan.partitions.size());
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlannedPartition& part = plan.partitions[p];
    PartitionCost& pc = cost.partitions[p];
    for (int32_t o : part.ops) {
      pc.compute_us += OpTimeUs(claims, static_cast<size_t>(part.accelerator), static_cast<size_t>(o));
      pc.work_ops += work_[o];
    }
    if (estimator != nullptr && *estimator) {
      if (std::optional<double> whole = (*estimator)(part); whole.has_value() && *whole >= 0) {
        pc.compute_us = *whole;
        pc.whole_partition_estimate = true;
      }
    }
    pc.dispatch_us = accelerators_[part.accelerator].overhead_us;
    cost.compute_us += pc.compute_us;
    cost.dispatch_us += pc.dispatch_us;
  }
  // Each tensor is copied once into every other memory kind that reads it:
  // the runtime keeps one converted copy per consumer type.
  std::vector<const std::string*> memories;
  for (size_t t = 0; t < graph_.tensors.size(); ++t) {
    const Tensor& tensor = graph_.tensors[t];
    if (tensor.is_constant) continue;
    const int32_t prod = producer_[t];
    const std::string& from = prod >= 0 ? MemoryOf(plan, static_cast<size_t>(prod)) : host_;
    memories.clear();
    for (int32_t c : uses_.consumers(static_cast<int32_t>(t))) memories.push_back(&MemoryOf(plan, static_cast<size_t>(c)));
    if (uses_.is_graph_output(static_cast<int32_t>(t))) memories.push_back(&host_);
    std::sort(memories.begin(), memories.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    for (size_t i = 0; i < memories.size(); ++i) {
      const std::string& to = *memories[i];
      if (to == from || (i > 0 && *memories[i - 1] == to)) continue;
      const uint64_t bytes = tensor.byte_size();
      const double us = soc_.TransferUs(from, to, bytes);
      cost.transfer_us += us;
      cost.conversions.push_back({static_cast<int32_t>(t), from, to, bytes, us});
    }
  }
  return cost;
}

}  // namespace tessera
