#include "framework/compiler/partition/partitioner.h"

#include <random>
#include <set>

#include "framework/compiler/partition/plan_checks_for_test.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Claims where accelerator "a" takes ops whose index is in `a_ops`, and
// "cpu" takes everything.
std::vector<AcceleratorClaims> Claims(const Graph& g, const std::set<int>& a_ops) {
  AcceleratorClaims a{"a", {}}, cpu{"cpu", {}};
  for (size_t o = 0; o < g.ops.size(); ++o) {
    a.claims.push_back(a_ops.count(static_cast<int>(o)) ? OpClaim{true}
                                                        : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "nope"});
    cpu.claims.push_back(OpClaim{true});
  }
  return {a, cpu};
}

TEST(Partitioner, OneAcceleratorMakesOnePartition) {
  Graph g = Chain(5);
  auto plan = PlanPartitions(g, Claims(g, {0, 1, 2, 3, 4}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->partitions.size(), 1u);
  EXPECT_EQ(plan->partitions[0].vendor, "a");
  EXPECT_EQ(plan->partitions[0].ops.size(), 5u);
}

TEST(Partitioner, AlternatingChainIsCutAtEveryChange) {
  Graph g = Chain(3);
  auto plan = PlanPartitions(g, Claims(g, {0, 2}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  // a | cpu | a: the two a-ops cannot share a partition (cycle through cpu).
  ASSERT_EQ(plan->partitions.size(), 3u);
  EXPECT_EQ(plan->partitions[0].vendor, "a");
  EXPECT_EQ(plan->partitions[1].vendor, "cpu");
  EXPECT_EQ(plan->partitions[2].vendor, "a");
  ExpectExecutable(g, *plan);
}

TEST(Partitioner, DiamondThroughAnotherAcceleratorStaysConvex) {
  // op0(a) feeds op1(cpu) and op2(a); op3(a) joins both branches. Putting
  // op3 with op0 would need op1's output inside a partition that op1 reads.
  ModelBuilder b("diamond");
  int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  int32_t t0 = b.Op(TSR_OP_RELU, {x});
  int32_t t1 = b.Op(TSR_OP_SIN, {t0});
  int32_t t2 = b.Op(TSR_OP_RELU, {t0});
  int32_t t3 = b.Op(TSR_OP_ADD, {t1, t2});
  b.Output(t3);
  Graph g = *std::move(b).Build();
  auto plan = PlanPartitions(g, Claims(g, {0, 2, 3}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->op_partition[0], plan->op_partition[2]);
  EXPECT_NE(plan->op_partition[3], plan->op_partition[0]);
  EXPECT_EQ(plan->partitions.size(), 3u);
  ExpectExecutable(g, *plan);
}

TEST(Partitioner, IndependentBranchesShareAPartition) {
  ModelBuilder b("branches");
  int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  int32_t y = b.Input("y", TSR_DTYPE_F32, {4});
  b.Output(b.Op(TSR_OP_RELU, {x}));
  b.Output(b.Op(TSR_OP_RELU, {y}));
  Graph g = *std::move(b).Build();
  auto plan = PlanPartitions(g, Claims(g, {0, 1}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->partitions.size(), 1u);
}

TEST(Partitioner, RecordsWhoRefusedEachOp) {
  Graph g = Chain(2);
  const auto claims = Claims(g, {0});
  auto plan = PlanPartitions(g, claims);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::vector<Refusal> one = RefusalsOf(claims, 1, plan->placements[1].accelerator);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].vendor, "a");
  EXPECT_EQ(one[0].claim.detail, "nope");
  EXPECT_TRUE(RefusalsOf(claims, 0, plan->placements[0].accelerator).empty());
  EXPECT_TRUE(RefusalsOf(claims, 0, -1).empty());  // DISPATCH: nobody was asked
}

TEST(Partitioner, UnclaimedOpIsAnErrorThatSaysWhy) {
  Graph g = Chain(2);
  std::vector<AcceleratorClaims> claims = Claims(g, {0});
  claims.pop_back();  // no cpu fallback
  auto plan = PlanPartitions(g, claims);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(), HasSubstr("claimed by no selected accelerator"));
  EXPECT_THAT(plan.status().message(), HasSubstr("a: unsupported_op (nope)"));
}

TEST(Partitioner, RandomGraphsAlwaysGiveAnExecutableOrder) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    ModelBuilder b("random");
    std::vector<int32_t> live = {b.Input("x", TSR_DTYPE_F32, {4})};
    const int n = 2 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      int32_t a = live[rng() % live.size()], c = live[rng() % live.size()];
      live.push_back(b.Op(TSR_OP_ADD, {a, c}));
    }
    b.Output(live.back());
    Graph g = *std::move(b).Build();
    std::set<int> a_ops;
    for (int i = 0; i < n; ++i)
      if (rng() % 2) a_ops.insert(i);
    auto plan = PlanPartitions(g, Claims(g, a_ops));
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectExecutable(g, *plan);
    for (size_t o = 0; o < g.ops.size(); ++o)
      EXPECT_EQ(plan->partitions[plan->op_partition[o]].vendor, a_ops.count(static_cast<int>(o)) ? "a" : "cpu");
  }
}

TEST(Partitioner, ConvexityCheckCatchesAPathThatReenters) {
  // The checker itself: op0 and op2 together with op1 (which sits on the
  // path op0 -> op1 -> op2) elsewhere is not convex.
  Graph g = Chain(3);
  PartitionPlan bad;
  bad.op_partition = {0, 1, 0};
  EXPECT_NONFATAL_FAILURE(ExpectConvex(g, bad), "leaves partition 0 and re-enters it");
  PartitionPlan good;
  good.op_partition = {0, 0, 1};
  ExpectConvex(g, good);
}

TEST(Partitioner, RandomDagsGiveConvexPartitions) {
  // Inputs drawn from anywhere earlier make diamonds and skip connections;
  // three vendors make merges through a third party tempting.
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 40);
    std::vector<int> who;
    Graph g = RandomDag(rng, n, 4, &who);
    auto plan = PlanPartitions(g, ThreeVendorClaims(who));
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectExecutable(g, *plan);
    ExpectConvex(g, *plan);
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(plan->partitions[plan->op_partition[i]].vendor, who[i] == 1 ? "a" : who[i] == 2 ? "b" : "cpu");
    if (HasFailure()) FAIL() << "trial " << trial;
  }
}

TEST(Partitioner, RandomMixedGraphsWithFourAcceleratorsRunLikeTheGraph) {
  // Three accelerators beside the cpu, overlapping claims, two to four
  // inputs, several outputs, unary, binary and multi-output ops. Each plan:
  // the first claimant's vendor per op, convex (brute force), executable
  // in its order, and the same outputs as the graph run op by op.
  std::mt19937 rng(18);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 36);
    const int inputs = 2 + static_cast<int>(rng() % 3);
    std::vector<AcceleratorClaims> claims;
    std::vector<std::string> first;
    const Graph g = RandomMixedGraph(rng, n, inputs, 3, 3, &claims, &first);
    auto plan = PlanPartitions(g, claims);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (int o = 0; o < n; ++o) EXPECT_EQ(plan->partitions[plan->op_partition[o]].vendor, first[o]) << "op " << o;
    ExpectExecutable(g, *plan);
    ExpectConvex(g, *plan);
    ExpectRunsLikeTheGraph(g, *plan);
    if (HasFailure()) FAIL() << "trial " << trial;
  }
}

TEST(Partitioner, RunLikeTheGraphCheckCatchesAWrongOrder) {
  // The checker itself: a plan that runs op 1 before op 0 (its producer).
  const Graph g = Chain(2);
  PartitionPlan bad;
  bad.partitions = {{0, "a", {1}}, {0, "a", {0}}};
  bad.op_partition = {1, 0};
  bad.order = {{0, -1}, {1, -1}};
  EXPECT_NONFATAL_FAILURE(ExpectRunsLikeTheGraph(g, bad), "before it is computed");
}

TEST(Partitioner, LadderKeepsEachRailInOnePartition) {
  // Rail a: a0 -> a1 -> ...; each a_i also feeds b_i on the cpu, whose
  // outputs leave the graph. Every b_i can share one partition (no b reads
  // another b, and nothing on rail a reads a b), so 2 partitions suffice.
  ModelBuilder b("ladder");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {4});
  std::set<int> a_ops;
  for (int i = 0; i < 20; ++i) {
    t = b.Op(TSR_OP_RELU, {t});
    a_ops.insert(2 * i);
    b.Output(b.Op(TSR_OP_SIN, {t}));
  }
  Graph g = *std::move(b).Build();
  auto plan = PlanPartitions(g, Claims(g, a_ops));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->partitions.size(), 2u);
  ExpectConvex(g, *plan);
  ExpectExecutable(g, *plan);
}

TEST(Partitioner, LadderWithRungsBackIsCutAtEveryRung) {
  // Step i: a-op r = RELU(t), cpu-op s = SIN(r), a-op t = ADD(r, s). The ADD
  // cannot join r's partition (s sits between them) but the next RELU joins
  // the ADD's; no two SINs can merge (an a-partition sits between them).
  // So {r0}, then {ADD_i, r_i+1} pairs, the last ADD alone, and 10 SINs:
  // 11 + 10, the fewest convex partitions this graph allows.
  ModelBuilder b("ladder");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {4});
  std::set<int> a_ops;
  for (int i = 0; i < 10; ++i) {
    const int32_t r = b.Op(TSR_OP_RELU, {t});
    const int32_t rung = b.Op(TSR_OP_SIN, {r});
    t = b.Op(TSR_OP_ADD, {r, rung});
    a_ops.insert({3 * i, 3 * i + 2});
  }
  b.Output(t);
  Graph g = *std::move(b).Build();
  auto plan = PlanPartitions(g, Claims(g, a_ops));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->partitions.size(), 21u);
  for (int i = 0; i + 1 < 10; ++i) EXPECT_EQ(plan->op_partition[3 * i + 2], plan->op_partition[3 * i + 3]);
  ExpectConvex(g, *plan);
  ExpectExecutable(g, *plan);
}

TEST(Partitioner, HundredThousandOpAlternatingChain) {
  // a, cpu, a, cpu, ...: no two ops can share a partition (each pair of
  // same-vendor ops has the other vendor between them), so exactly one
  // partition per op, in chain order, each on its claimant.
  constexpr int kOps = 100000;
  Graph g = Chain(kOps);
  std::set<int> a_ops;
  for (int i = 0; i < kOps; i += 2) a_ops.insert(i);
  auto plan = PlanPartitions(g, Claims(g, a_ops));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->partitions.size(), static_cast<size_t>(kOps));
  for (int i = 0; i < kOps; ++i) {
    ASSERT_EQ(plan->op_partition[i], i);
    ASSERT_EQ(plan->partitions[i].ops, std::vector<int32_t>{i});
    ASSERT_EQ(plan->partitions[i].vendor, i % 2 == 0 ? "a" : "cpu");
  }
}

TEST(Partitioner, HundredThousandOpChainOfRunsCutsOnlyAtChanges) {
  // Runs of three a-ops then one cpu-op: one partition per run.
  constexpr int kOps = 100000;
  Graph g = Chain(kOps);
  std::set<int> a_ops;
  for (int i = 0; i < kOps; ++i)
    if (i % 4 != 3) a_ops.insert(i);
  auto plan = PlanPartitions(g, Claims(g, a_ops));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->partitions.size(), static_cast<size_t>(kOps / 2));
  for (int i = 0; i < kOps; ++i) {
    ASSERT_EQ(plan->op_partition[i], i / 4 * 2 + (i % 4 == 3 ? 1 : 0)) << "op " << i;
    ASSERT_EQ(plan->partitions[plan->op_partition[i]].vendor, a_ops.count(i) ? "a" : "cpu");
  }
}

TEST(Partitioner, HundredThousandIndependentBranchesShareTwoPartitions) {
  // Every op reads the graph input only: all a-ops can share one dispatch,
  // all cpu-ops another. This is the "newest partition of the vendor" path.
  constexpr int kOps = 100000;
  ModelBuilder b("fan");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  std::set<int> a_ops;
  for (int i = 0; i < kOps; ++i) {
    b.Output(b.Op(TSR_OP_RELU, {x}));
    if (i % 2 == 0) a_ops.insert(i);
  }
  Graph g = *std::move(b).Build();
  auto plan = PlanPartitions(g, Claims(g, a_ops));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->partitions.size(), 2u);
  EXPECT_EQ(plan->partitions[0].ops.size(), static_cast<size_t>(kOps / 2));
  EXPECT_EQ(plan->partitions[1].ops.size(), static_cast<size_t>(kOps / 2));
}

TEST(Partitioner, LargeRandomDagHasAnAcyclicPartitionGraph) {
  // Big enough that the search bounds are reached. Convexity of every
  // partition is the same as the partition graph (op edges between
  // different partitions) being acyclic, which Kahn's algorithm checks in
  // linear time.
  std::mt19937 rng(5);
  constexpr int kOps = 20000;
  std::vector<int> who;
  Graph g = RandomDag(rng, kOps, 16, &who);
  auto plan = PlanPartitions(g, ThreeVendorClaims(who));
  ASSERT_TRUE(plan.ok()) << plan.status();
  const size_t parts = plan->partitions.size();
  std::vector<std::set<int32_t>> next(parts);
  std::vector<int> indegree(parts, 0);
  const std::vector<int32_t> producer = g.ProducerIndex();
  for (int o = 0; o < kOps; ++o)
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0 || producer[t] < 0) continue;
      const int32_t from = plan->op_partition[producer[t]], to = plan->op_partition[o];
      if (from != to && next[from].insert(to).second) ++indegree[to];
    }
  std::vector<int32_t> ready;
  for (size_t p = 0; p < parts; ++p)
    if (indegree[p] == 0) ready.push_back(static_cast<int32_t>(p));
  size_t done = 0;
  while (!ready.empty()) {
    const int32_t p = ready.back();
    ready.pop_back();
    ++done;
    for (int32_t q : next[p])
      if (--indegree[q] == 0) ready.push_back(q);
  }
  EXPECT_EQ(done, parts) << "the partition graph has a cycle";
  ExpectExecutable(g, *plan);
}

}  // namespace
}  // namespace tessera
