// Single ops at the edge of an accelerator partition that model cheaper on
// the cpu: the cost policy's finer step after whole partitions. An op is
// at the edge when all its inputs come from outside its partition (a
// source) or none of its results is read inside it (a sink); moving such
// an op to the cpu never splits the partition, so the move is priced
// locally: its device time and the transfers it causes where it is,
// against its cpu time and the transfers it would cause on the cpu.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_BOUNDARY_MOVES_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_BOUNDARY_MOVES_H_

#include <span>
#include <vector>

#include "framework/compiler/partition/partition_plan.h"
#include "framework/compiler/partition/plan_cost.h"

namespace tessera {

struct BoundaryMove {
  int32_t op = -1;
  double here_us = 0;  // device time + the transfers it causes where it is
  double cpu_us = 0;   // the same on the cpu
  double gain_us() const { return here_us - cpu_us; }
};

// Every edge op of a non-fallback partition of two or more ops whose move
// models a positive gain, best first. Ops in an op group stay (a group is
// placed whole or not at all).
std::vector<BoundaryMove> ProfitableBoundaryMoves(const PlanCostModel& model, const PartitionPlan& plan,
                                                  const std::vector<AcceleratorClaims>& claims);
// The same with the plan's op memories given (model.OpMemories of it).
std::vector<BoundaryMove> ProfitableBoundaryMoves(const PlanCostModel& model, const PartitionPlan& plan,
                                                  const std::vector<AcceleratorClaims>& claims,
                                                  std::span<const int32_t> op_memories);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_BOUNDARY_MOVES_H_
