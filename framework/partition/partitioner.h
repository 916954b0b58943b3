// Groups claimed ops into connected, convex partitions: an op joins a
// partition of its accelerator that produces one of its inputs, unless that
// would create a cycle between partitions. Each op goes to the first
// accelerator in priority order that claims it.
#ifndef TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_
#define TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/graph_operands.h"
#include "partition/partition_plan.h"

namespace tessera {

absl::StatusOr<PartitionPlan> PlanPartitions(const Graph& graph, const std::vector<AcceleratorClaims>& claims);

// PlanPartitions in its two steps, for callers that choose the placement
// themselves (the policy planner plans candidates without their refusals
// and records them once, for the plan it keeps).
//
// Placement: each op's first claimant in priority order, with the claims of
// the accelerators before it as refusals. An op that no accelerator claims
// is an error; DISPATCH ops stay at -1.
absl::Status PlaceOps(const Graph& graph, const std::vector<AcceleratorClaims>& claims,
                      std::vector<OpPlacement>* placements);
// The refusals PlaceOps records, for placements already made from the same
// claims: op o on accelerator a was refused by every accelerator before a.
// Reads no op, only the claims before each op's accelerator.
void RecordRefusals(const std::vector<AcceleratorClaims>& claims, std::vector<OpPlacement>* placements);
// Grouping of placed ops (placements[o].accelerator indexes `vendors`),
// read from the graph's flat operand lists; the placements, refusals
// included, are kept in the plan as given.
absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::vector<OpPlacement> placements,
                                             const std::vector<std::string>& vendors);
// The same grouping from one accelerator index per op (-1: DISPATCH). The
// plan's placements are left empty: a policy candidate needs none until it
// is kept (then PlacementsOf and RecordRefusals fill them).
absl::StatusOr<PartitionPlan> GroupPlacedOps(const GraphOperands& operands, std::span<const int32_t> accelerators,
                                             const std::vector<std::string>& vendors);
// Placements without refusals, one per op: placements[o].accelerator is
// accelerators[o].
std::vector<OpPlacement> PlacementsOf(std::span<const int32_t> accelerators);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_
