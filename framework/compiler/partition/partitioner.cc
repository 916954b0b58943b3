#include "framework/compiler/partition/partitioner.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "framework/compiler/partition/unit_dag.h"
#include "framework/core/base/dtype.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// How the grouping stays convex in near-linear time.
//
// Ops are visited in topological order. Units (partitions, and DISPATCH ops
// already in the model) form a DAG: an edge d -> u when an op of u reads a
// tensor made in d. Each unit keeps only its successor list and a level,
// the length of the longest path reaching it, so every edge goes from a
// lower level to a strictly higher one.
//
// Putting op o into unit u adds edges from o's other input units to u; that
// is a cycle exactly when u already reaches one of them. Levels bound the
// search: a path from u to `other` climbs strictly, so u cannot reach any
// unit at its own level or below (the common case, answered without a
// search), and a search from u never needs to enter a unit above the
// highest input level (the "merge frontier"). A merge that raises u's
// level pushes the rise forward to u's successors, which is the only
// bookkeeping a merge costs.
//
// Choices are those of the previous ancestor-set partitioner: the first
// input unit of the op's accelerator that it can join (no cut on that
// edge); else the newest partition of that accelerator it can join, so
// independent branches share one dispatch; else a new partition. Two
// bounds keep the worst case linear, both conservative (they can only
// refuse a merge, never allow a cycle): at most kFallbackCandidates
// partitions are tried for the "newest partition" choice, and the searches
// for one op visit at most kSearchBudget units in all. The first changes a
// plan only when the sole joinable partition is older than the eight
// newest of its vendor; the second only when a merge check must walk more
// than 4096 units.
constexpr int kFallbackCandidates = 8;
constexpr int kSearchBudget = 4096;

}  // namespace

namespace {

// Every op on one accelerator and no DISPATCH op in the model: the grouping
// would put each op into the one partition (every op's input units are that
// partition, or it is the newest of its vendor), so build that plan without
// the unit DAG. This is the cpu-only plan of every model the fallback claims
// whole. The placements are left to the caller; nullopt otherwise.
struct AcceleratorOfPlacement {
  const std::vector<OpPlacement>& placements;
  int32_t operator()(size_t o) const { return placements[o].accelerator; }
};

template <typename AcceleratorOf>
std::optional<PartitionPlan> OnePartition(size_t op_count, const AcceleratorOf& accelerator_of,
                                          const std::vector<std::string>& vendors) {
  const int32_t first = op_count > 0 ? accelerator_of(0) : -1;
  if (first < 0 || static_cast<size_t>(first) >= vendors.size()) return std::nullopt;
  for (size_t o = 1; o < op_count; ++o)
    if (accelerator_of(o) != first) return std::nullopt;
  PartitionPlan plan;
  plan.partitions.push_back({first, vendors[first], std::vector<int32_t>(op_count)});
  std::iota(plan.partitions[0].ops.begin(), plan.partitions[0].ops.end(), 0);
  plan.order.push_back({0, -1});
  plan.op_partition.assign(op_count, 0);
  return plan;
}

}  // namespace

absl::Status PlaceOps(const Graph& graph, const std::vector<AcceleratorClaims>& claims,
                      std::vector<OpPlacement>* placements) {
  const size_t op_count = graph.ops.size();
  for (const AcceleratorClaims& a : claims)
    if (a.claims.size() != op_count)
      return absl::InternalError(
          absl::StrCat("claims of ", a.vendor, " cover ", a.claims.size(), " of ", op_count, " ops"));
  placements->assign(op_count, OpPlacement{});
  for (size_t o = 0; o < op_count; ++o) {
    const Op& op = graph.ops[o];
    if (op.type == TSR_OP_DISPATCH) continue;
    OpPlacement& place = (*placements)[o];
    for (size_t a = 0; a < claims.size(); ++a) {
      if (claims[a].claims[o].supported) {
        place.accelerator = static_cast<int32_t>(a);
        break;
      }
    }
    if (place.accelerator < 0) {
      std::string why;
      for (const Refusal& r : RefusalsOf(claims, o, static_cast<int32_t>(claims.size())))
        absl::StrAppend(&why, "; ", r.vendor, ": ", RefusalReasonName(r.claim.reason),
                        r.claim.detail.empty() ? "" : absl::StrCat(" (", r.claim.detail.str(), ")"));
      return absl::FailedPreconditionError(absl::StrCat("op id ", op.id, " (", OpTypeName(op.type),
                                                        ") is claimed by no selected accelerator", why,
                                                        claims.empty() ? ": no accelerators selected" : ""));
    }
  }
  return absl::OkStatus();
}

std::vector<Refusal> RefusalsOf(const std::vector<AcceleratorClaims>& claims, size_t op, int32_t accelerator) {
  std::vector<Refusal> refusals;
  if (accelerator <= 0) return refusals;  // DISPATCH, or the first accelerator took it
  const size_t before = std::min(static_cast<size_t>(accelerator), claims.size());
  refusals.reserve(before);
  for (size_t a = 0; a < before; ++a)
    if (op < claims[a].claims.size()) refusals.push_back({claims[a].vendor, claims[a].claims[op]});
  return refusals;
}

absl::StatusOr<PartitionPlan> PlanPartitions(const Graph& graph, const std::vector<AcceleratorClaims>& claims) {
  std::vector<OpPlacement> placements;
  if (absl::Status placed = PlaceOps(graph, claims, &placements); !placed.ok()) return placed;
  std::vector<std::string> vendors;
  for (const AcceleratorClaims& a : claims) vendors.push_back(a.vendor);
  // The one-partition plan needs no operand lists: do not build them.
  if (std::optional<PartitionPlan> one = OnePartition(placements.size(), AcceleratorOfPlacement{placements}, vendors);
      one.has_value()) {
    one->placements = std::move(placements);
    return *std::move(one);
  }
  return GroupPlacedOps(GraphOperands(graph), std::move(placements), vendors);
}

namespace {

// The grouping (see the comment at the top) over accelerator_of(o), the
// accelerator op o was placed on; the plan's placements are the caller's.
template <typename AcceleratorOf>
absl::StatusOr<PartitionPlan> Group(const GraphOperands& operands, const AcceleratorOf& accelerator_of,
                                    const std::vector<std::string>& vendors) {
  const size_t op_count = operands.op_count();
  if (std::optional<PartitionPlan> one = OnePartition(op_count, accelerator_of, vendors); one.has_value())
    return *std::move(one);
  PartitionPlan plan;
  plan.op_partition.assign(op_count, -1);
  // 2. Grouping, in topological order (see the comment at the top).
  const std::vector<int32_t>& producer = operands.producer();
  std::vector<int32_t> op_unit(op_count, -1);
  // Reserved for the worst case, a unit per op (the alternating chain):
  // the untouched part of a reservation costs address space, not memory.
  UnitDag units;
  units.Reserve(op_count, operands.operand_count());
  std::vector<int32_t> unit_partition;    // unit -> partition or -1
  std::vector<int32_t> unit_dispatch_op;  // unit -> existing DISPATCH op or -1
  unit_partition.reserve(op_count);
  unit_dispatch_op.reserve(op_count);
  plan.partitions.reserve(op_count);
  std::vector<std::vector<int32_t>> units_of(vendors.size());  // accelerator -> its units, oldest first
  std::vector<int32_t> input_units;
  for (size_t o = 0; o < op_count; ++o) {
    const bool dispatch = operands.is_dispatch(o);
    input_units.clear();
    for (int32_t t : operands.inputs(o))
      if (t >= 0 && producer[t] >= 0) input_units.push_back(op_unit[producer[t]]);
    std::sort(input_units.begin(), input_units.end());
    input_units.erase(std::unique(input_units.begin(), input_units.end()), input_units.end());
    int32_t target = -1;
    const int32_t acc = accelerator_of(o);
    if (!dispatch && (acc < 0 || static_cast<size_t>(acc) >= vendors.size()))
      return absl::InternalError(absl::StrCat("op ", o, " is placed on no known accelerator"));
    if (!dispatch) {
      int budget = kSearchBudget;
      units.BeginQuery(input_units);
      auto can_join = [&](int32_t u) {
        const int32_t p = unit_partition[u];
        return p >= 0 && plan.partitions[p].accelerator == acc && units.CanPointAtQueried(u, &budget);
      };
      for (int32_t u : input_units)
        if (can_join(u)) {
          target = u;
          break;
        }
      const std::vector<int32_t>& mine = units_of[acc];
      int tried = 0;
      for (auto it = mine.rbegin(); target < 0 && it != mine.rend() && tried < kFallbackCandidates; ++it) {
        if (std::binary_search(input_units.begin(), input_units.end(), *it)) continue;  // tried above
        ++tried;
        if (can_join(*it)) target = *it;
      }
    }
    if (target < 0) {
      target = units.Add(0);
      if (dispatch) {
        unit_partition.push_back(-1);
        unit_dispatch_op.push_back(static_cast<int32_t>(o));
      } else {
        unit_partition.push_back(static_cast<int32_t>(plan.partitions.size()));
        unit_dispatch_op.push_back(-1);
        plan.partitions.push_back({acc, vendors[acc], {}});
        units_of[acc].push_back(target);
      }
    }
    units.PointAt(target, input_units);
    if (units.cyclic()) return absl::InternalError("partitioner created a cycle");
    op_unit[o] = target;
    if (unit_partition[target] >= 0) {
      plan.partitions[unit_partition[target]].ops.push_back(static_cast<int32_t>(o));
      plan.op_partition[o] = unit_partition[target];
    }
  }
  // 3. Order units topologically: by level (every edge climbs), then by
  // creation. Check the invariant once, so a bug shows as an error and not
  // as a deadlocked schedule.
  const std::vector<int32_t> order = units.OrderByLevel();
  if (!units.LevelsConsistent()) return absl::InternalError("partitioner created a cycle");
  // Number partitions in execution order, so reports and profiles agree.
  // Partitions are usually made in that order already (always on a chain):
  // then only the order is written, and no partition moves.
  bool in_order = true;
  int32_t next_partition = 0;
  for (int32_t u : order) {
    const int32_t p = unit_partition[u];
    if (p >= 0 && p != next_partition++) {
      in_order = false;
      break;
    }
  }
  if (!in_order) {
    std::vector<int32_t> renumber(plan.partitions.size(), -1);
    std::vector<PlannedPartition> ordered;
    ordered.reserve(plan.partitions.size());
    for (int32_t u : order) {
      const int32_t p = unit_partition[u];
      if (p < 0) continue;
      renumber[p] = static_cast<int32_t>(ordered.size());
      ordered.push_back(std::move(plan.partitions[p]));
    }
    plan.partitions = std::move(ordered);
    for (int32_t& p : plan.op_partition)
      if (p >= 0) p = renumber[p];
    for (int32_t& p : unit_partition)
      if (p >= 0) p = renumber[p];
  }
  plan.order.reserve(order.size());
  for (int32_t u : order) plan.order.push_back({unit_partition[u], unit_dispatch_op[u]});
  return plan;
}

}  // namespace

absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::vector<OpPlacement> placements,
                                             const std::vector<std::string>& vendors) {
  if (placements.size() != operands.op_count()) return absl::InternalError("placements do not cover the graph");
  absl::StatusOr<PartitionPlan> plan = Group(operands, AcceleratorOfPlacement{placements}, vendors);
  if (plan.ok()) plan->placements = std::move(placements);
  return plan;
}

absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::span<const int32_t> accelerators,
                                             const std::vector<std::string>& vendors) {
  if (accelerators.size() != operands.op_count()) return absl::InternalError("placements do not cover the graph");
  return Group(
      operands, [accelerators](size_t o) { return accelerators[o]; }, vendors);
}

std::vector<OpPlacement> PlacementsOf(std::span<const int32_t> accelerators) {
  std::vector<OpPlacement> placements;
  placements.reserve(accelerators.size());
  for (int32_t a : accelerators) placements.emplace_back().accelerator = a;
  return placements;
}

}  // namespace tessera
