#include "framework/compiler/partition/plan_cost.h"

#include <algorithm>

#include "framework/compiler/partition/cpu_op_class.h"
#include "framework/compiler/partition/op_work.h"
#include "tessera/ops.h"

namespace tessera {

// A memory is a kind *and* the vendor whose library owns it: two vendors
// that both declare `device_dram` have two memories, as at run time, where
// another library's buffer is other memory and moves through the host.
// Host memory is everyone's.
int32_t PlanCostModel::Intern(const std::string& vendor, const std::string& kind) {
  const std::string owner = kind == "host" ? "" : vendor;
  for (size_t i = 0; i < memories_.size(); ++i)
    if (memory_kinds_[i] == kind && memory_owners_[i] == owner) return static_cast<int32_t>(i);
  memories_.push_back(kind);
  memory_kinds_.push_back(kind);
  memory_owners_.push_back(owner);
  return static_cast<int32_t>(memories_.size() - 1);
}

void PlanCostModel::SizeTensor(int32_t t) {
  if (t < 0 || static_cast<size_t>(t) >= bytes_.size()) return;
  const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
  bytes_[static_cast<size_t>(t)] = tensor.byte_size();
  is_constant_[static_cast<size_t>(t)] = tensor.is_constant ? 1 : 0;
}

// Ops that carry a DISPATCH reference, marked during the pass over the ops
// (their memory is interned after it, once the memory table exists).
constexpr int32_t kInternLater = -1;

PlanCostModel::PlanCostModel(const Graph& graph, const SocCostModel& soc, std::vector<AcceleratorTraits> accelerators)
    : graph_(graph),
      soc_(soc),
      accelerators_(std::move(accelerators)),
      work_(graph.ops.size()),
      cpu_us_(graph.ops.size()),
      dispatch_memory_(graph.ops.size(), kHost),
      bytes_(graph.tensors.size()),
      is_constant_(graph.tensors.size()),
      operands_(graph,
                [&](size_t o, const Op& op) {
                  const OpWork w = WorkOf(graph, op);  // reads the output tensors: size them now
                  work_[o] = w.ops;
                  cpu_us_[o] = soc.CpuTimeUs(w.ops, w.int8, ClassOf(op));
                  if (op.dispatch.has_value()) dispatch_memory_[o] = kInternLater;
                  for (int32_t t : op.outputs) SizeTensor(t);
                }),
      uses_(graph, operands_) {
  memories_ = {"host"};
  memory_kinds_ = {"host"};
  memory_owners_ = {""};
  for (const AcceleratorTraits& a : accelerators_) {
    accelerator_memory_.push_back(Intern(a.vendor, a.memory));
    if (a.fallback) fallback_memory_ = accelerator_memory_.back();
  }
  // The tensors no op writes: graph inputs and constants.
  for (size_t t = 0; t < graph.tensors.size(); ++t)
    if (operands_.producer()[t] < 0) SizeTensor(static_cast<int32_t>(t));
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    if (dispatch_memory_[o] != kInternLater) continue;
    const std::string& vendor = graph.ops[o].dispatch->vendor;
    dispatch_memory_[o] = Intern(vendor, soc.Dispatch(vendor).memory);
  }
  // A kind that two vendors own is named with its owner in reports.
  for (size_t m = 0; m < memories_.size(); ++m)
    for (size_t other = 0; other < memories_.size(); ++other)
      if (other != m && memory_kinds_[other] == memory_kinds_[m])
        memories_[m] = memory_kinds_[m] + " (" + memory_owners_[m] + ")";
  // Every link is affine in the byte count (direct, through host, or the
  // default), so two numbers per pair price any transfer.
  const size_t n = memories_.size();
  links_.resize(n * n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      // Between two vendors' device memories the runtime copies through
      // the host, whatever their kinds are called.
      const bool via_host =
          memory_owners_[a] != memory_owners_[b] && !memory_owners_[a].empty() && !memory_owners_[b].empty();
      auto us = [&](uint64_t bytes) {
        return via_host
                   ? soc.TransferUs(memory_kinds_[a], "host", bytes) + soc.TransferUs("host", memory_kinds_[b], bytes)
                   : soc.TransferUs(memory_kinds_[a], memory_kinds_[b], bytes);
      };
      const double at0 = us(0);
      const double at1m = us(1000000);
      links_[a * n + b] = {(at1m - at0) / 1e6, at0};
    }
}

double PlanCostModel::OpTimeUs(const std::vector<AcceleratorClaims>& claims, size_t a, size_t op) const {
  const double e = claims[a].claims[op].estimated_time_us;
  return e >= 0 ? e : cpu_us_[op];
}

std::vector<int32_t> PlanCostModel::OpMemories(const PartitionPlan& plan) const {
  std::vector<int32_t> memory(plan.op_partition.size());
  for (size_t o = 0; o < memory.size(); ++o) memory[o] = MemoryOf(plan, o);
  return memory;
}

void PlanCostModel::OpMemories(std::span<const int32_t> accelerators, std::vector<int32_t>* memory) const {
  memory->resize(accelerators.size());
  for (size_t o = 0; o < accelerators.size(); ++o)
    (*memory)[o] =
        accelerators[o] >= 0 ? accelerator_memory_[static_cast<size_t>(accelerators[o])] : dispatch_memory_[o];
}

PlanCost PlanCostModel::Cost(const PartitionPlan& plan, const std::vector<AcceleratorClaims>& claims,
                             const PartitionEstimator* estimator) const {
  return Cost(plan, claims, estimator, OpMemories(plan), true);
}

PlanCost PlanCostModel::Cost(const PartitionPlan& plan, const std::vector<AcceleratorClaims>& claims,
                             const PartitionEstimator* estimator, std::span<const int32_t> memory,
                             bool per_partition) const {
  PlanCost cost;
  cost.memories = memories_;
  if (per_partition) cost.partitions.resize(plan.partitions.size());
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlannedPartition& part = plan.partitions[p];
    PartitionCost totals_only;  // where the figures go when no list keeps them
    PartitionCost& pc = per_partition ? cost.partitions[p] : totals_only;
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
  std::vector<int32_t> readers;
  // A plan that alternates memories converts about one tensor per
  // partition: room for that up front, so a million-conversion list is not
  // copied at each doubling (through 32 MB of fresh pages). A hint, not a
  // bound: the list grows past it when it must. Room for every tensor
  // instead cost the plans with few cuts their peak memory (a 32 MB block
  // that later allocations had to go around).
  if (per_partition)
    cost.conversions.reserve(std::min(graph_.tensors.size(), plan.partitions.size() + graph_.outputs.size()));
  for (size_t t = 0; t < graph_.tensors.size(); ++t) {
    if (is_constant_[t]) continue;
    const int32_t prod = producer()[t];
    const int32_t from = prod >= 0 ? memory[prod] : kHost;
    readers.clear();
    for (int32_t c : uses_.consumers(static_cast<int32_t>(t))) {
      const int32_t m = memory[c];
      if (m != from) readers.push_back(m);
    }
    if (uses_.is_graph_output(static_cast<int32_t>(t)) && from != kHost) readers.push_back(kHost);
    if (readers.empty()) continue;
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    const uint64_t bytes = bytes_[t];
    for (int32_t to : readers) {
      const double us = TransferUs(from, to, bytes);
      cost.transfer_us += us;
      if (per_partition) cost.conversions.push_back({static_cast<int32_t>(t), from, to, bytes, us});
    }
  }
  return cost;
}

}  // namespace tessera
