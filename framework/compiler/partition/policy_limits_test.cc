// Which partitions --min-ops and --max-partitions keep: at the bound, one
// either side of it, and in the order the policy gives them back (least
// gain first). Every run of "a" here pays for itself, so only the limits
// remove partitions.
#include <set>

#include "framework/compiler/partition/policy_planner.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// Transfers so cheap and an accelerator so fast that a run of L ADDs on
// "a" gains L x (cpu time of one ADD) - (dispatch + crossings): the longer
// the run, the larger its gain, by about one ADD's cpu time (10 us) per op.
constexpr char kSoc[] =
    "[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n"
    "[dispatch.a]\noverhead_us = 1\nmemory = device_dram\n"
    "[transfer.host.device_dram]\nbandwidth_gbps = 1000\nlatency_us = 0\n"
    "[transfer.device_dram.host]\nbandwidth_gbps = 1000\nlatency_us = 0\n";

// cpu, then runs of "a" of the lengths given, each followed by one cpu op:
// c a.. c a.. c ... (1 + 2 x runs partitions when all are kept).
struct Runs {
  Graph graph;
  std::vector<AcceleratorClaims> claims;
  std::vector<std::vector<int32_t>> run_ops;  // the op indices of each run
};

Runs MakeRuns(const std::vector<int>& lengths) {
  std::vector<bool> on_a(1, false);
  std::vector<std::vector<int32_t>> run_ops;
  for (int len : lengths) {
    run_ops.emplace_back();
    for (int i = 0; i < len; ++i) {
      run_ops.back().push_back(static_cast<int32_t>(on_a.size()));
      on_a.push_back(true);
    }
    on_a.push_back(false);
  }
  ModelBuilder b("runs");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {10000});
  for (size_t i = 0; i < on_a.size(); ++i) t = b.Op(TSR_OP_ADD, {t, t});
  b.Output(t);
  Runs r{*std::move(b).Build(), {}, run_ops};
  AcceleratorClaims a{"a", {}}, cpu{"cpu", {}};
  for (bool claimed : on_a) {
    a.claims.push_back(claimed ? OpClaim{true, 0, "", 0.0} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"});
    cpu.claims.push_back(OpClaim{true});
  }
  r.claims = {a, cpu};
  return r;
}

// The lengths of the runs still on "a", each run whole or not at all.
std::multiset<int> KeptRuns(const Runs& r, const PolicyResult& result) {
  std::multiset<int> kept;
  for (const std::vector<int32_t>& ops : r.run_ops) {
    int on_a = 0;
    for (int32_t o : ops) on_a += result.plan.partitions[result.plan.op_partition[o]].vendor == "a";
    EXPECT_TRUE(on_a == 0 || on_a == static_cast<int>(ops.size())) << "a run split by the limits";
    if (on_a > 0) kept.insert(static_cast<int>(ops.size()));
  }
  return kept;
}

PolicyResult PlanRuns(const Runs& r, PartitionPolicy policy, int32_t min_ops, int32_t max_partitions) {
  const SocCostModel soc = *SocCostModel::Parse(kSoc);
  std::vector<AcceleratorTraits> traits;
  for (const char* v : {"a", "cpu"}) {
    const kit::DispatchModel d = soc.Dispatch(v);
    traits.push_back({v, d.memory, d.overhead_us, std::string(v) == "cpu"});
  }
  PlanCostModel model(r.graph, soc, traits);
  absl::StatusOr<PolicyResult> result = PlanWithPolicy(model, r.claims, {policy, min_ops, max_partitions});
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : PolicyResult{};
}

constexpr PartitionPolicy kPolicies[] = {PartitionPolicy::kGreedy, PartitionPolicy::kCost};

TEST(PolicyLimits, WithoutLimitsEveryRunStays) {
  const Runs r = MakeRuns({3, 1, 5, 2, 4});
  for (PartitionPolicy p : kPolicies) {
    const PolicyResult res = PlanRuns(r, p, 0, 0);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{1, 2, 3, 4, 5})) << PartitionPolicyName(p);
    EXPECT_EQ(res.plan.partitions.size(), 11u) << PartitionPolicyName(p);
  }
}

TEST(PolicyLimits, MinOpsKeepsARunOfExactlyMinOps) {
  const Runs r = MakeRuns({3, 1, 5, 2, 4});
  for (PartitionPolicy p : kPolicies) {
    // At the bound: a run of 3 stays, 2 goes.
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 3, 0)), (std::multiset<int>{3, 4, 5})) << PartitionPolicyName(p);
    // One either side of it.
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 2, 0)), (std::multiset<int>{2, 3, 4, 5})) << PartitionPolicyName(p);
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 4, 0)), (std::multiset<int>{4, 5})) << PartitionPolicyName(p);
    // 1 is the same as no limit; above the longest run nothing stays.
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 1, 0)), (std::multiset<int>{1, 2, 3, 4, 5})) << PartitionPolicyName(p);
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 6, 0)), (std::multiset<int>{})) << PartitionPolicyName(p);
  }
}

TEST(PolicyLimits, MaxPartitionsGivesBackTheLeastProfitableFirst) {
  // 11 partitions: c a3 c a1 c a5 c a2 c a4 c. The run order is not the
  // gain order, so giving back the first runs, the last runs or the most
  // profitable runs each keeps a different set.
  const Runs r = MakeRuns({3, 1, 5, 2, 4});
  for (PartitionPolicy p : kPolicies) {
    // At the count: nothing goes.
    PolicyResult res = PlanRuns(r, p, 0, 11);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{1, 2, 3, 4, 5})) << PartitionPolicyName(p);
    // One under: the run of 1 goes, and its cpu neighbours merge (9 left).
    res = PlanRuns(r, p, 0, 10);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{2, 3, 4, 5})) << PartitionPolicyName(p);
    EXPECT_EQ(res.plan.partitions.size(), 9u) << PartitionPolicyName(p);
    // 9 holds once the run of 1 is gone.
    res = PlanRuns(r, p, 0, 9);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{2, 3, 4, 5})) << PartitionPolicyName(p);
    // 7: the runs of 1 and 2 go, the three most profitable stay.
    res = PlanRuns(r, p, 0, 7);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{3, 4, 5})) << PartitionPolicyName(p);
    EXPECT_EQ(res.plan.partitions.size(), 7u) << PartitionPolicyName(p);
    // 3: only the run of 5 is left (c a5 c).
    res = PlanRuns(r, p, 0, 3);
    EXPECT_EQ(KeptRuns(r, res), (std::multiset<int>{5})) << PartitionPolicyName(p);
  }
}

TEST(PolicyLimits, BothLimitsTogether) {
  // --min-ops 2 sends the run of 1 back; then 7 partitions keep 3, 4, 5.
  const Runs r = MakeRuns({3, 1, 5, 2, 4});
  for (PartitionPolicy p : kPolicies)
    EXPECT_EQ(KeptRuns(r, PlanRuns(r, p, 2, 7)), (std::multiset<int>{3, 4, 5})) << PartitionPolicyName(p);
}

}  // namespace
}  // namespace tessera
