// Partitioning policies (--policy cost|greedy|cpu). `greedy` is the peers'
// way: every op goes to the first accelerator that claims it, and claimed
// neighbours group. `cpu` runs everything on the fallback. `cost`, the
// default, starts from greedy and gives back to the CPU every partition
// whose modelled gain is not positive (its device time, dispatch overhead
// and cut transfers against the CPU's time for the same ops), plans again
// until nothing more pays, and keeps whichever of that plan, greedy and
// cpu models fastest, so it is never worse than either baseline.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_POLICY_PLANNER_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_POLICY_PLANNER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/partition/claim_overlay.h"
#include "framework/compiler/partition/partition_plan.h"
#include "framework/compiler/partition/plan_cost.h"

namespace tessera {

enum class PartitionPolicy { kCost, kGreedy, kCpu };
const char* PartitionPolicyName(PartitionPolicy policy);  // "cost", "greedy", "cpu"
absl::StatusOr<PartitionPolicy> ParsePartitionPolicy(std::string_view name);

struct PolicyOptions {
  PartitionPolicy policy = PartitionPolicy::kCost;
  int32_t min_ops = 0;         // accelerator partitions with fewer ops go back (0 = any size)
  int32_t max_partitions = 0;  // at most this many partitions in all (0 = no limit)
};

// The policy's own withdrawals of the caller's claims (reason
// not_profitable or policy, with a detail): the claims that produced a plan
// are the caller's with these written in. Kept as the planner keeps them,
// an array of reason ids per accelerator that withdrew anything and the
// reasons' texts, not as a copy of the claims: at a million ops the copy
// was 96 MB of fresh pages inside the policy step, which the compile
// driver then copied again into its own claims.
class PolicyWithdrawals {
 public:
  PolicyWithdrawals() = default;
  PolicyWithdrawals(std::vector<std::shared_ptr<const std::vector<int32_t>>> withdrawn,
                    std::shared_ptr<const WithdrawalReasons> reasons);

  bool empty() const { return withdrawn_.empty(); }
  // Writes them into `claims`, the claims PlanWithPolicy planned from (or
  // an equal copy): each withdrawn claim becomes {false, code, detail}.
  void ApplyTo(std::vector<AcceleratorClaims>* claims) const;
  // A copy of `claims` with them written in.
  std::vector<AcceleratorClaims> AppliedTo(std::vector<AcceleratorClaims> claims) const {
    ApplyTo(&claims);
    return claims;
  }

 private:
  std::vector<std::shared_ptr<const std::vector<int32_t>>>
      withdrawn_;  // per accelerator: reason id + 1 per op; null: none
  std::shared_ptr<const WithdrawalReasons> reasons_;
};

struct PolicyResult {
  PartitionPlan plan;
  // What the policy withdrew from the caller's claims to produce `plan`
  // (empty when nothing): apply them to those claims to get the claims the
  // plan came from. The plan's refusals already show them.
  PolicyWithdrawals withdrawals;
  PlanCost cost;
  double greedy_us = -1;    // modelled latency of the greedy plan (-1: none)
  double cpu_only_us = -1;  // of everything on the fallback (-1: no fallback claims all)
  std::string chosen;       // which candidate won: "cost", "greedy" or "cpu"
  int rounds = 0;           // refinement rounds the cost policy ran
};

absl::StatusOr<PolicyResult> PlanWithPolicy(const PlanCostModel& model, const std::vector<AcceleratorClaims>& claims,
                                            const PolicyOptions& options,
                                            const PartitionEstimator* estimator = nullptr);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_POLICY_PLANNER_H_
