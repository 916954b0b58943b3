#include "framework/compiler/partition/policy_planner.h"

#include <random>

#include "framework/compiler/partition/partitioner.h"
#include "framework/compiler/partition/plan_checks_for_test.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

constexpr char kSoc[] =
    "[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n"
    "[dispatch.a]\noverhead_us = 10\nmemory = device_dram\n"
    "[dispatch.b]\noverhead_us = 4\nmemory = dsp_tcm\n"
    "[transfer.host.device_dram]\nbandwidth_gbps = 1\nlatency_us = 2\n"
    "[transfer.device_dram.host]\nbandwidth_gbps = 1\nlatency_us = 2\n";

struct Fixture {
  SocCostModel soc;
  std::vector<AcceleratorTraits> traits;
};

Fixture Make(const std::vector<std::string>& vendors) {
  Fixture f{*SocCostModel::Parse(kSoc), {}};
  for (const std::string& v : vendors) {
    const kit::DispatchModel d = f.soc.Dispatch(v);
    f.traits.push_back({v, d.memory, d.overhead_us, v == "cpu"});
  }
  return f;
}

// A chain of n ADDs (x + x): the accelerator "a" claims the ops `a_claims`
// says, each with estimate `a_us`.
Graph AddChain(int n, int64_t elements) {
  ModelBuilder b("chain");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {elements});
  for (int i = 0; i < n; ++i) t = b.Op(TSR_OP_ADD, {t, t});
  b.Output(t);
  return *std::move(b).Build();
}

std::vector<AcceleratorClaims> TwoVendor(const Graph& g, const std::function<bool(size_t)>& a_claims, double a_us) {
  AcceleratorClaims a{"a", {}}, cpu{"cpu", {}};
  for (size_t o = 0; o < g.ops.size(); ++o) {
    a.claims.push_back(a_claims(o) ? OpClaim{true, 0, "", a_us} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"});
    cpu.claims.push_back(OpClaim{true});
  }
  return {a, cpu};
}

absl::StatusOr<PolicyResult> Plan(const Graph& g, const std::vector<AcceleratorClaims>& claims, const Fixture& f,
                                  PolicyOptions options) {
  PlanCostModel model(g, f.soc, f.traits);
  return PlanWithPolicy(model, claims, options);
}

TEST(PolicyPlanner, PolicyNamesRoundTrip) {
  for (const char* name : {"cost", "greedy", "cpu"})
    EXPECT_EQ(PartitionPolicyName(*ParsePartitionPolicy(name)), std::string(name));
  EXPECT_FALSE(ParsePartitionPolicy("fast").ok());
}

TEST(PolicyPlanner, TinyAcceleratorIslandsGoBackToTheCpu) {
  // Every other ADD of 4 elements on "a": each island pays 10 us dispatch
  // and two 2 us crossings to save 4 ns of CPU time.
  Graph g = AddChain(20, 4);
  const Fixture f = Make({"a", "cpu"});
  const auto claims = TwoVendor(
      g, [](size_t o) { return o % 2 == 0; }, 0.001);
  absl::StatusOr<PolicyResult> greedy = Plan(g, claims, f, {PartitionPolicy::kGreedy});
  absl::StatusOr<PolicyResult> cost = Plan(g, claims, f, {PartitionPolicy::kCost});
  ASSERT_TRUE(greedy.ok() && cost.ok()) << greedy.status() << cost.status();
  EXPECT_EQ(greedy->plan.partitions.size(), 20u);
  EXPECT_EQ(cost->plan.partitions.size(), 1u);
  EXPECT_EQ(cost->plan.partitions[0].vendor, "cpu");
  // By hand: cpu-only = 20 ADDs x 4 ops / 1000 = 0.08 us. Greedy = 10
  // islands x (10 dispatch + 0.001) + 10 cpu ADDs x 0.004 + 20 crossings x
  // (16 B / 1000 + 2).
  EXPECT_DOUBLE_EQ(cost->cost.total_us(), 0.08);
  EXPECT_NEAR(greedy->cost.total_us(), 10 * 10.001 + 0.04 + 20 * 2.016, 1e-9);
  EXPECT_DOUBLE_EQ(cost->greedy_us, greedy->cost.total_us());
  EXPECT_DOUBLE_EQ(cost->cpu_only_us, 0.08);
  // Each op given back says why, in machine-readable form.
  const std::vector<Refusal> p0 =
      RefusalsOf(cost->withdrawals.AppliedTo(claims), 0, cost->plan.placements[0].accelerator);
  ASSERT_EQ(p0.size(), 1u);
  EXPECT_EQ(p0[0].claim.reason, kRefusalNotProfitable);
  EXPECT_NE(p0[0].claim.detail.find("cpu"), std::string::npos) << p0[0].claim.detail;
}

TEST(PolicyPlanner, AlikePartitionsGivenBackShareOneDetailText) {
  // Islands of "a" on a chain of 4-element ADDs: ops {0}, {2}, {4} alone,
  // then {6, 7}. By hand, per island: compute 0.001 us per op, dispatch 10,
  // and two 16-byte crossings of 2.016 us (in from the host or a cpu op,
  // out to a cpu op); on the cpu each ADD is 4 ops / 1000 = 0.004 us and
  // the crossings are free. The three one-op islands have equal figures
  // and share one text; the two-op island's differs.
  Graph g = AddChain(10, 4);
  const Fixture f = Make({"a", "cpu"});
  const auto claims = TwoVendor(
      g, [](size_t o) { return o == 0 || o == 2 || o == 4 || o == 6 || o == 7; }, 0.001);
  absl::StatusOr<PolicyResult> cost = Plan(g, claims, f, {PartitionPolicy::kCost});
  ASSERT_TRUE(cost.ok()) << cost.status();
  ASSERT_EQ(cost->chosen, "cost");  // ties the cpu-only plan: the first of a tie wins
  EXPECT_EQ(cost->plan.partitions.size(), 1u);
  const std::vector<AcceleratorClaims> planned_from = cost->withdrawals.AppliedTo(claims);
  auto detail = [&](size_t op) -> SharedText {
    const std::vector<Refusal> refusals = RefusalsOf(planned_from, op, cost->plan.placements[op].accelerator);
    EXPECT_EQ(refusals.size(), 1u) << op;
    if (refusals.empty()) return SharedText();
    EXPECT_EQ(refusals[0].claim.reason, kRefusalNotProfitable) << op;
    return refusals[0].claim.detail;
  };
  const std::string one_op =
      "partition of 1 ops on a models 14.03 us (compute 0.00 + dispatch 10.00 + transfer 4.03) against 0.00 us on the "
      "cpu";
  const std::string two_ops =
      "partition of 2 ops on a models 14.03 us (compute 0.00 + dispatch 10.00 + transfer 4.03) against 0.01 us on the "
      "cpu";
  EXPECT_EQ(detail(0), one_op);
  EXPECT_EQ(detail(2), one_op);
  EXPECT_EQ(detail(4), one_op);
  EXPECT_EQ(detail(6), two_ops);
  EXPECT_EQ(detail(7), two_ops);
  EXPECT_TRUE(detail(0).SharesWith(detail(2)));
  EXPECT_TRUE(detail(0).SharesWith(detail(4)));
  EXPECT_TRUE(detail(6).SharesWith(detail(7)));  // one partition's ops: one text, as before
  EXPECT_FALSE(detail(4).SharesWith(detail(6)));
  // The claims the plan came from carry the same texts: every island's op
  // withdrawn (not_profitable), the ops "a" never claimed as they were.
  EXPECT_EQ(planned_from[0].claims[2].detail, one_op);
  EXPECT_TRUE(planned_from[0].claims[2].detail.SharesWith(detail(0)));
  for (size_t o : {0, 2, 4, 6, 7}) {
    EXPECT_FALSE(planned_from[0].claims[o].supported) << o;
    EXPECT_EQ(planned_from[0].claims[o].reason, kRefusalNotProfitable) << o;
  }
  for (size_t o : {1, 3, 5, 8, 9}) {
    EXPECT_EQ(planned_from[0].claims[o].reason, TSR_REFUSAL_UNSUPPORTED_OP) << o;
    EXPECT_EQ(planned_from[0].claims[o].detail, "no") << o;
  }
  for (size_t o = 0; o < 10; ++o) EXPECT_TRUE(planned_from[1].claims[o].supported) << o;  // the cpu's: untouched
  // Greedy withdraws nothing.
  absl::StatusOr<PolicyResult> greedy = Plan(g, claims, f, {PartitionPolicy::kGreedy});
  ASSERT_TRUE(greedy.ok()) << greedy.status();
  EXPECT_TRUE(greedy->withdrawals.empty());
}

TEST(PolicyPlanner, APartitionThatPaysForItselfStays) {
  // A 64x64x64 MATMUL: 2 * 64^3 = 524288 ops = 524 us on the 1 GFLOP/s
  // cpu, 5 us on "a"; 16 KiB crossings cost ~18 us each way.
  ModelBuilder b("mm");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {64, 64});
  const int32_t w = b.Constant("w", {64, 64}, std::vector<float>(64 * 64, 0.5f));
  b.Output(b.Op(TSR_OP_RELU, {b.Op(TSR_OP_MATMUL, {x, w})}));
  Graph g = *std::move(b).Build();
  const Fixture f = Make({"a", "cpu"});
  const auto claims = TwoVendor(
      g, [](size_t o) { return o == 0; }, 5.0);
  absl::StatusOr<PolicyResult> cost = Plan(g, claims, f, {PartitionPolicy::kCost});
  ASSERT_TRUE(cost.ok()) << cost.status();
  EXPECT_EQ(cost->chosen, "cost");
  EXPECT_EQ(cost->plan.partitions[cost->plan.op_partition[0]].vendor, "a");
  EXPECT_LT(cost->cost.total_us(), cost->cpu_only_us);
}

TEST(PolicyPlanner, AnEdgeOpThatBlowsUpItsOutputMovesToTheCpu) {
  // mm = x[64,512] · W[512,1] on "a" pays (65.5 us on the 1 GFLOP/s cpu,
  // 1 us on "a"); y = mm + bias[1,4096] makes 1 MiB that must go back to
  // the host over a 1 GB/s link. The best plan keeps mm on "a" and moves
  // only the ADD, which neither greedy nor giving back whole partitions
  // finds. By hand (100 GB/s in, 1 GB/s out, 2 us latency, 10 us dispatch):
  //   greedy:   2 + 10 + (131072/1e5 + 2) + (1048576/1e3 + 2) = 1065.88672
  //   cpu only: 65.536 + 262.144                               =  327.68
  //   the move: 1 + 262.144 + 10 + 3.31072 + (256/1e3 + 2)     =  278.71072
  ModelBuilder b("blowup");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {64, 512});
  const int32_t w = b.Constant("w", {512, 1}, std::vector<float>(512, 0.25f));
  const int32_t bias = b.Constant("bias", {1, 4096}, std::vector<float>(4096, 1.0f));
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_MATMUL, {x, w}), bias}));
  Graph g = *std::move(b).Build();
  Fixture f{*SocCostModel::Parse("[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n"
                                 "[transfer.host.device_dram]\nbandwidth_gbps = 100\nlatency_us = 2\n"
                                 "[transfer.device_dram.host]\nbandwidth_gbps = 1\nlatency_us = 2\n"),
            {{"a", "device_dram", 10, false}, {"cpu", "host", 0, true}}};
  const auto claims = TwoVendor(
      g, [](size_t) { return true; }, 1.0);
  absl::StatusOr<PolicyResult> greedy = Plan(g, claims, f, {PartitionPolicy::kGreedy});
  absl::StatusOr<PolicyResult> cost = Plan(g, claims, f, {PartitionPolicy::kCost});
  ASSERT_TRUE(greedy.ok() && cost.ok());
  EXPECT_NEAR(greedy->cost.total_us(), 1065.88672, 1e-9);
  EXPECT_NEAR(cost->cpu_only_us, 327.68, 1e-9);
  EXPECT_NEAR(cost->cost.total_us(), 278.71072, 1e-9);
  EXPECT_EQ(cost->plan.partitions[cost->plan.op_partition[0]].vendor, "a");    // the MATMUL
  EXPECT_EQ(cost->plan.partitions[cost->plan.op_partition[1]].vendor, "cpu");  // the ADD
  const std::vector<Refusal> add =
      RefusalsOf(cost->withdrawals.AppliedTo(claims), 1, cost->plan.placements[1].accelerator);
  ASSERT_EQ(add.size(), 1u);
  EXPECT_EQ(add[0].claim.reason, kRefusalNotProfitable);
  EXPECT_NE(add[0].claim.detail.find("edge op"), std::string::npos);
}

TEST(PolicyPlanner, CpuPolicyRunsEverythingOnTheFallback) {
  Graph g = AddChain(6, 4);
  const Fixture f = Make({"a", "cpu"});
  const auto claims = TwoVendor(
      g, [](size_t) { return true; }, 0.0);
  absl::StatusOr<PolicyResult> cpu = Plan(g, claims, f, {PartitionPolicy::kCpu});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_EQ(cpu->plan.partitions.size(), 1u);
  EXPECT_EQ(cpu->plan.partitions[0].vendor, "cpu");
  const std::vector<Refusal> op3 =
      RefusalsOf(cpu->withdrawals.AppliedTo(claims), 3, cpu->plan.placements[3].accelerator);
  ASSERT_EQ(op3.size(), 1u);
  EXPECT_EQ(op3[0].claim.reason, kRefusalPolicy);
}

TEST(PolicyPlanner, MinOpsAndMaxPartitionsHold) {
  // Runs of 1, 2, 3, ... claimed ops separated by one cpu op; "a" is so
  // fast that every run pays, so only the limits remove partitions.
  Graph g = AddChain(60, 100000);
  std::vector<bool> on_a(60, false);
  for (int start = 0, len = 1; start < 60; start += len + 1, ++len)
    for (int i = start; i < std::min(60, start + len); ++i) on_a[i] = true;
  const Fixture f = Make({"a", "cpu"});
  const auto claims = TwoVendor(
      g, [&](size_t o) { return on_a[o]; }, 0.0);
  for (PartitionPolicy policy : {PartitionPolicy::kGreedy, PartitionPolicy::kCost}) {
    absl::StatusOr<PolicyResult> r = Plan(g, claims, f, {policy, /*min_ops=*/3, /*max_partitions=*/0});
    ASSERT_TRUE(r.ok()) << r.status();
    for (const PlannedPartition& p : r->plan.partitions)
      if (p.vendor == "a") EXPECT_GE(p.ops.size(), 3u) << PartitionPolicyName(policy);
    r = Plan(g, claims, f, {policy, 0, /*max_partitions=*/5});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_LE(r->plan.partitions.size(), 5u) << PartitionPolicyName(policy);
    ExpectConvex(g, r->plan);
  }
}

TEST(PolicyPlanner, CostIsNeverWorseThanTheBetterBaselineOnRandomGraphs) {
  std::mt19937 rng(7);
  const Fixture f = Make({"a", "b", "cpu"});
  int beat_greedy = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 30);
    std::vector<int> who;
    Graph g = RandomDag(rng, n, 4, &who);
    std::vector<AcceleratorClaims> claims = ThreeVendorClaims(who);
    // Random estimates: some ops far faster on the device, some slower.
    for (size_t a = 0; a < 2; ++a)
      for (OpClaim& c : claims[a].claims)
        if (c.supported) c.estimated_time_us = std::uniform_real_distribution<double>(0, 30)(rng);
    absl::StatusOr<PolicyResult> greedy = Plan(g, claims, f, {PartitionPolicy::kGreedy});
    absl::StatusOr<PolicyResult> cpu = Plan(g, claims, f, {PartitionPolicy::kCpu});
    absl::StatusOr<PolicyResult> cost = Plan(g, claims, f, {PartitionPolicy::kCost});
    ASSERT_TRUE(greedy.ok() && cpu.ok() && cost.ok());
    const double better = std::min(greedy->cost.total_us(), cpu->cost.total_us());
    EXPECT_LE(cost->cost.total_us(), better + 1e-9) << "trial " << trial;
    ExpectExecutable(g, cost->plan);
    ExpectConvex(g, cost->plan);
    if (cost->cost.total_us() < greedy->cost.total_us() - 1e-9) ++beat_greedy;
    if (HasFailure()) FAIL() << "trial " << trial;
  }
  EXPECT_GT(beat_greedy, 0);  // the search is not a no-op
}

}  // namespace
}  // namespace tessera
