// Groups claimed ops into connected, convex partitions: an op joins a
// partition of its accelerator that produces one of its inputs, unless that
// would create a cycle between partitions. Each op goes to the first
// accelerator in priority order that claims it.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITIONER_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITIONER_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/partition/partition_plan.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/graph_operands.h"

namespace tessera {

absl::StatusOr<PartitionPlan> PlanPartitions(const Graph& graph, const std::vector<AcceleratorClaims>& claims);

// PlanPartitions in its two steps, for callers that choose the placement
// themselves (the policy planner plans candidates without their refusals
// and records them once, for the plan it keeps).
//
// Placement: each op's first claimant in priority order. An op that no
// accelerator claims is an error (naming every refusal); DISPATCH ops stay
// at -1.
absl::Status PlaceOps(const Graph& graph, const std::vector<AcceleratorClaims>& claims,
                      std::vector<OpPlacement>* placements);
// The refusals of op `op` placed on `accelerator` from `claims` (the claims
// the plan came from): the claim of every accelerator before it, in
// priority order, each of which refused it. None for DISPATCH (-1) or the
// first accelerator.
std::vector<Refusal> RefusalsOf(const std::vector<AcceleratorClaims>& claims, size_t op, int32_t accelerator);
// Grouping of placed ops (placements[o].accelerator indexes `vendors`),
// read from the graph's flat operand lists; the placements are kept in the
// plan as given.
absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::vector<OpPlacement> placements,
                                             const std::vector<std::string>& vendors);
// The same grouping from one accelerator index per op (-1: DISPATCH). The
// plan's placements are left empty: a policy candidate needs none until it
// is kept (then PlacementsOf fills them).
absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::span<const int32_t> accelerators,
                                             const std::vector<std::string>& vendors);
// Placements, one per op: placements[o].accelerator is accelerators[o].
std::vector<OpPlacement> PlacementsOf(std::span<const int32_t> accelerators);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITIONER_H_
