// The modelled latency of a partition plan: compute, dispatch overhead and
// transfers summed along the schedule (docs/partitioning.md). It depends
// only on the graph, the claims' estimates and the SoC description, never
// on the machine, so tests and benchmarks can compare plans with it.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_COST_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_COST_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/compiler/partition/partition_plan.h"
#include "framework/compiler/partition/soc_cost_model.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/graph_operands.h"

namespace tessera {

// What the cost model knows of one accelerator of the claims list.
struct AcceleratorTraits {
  std::string vendor;
  std::string memory = "host";  // memory kind its partitions use
  double overhead_us = 0;       // per partition per run
  bool fallback = false;        // claims everything (the `cpu` policy's target)
};

// A tensor copied between memory kinds because a cut separates its
// producer from a consumer in another memory. Memories are ids into
// PlanCost::memories.
struct ModeledConversion {
  int32_t tensor = -1;
  int32_t from_memory = 0, to_memory = 0;
  uint64_t bytes = 0;
  double us = 0;
};

struct PartitionCost {
  double compute_us = 0;  // device time (or the CPU model's)
  double dispatch_us = 0;
  double work_ops = 0;                    // OpWork sum (FLOPs)
  bool whole_partition_estimate = false;  // compute_us came from estimate_partition
};

struct PlanCost {
  double compute_us = 0;
  double dispatch_us = 0;
  double transfer_us = 0;
  double total_us() const { return compute_us + dispatch_us + transfer_us; }
  std::vector<PartitionCost> partitions;  // by plan partition index
  std::vector<ModeledConversion> conversions;
  std::vector<std::string> memories;  // memory id -> name ("host" is 0)
};

// A plugin's estimate of one partition as a whole (estimate_partition),
// nullopt when it gives none; the per-op sum is used then.
using PartitionEstimator = std::function<std::optional<double>(const PlannedPartition&)>;

class PlanCostModel {
 public:
  static constexpr int32_t kHost = 0;  // memory id of "host"

  PlanCostModel(const Graph& graph, const SocCostModel& soc, std::vector<AcceleratorTraits> accelerators);

  const Graph& graph() const { return graph_; }
  const SocCostModel& soc() const { return soc_; }
  const GraphUses& uses() const { return uses_; }
  const std::vector<int32_t>& producer() const { return operands_.producer(); }
  const std::vector<AcceleratorTraits>& accelerators() const { return accelerators_; }
  double work_ops(size_t op) const { return work_[op]; }
  // Tensor byte sizes, computed once (the planner's loops ask often).
  uint64_t bytes(int32_t tensor) const { return bytes_[static_cast<size_t>(tensor)]; }
  double cpu_us(size_t op) const { return cpu_us_[op]; }
  // The graph's shape, flat, for the planner's passes over a million ops:
  // an Op or Tensor struct is a few cache lines and its operand lists are
  // heap blocks of their own; these are contiguous arrays, built once.
  const GraphOperands& operands() const { return operands_; }
  std::span<const int32_t> inputs(size_t op) const { return operands_.inputs(op); }
  std::span<const int32_t> outputs(size_t op) const { return operands_.outputs(op); }
  bool is_constant(int32_t tensor) const { return is_constant_[static_cast<size_t>(tensor)] != 0; }

  // Op `op` on accelerator `a`: the claim's estimate, or the CPU model's
  // time when the plugin gave none.
  double OpTimeUs(const std::vector<AcceleratorClaims>& claims, size_t a, size_t op) const;

  // Memories by id: every accelerator's, every existing DISPATCH op's
  // vendor's, and host (id 0), named by kind ("device_dram"; "device_dram
  // (npu)" when two vendors declare the kind, since each library's memory
  // is its own). Costs are looked up by id in the hot loops.
  const std::vector<std::string>& memories() const { return memories_; }
  int32_t accelerator_memory(size_t a) const { return accelerator_memory_[a]; }
  int32_t fallback_memory() const { return fallback_memory_; }
  // The memory op `op` reads and writes under `plan` (existing DISPATCH
  // ops: their vendor's).
  int32_t MemoryOf(const PartitionPlan& plan, size_t op) const {
    const int32_t p = plan.op_partition[op];
    return p >= 0 ? accelerator_memory_[plan.partitions[p].accelerator] : dispatch_memory_[op];
  }
  // MemoryOf for every op at once: one pass, then lookups in a flat array.
  std::vector<int32_t> OpMemories(const PartitionPlan& plan) const;
  // The same from the accelerator each op was placed on (-1: DISPATCH),
  // which is what the plan's partitions say: a sequential pass over 4
  // bytes per op instead of a lookup in a 64-byte partition per op (at a
  // million partitions, 64 MB streamed from memory, three times per policy
  // round). Into `memory`, resized: the policy reuses one buffer for every
  // candidate rather than a fresh 4 MB array per call at a million ops.
  void OpMemories(std::span<const int32_t> accelerators, std::vector<int32_t>* memory) const;
  double TransferUs(int32_t from, int32_t to, uint64_t bytes) const {
    const Link& l = links_[static_cast<size_t>(from) * memories_.size() + static_cast<size_t>(to)];
    return from == to ? 0 : static_cast<double>(bytes) * l.us_per_byte + l.latency_us;
  }

  PlanCost Cost(const PartitionPlan& plan, const std::vector<AcceleratorClaims>& claims,
                const PartitionEstimator* estimator = nullptr) const;
  // Cost with the op memories given (OpMemories of the same plan) and, when
  // `per_partition` is false, the totals alone: `partitions` and
  // `conversions` stay empty. The totals are the same sums in the same
  // order, so they equal Cost's to the bit. The policy's candidates need
  // only totals until one is kept; at a million partitions the two lists
  // were 64 MB of fresh pages per candidate.
  PlanCost Cost(const PartitionPlan& plan, const std::vector<AcceleratorClaims>& claims,
                const PartitionEstimator* estimator, std::span<const int32_t> op_memories, bool per_partition) const;

 private:
  struct Link {
    double us_per_byte = 0, latency_us = 0;
  };
  int32_t Intern(const std::string& vendor, const std::string& kind);
  void SizeTensor(int32_t t);  // bytes_ and is_constant_ of tensor t (ids out of range: none)

  const Graph& graph_;
  const SocCostModel& soc_;
  std::vector<AcceleratorTraits> accelerators_;
  // Before operands_: its pass over the ops fills them (one read of each
  // Op struct, and of each op's output tensors, for all of them).
  std::vector<double> work_, cpu_us_;
  std::vector<int32_t> dispatch_memory_;  // per op; host for ops that are not DISPATCH
  std::vector<uint64_t> bytes_;
  std::vector<uint8_t> is_constant_;  // per tensor
  GraphOperands operands_;            // before uses_, which is built from it
  GraphUses uses_;
  std::vector<std::string> memories_;       // display names
  std::vector<std::string> memory_kinds_;   // as the SoC file names them
  std::vector<std::string> memory_owners_;  // the vendor; "" for host
  std::vector<int32_t> accelerator_memory_;
  int32_t fallback_memory_ = kHost;
  std::vector<Link> links_;  // memories x memories, affine in bytes
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_COST_H_
