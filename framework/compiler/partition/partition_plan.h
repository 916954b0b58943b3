// What the partitioner decides: which accelerator runs each op, how ops
// group into convex partitions, and the order partitions run in.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_PLAN_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_PLAN_H_

#include <string>
#include <vector>

#include "framework/compiler/claims/compiler_instance.h"

namespace tessera {

// One accelerator's answers, indexed by global op index.
struct AcceleratorClaims {
  std::string vendor;
  std::vector<OpClaim> claims;
};

// An accelerator's refusal of an op: its vendor and its claim (see
// RefusalsOf in partitioner.h).
struct Refusal {
  std::string vendor;
  OpClaim claim;
};

// Where an op runs. Its refusals are not kept here: they are the claims of
// every accelerator before its own (RefusalsOf), which the claims the plan
// came from hold already. A list per op was a heap block per refused op
// (80 bytes each) and 32 bytes per placement: at a million ops, 128 MB of
// fresh pages in the policy step for what the report reads once.
struct OpPlacement {
  int32_t accelerator = -1;  // index into the claims list; -1 = DISPATCH kept as is
};

struct PlannedPartition {
  int32_t accelerator = -1;
  std::string vendor;
  std::vector<int32_t> ops;  // global op indices, topological order
};

// A unit of execution: a new partition, or a DISPATCH op already in the
// model (compiled earlier), which runs as it is.
struct ExecutionUnit {
  int32_t partition = -1;  // index into partitions, or -1
  int32_t existing_dispatch_op = -1;
};

struct PartitionPlan {
  std::vector<PlannedPartition> partitions;
  std::vector<ExecutionUnit> order;     // topological
  std::vector<int32_t> op_partition;    // per op; -1 for existing DISPATCH
  std::vector<OpPlacement> placements;  // per op
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_PLAN_H_
