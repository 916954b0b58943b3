// Groups claimed ops into connected, convex partitions: an op joins a
// partition of its accelerator that produces one of its inputs, unless that
// would create a cycle between partitions. Each op goes to the first
// accelerator in priority order that claims it.
#ifndef TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_
#define TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "partition/partition_plan.h"

namespace tessera {

absl::StatusOr<PartitionPlan> PlanPartitions(const Graph& graph, const std::vector<AcceleratorClaims>& claims);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_PARTITION_PARTITIONER_H_
