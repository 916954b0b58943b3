#include "partition/partitioner.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// Units are partitions (index p) and existing DISPATCH ops (index
// partitions.size() + k). ancestors[u] holds every unit u depends on.
struct UnitGraph {
  std::vector<std::set<int32_t>> ancestors;
  int32_t Add() {
    ancestors.emplace_back();
    return static_cast<int32_t>(ancestors.size() - 1);
  }
  // u now also depends on `deps` (and their ancestors); so does every unit
  // that depended on u.
  void AddDependencies(int32_t u, const std::set<int32_t>& deps) {
    std::set<int32_t> added;
    for (int32_t d : deps) {
      added.insert(d);
      added.insert(ancestors[d].begin(), ancestors[d].end());
    }
    for (size_t w = 0; w < ancestors.size(); ++w)
      if (static_cast<int32_t>(w) == u || ancestors[w].count(u)) ancestors[w].insert(added.begin(), added.end());
  }
};

}  // namespace

absl::StatusOr<PartitionPlan> PlanPartitions(const Graph& graph, const std::vector<AcceleratorClaims>& claims) {
  const size_t op_count = graph.ops.size();
  for (const AcceleratorClaims& a : claims)
    if (a.claims.size() != op_count)
      return absl::InternalError(absl::StrCat("claims of ", a.vendor, " cover ", a.claims.size(), " of ", op_count, " ops"));
  PartitionPlan plan;
  plan.placements.resize(op_count);
  plan.op_partition.assign(op_count, -1);
  // 1. Placement: first claimant in priority order.
  for (size_t o = 0; o < op_count; ++o) {
    const Op& op = graph.ops[o];
    if (op.type == TSR_OP_DISPATCH) continue;
    OpPlacement& place = plan.placements[o];
    for (size_t a = 0; a < claims.size(); ++a) {
      if (claims[a].claims[o].supported) {
        place.accelerator = static_cast<int32_t>(a);
        break;
      }
      place.refusals.push_back({claims[a].vendor, claims[a].claims[o]});
    }
    if (place.accelerator < 0) {
      std::string why;
      for (const Refusal& r : place.refusals)
        absl::StrAppend(&why, "; ", r.vendor, ": ", RefusalReasonName(r.claim.reason),
                        r.claim.detail.empty() ? "" : absl::StrCat(" (", r.claim.detail, ")"));
      return absl::FailedPreconditionError(absl::StrCat("op id ", op.id, " (", OpTypeName(op.type),
                                                        ") is claimed by no selected accelerator", why,
                                                        claims.empty() ? ": no accelerators selected" : ""));
    }
  }
  // 2. Grouping, in topological order.
  const std::vector<int32_t> producer = graph.ProducerIndex();
  std::vector<int32_t> op_unit(op_count, -1);
  UnitGraph units;
  std::vector<int32_t> unit_partition;    // unit -> partition or -1
  std::vector<int32_t> unit_dispatch_op;  // unit -> existing DISPATCH op or -1
  for (size_t o = 0; o < op_count; ++o) {
    const Op& op = graph.ops[o];
    std::set<int32_t> input_units;
    for (int32_t t : op.inputs)
      if (t >= 0 && producer[t] >= 0) input_units.insert(op_unit[producer[t]]);
    int32_t target = -1;
    if (op.type != TSR_OP_DISPATCH) {
      const int32_t acc = plan.placements[o].accelerator;
      // Joining unit u is safe iff no other input unit depends on u:
      // otherwise u -> other -> op would be a cycle once op is inside u.
      auto can_join = [&](int32_t u) {
        const int32_t p = unit_partition[u];
        if (p < 0 || plan.partitions[p].accelerator != acc) return false;
        for (int32_t other : input_units)
          if (other != u && units.ancestors[other].count(u)) return false;
        return true;
      };
      // Prefer a partition that produces one of the op's inputs (no cut on
      // that edge); else any partition of the same accelerator, newest
      // first, so independent branches share one dispatch.
      for (int32_t u : input_units)
        if (can_join(u)) { target = u; break; }
      for (int32_t u = static_cast<int32_t>(unit_partition.size()) - 1; target < 0 && u >= 0; --u)
        if (can_join(u)) target = u;
    }
    if (target < 0) {
      target = units.Add();
      if (op.type == TSR_OP_DISPATCH) {
        unit_partition.push_back(-1);
        unit_dispatch_op.push_back(static_cast<int32_t>(o));
      } else {
        unit_partition.push_back(static_cast<int32_t>(plan.partitions.size()));
        unit_dispatch_op.push_back(-1);
        const int32_t acc = plan.placements[o].accelerator;
        plan.partitions.push_back({acc, claims[acc].vendor, {}});
      }
    }
    input_units.erase(target);
    units.AddDependencies(target, input_units);
    op_unit[o] = target;
    if (unit_partition[target] >= 0) {
      plan.partitions[unit_partition[target]].ops.push_back(static_cast<int32_t>(o));
      plan.op_partition[o] = unit_partition[target];
    }
  }
  // 3. Order units topologically (fewest ancestors first is a valid order
  // because ancestor sets are transitively closed and acyclic).
  std::vector<int32_t> order(units.ancestors.size());
  for (size_t u = 0; u < order.size(); ++u) order[u] = static_cast<int32_t>(u);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return units.ancestors[a].size() < units.ancestors[b].size();
  });
  // Number partitions in execution order, so reports and profiles agree.
  std::vector<int32_t> renumber(plan.partitions.size(), -1);
  std::vector<PlannedPartition> ordered;
  for (int32_t u : order) {
    if (units.ancestors[u].count(u)) return absl::InternalError("partitioner created a cycle");
    int32_t p = unit_partition[u];
    if (p >= 0) {
      renumber[p] = static_cast<int32_t>(ordered.size());
      ordered.push_back(std::move(plan.partitions[p]));
      p = renumber[p];
    }
    plan.order.push_back({p, unit_dispatch_op[u]});
  }
  plan.partitions = std::move(ordered);
  for (int32_t& p : plan.op_partition)
    if (p >= 0) p = renumber[p];
  return plan;
}

}  // namespace tessera
