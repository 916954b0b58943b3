#include "partition/partitioner.h"

#include <random>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/model_builder.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Claims where accelerator "a" takes ops whose index is in `a_ops`, and
// "cpu" takes everything.
std::vector<AcceleratorClaims> Claims(const Graph& g, const std::set<int>& a_ops) {
  AcceleratorClaims a{"a", {}}, cpu{"cpu", {}};
  for (size_t o = 0; o < g.ops.size(); ++o) {
    a.claims.push_back(a_ops.count(static_cast<int>(o)) ? OpClaim{true} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "nope"});
    cpu.claims.push_back(OpClaim{true});
  }
  return {a, cpu};
}

// x -> relu0 -> relu1 -> ... (a chain of n RELUs).
Graph Chain(int n) {
  ModelBuilder b("chain");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {4});
  for (int i = 0; i < n; ++i) t = b.Op(TSR_OP_RELU, {t});
  b.Output(t);
  return *std::move(b).Build();
}

// Every op's producers run in an earlier unit or in the same partition
// earlier: the plan is executable in order.
void ExpectExecutable(const Graph& g, const PartitionPlan& plan) {
  std::vector<int> unit_of_partition(plan.partitions.size(), -1);
  for (size_t u = 0; u < plan.order.size(); ++u)
    if (plan.order[u].partition >= 0) unit_of_partition[plan.order[u].partition] = static_cast<int>(u);
  const std::vector<int32_t> producer = g.ProducerIndex();
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0 || producer[t] < 0) continue;
      const int from = unit_of_partition[plan.op_partition[producer[t]]];
      const int to = unit_of_partition[plan.op_partition[o]];
      EXPECT_LE(from, to) << "op " << o << " runs before its producer";
    }
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
  auto plan = PlanPartitions(g, Claims(g, {0}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->placements[1].refusals.size(), 1u);
  EXPECT_EQ(plan->placements[1].refusals[0].vendor, "a");
  EXPECT_EQ(plan->placements[1].refusals[0].claim.detail, "nope");
  EXPECT_TRUE(plan->placements[0].refusals.empty());
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

}  // namespace
}  // namespace tessera
