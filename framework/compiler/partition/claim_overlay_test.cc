#include "framework/compiler/partition/claim_overlay.h"

#include "framework/compiler/partition/partitioner.h"
#include "framework/compiler/partition/plan_checks_for_test.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

std::vector<AcceleratorClaims> Claims(int n) {
  AcceleratorClaims a{"a", {}}, cpu{"cpu", {}};
  for (int o = 0; o < n; ++o) {
    a.claims.push_back(o == 2 ? OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "not this one"} : OpClaim{true, 0, "", 1.5});
    cpu.claims.push_back(OpClaim{true});
  }
  return {a, cpu};
}

TEST(ClaimOverlay, WithoutWithdrawalsIsTheBase) {
  const Graph g = Chain(4);
  const auto base = Claims(4);
  ClaimOverlay overlay(GraphOperands(g), base);
  EXPECT_FALSE(overlay.withdrew_any());
  EXPECT_EQ(&overlay.base(), &base);  // not copied
  EXPECT_TRUE(overlay.supported(0, 0));
  EXPECT_FALSE(overlay.supported(0, 2));
  std::vector<OpPlacement> placements;
  ASSERT_TRUE(overlay.Place(&placements));
  const std::vector<int32_t> want = {0, 0, 1, 0};
  for (size_t o = 0; o < want.size(); ++o) {
    EXPECT_EQ(placements[o].accelerator, want[o]) << o;
  }
  const auto full = overlay.Materialize(WithdrawalReasons());
  ASSERT_EQ(full.size(), 2u);
  EXPECT_EQ(full[0].claims[2].detail, "not this one");
  EXPECT_EQ(full[0].claims[1].estimated_time_us, 1.5);
}

TEST(ClaimOverlay, WithdrawalsMaterializeAsRefusedClaims) {
  const Graph g = Chain(4);
  const auto base = Claims(4);
  WithdrawalReasons reasons;
  const int32_t slow = reasons.Add(kRefusalNotProfitable, "too slow");
  const int32_t policy = reasons.Add(kRefusalPolicy, "policy");
  ClaimOverlay overlay(GraphOperands(g), base);
  overlay.Withdraw(0, 1, slow);
  overlay.Withdraw(0, 3, slow);
  overlay.Withdraw(0, 3, policy);  // a later withdrawal replaces the earlier
  EXPECT_TRUE(overlay.withdrew_any());
  EXPECT_FALSE(overlay.supported(0, 1));
  EXPECT_TRUE(overlay.supported(0, 0));
  std::vector<OpPlacement> placements;
  ASSERT_TRUE(overlay.Place(&placements));
  EXPECT_EQ(placements[0].accelerator, 0);
  EXPECT_EQ(placements[1].accelerator, 1);
  EXPECT_EQ(placements[3].accelerator, 1);
  const auto full = overlay.Materialize(reasons);
  EXPECT_FALSE(full[0].claims[1].supported);
  EXPECT_EQ(full[0].claims[1].reason, kRefusalNotProfitable);
  EXPECT_EQ(full[0].claims[1].detail, "too slow");
  EXPECT_EQ(full[0].claims[1].estimated_time_us, -1);  // as OpClaim{false, code, detail}
  EXPECT_EQ(full[0].claims[3].reason, kRefusalPolicy);
  EXPECT_EQ(full[0].claims[3].detail, "policy");
  EXPECT_TRUE(full[0].claims[0].supported);
  EXPECT_EQ(full[0].claims[2].detail, "not this one");
  // The base is untouched.
  EXPECT_TRUE(base[0].claims[1].supported);
  // The plan over the overlay's placement is PlanPartitions' over the full claims.
  auto grouped = GroupPlacedOps(GraphOperands(g), placements, {"a", "cpu"});
  auto planned = PlanPartitions(g, full);
  ASSERT_TRUE(grouped.ok() && planned.ok());
  ASSERT_EQ(grouped->partitions.size(), planned->partitions.size());
  for (size_t p = 0; p < planned->partitions.size(); ++p) {
    EXPECT_EQ(grouped->partitions[p].ops, planned->partitions[p].ops);
    EXPECT_EQ(grouped->partitions[p].vendor, planned->partitions[p].vendor);
  }
  EXPECT_EQ(grouped->op_partition, planned->op_partition);
}

// The compact placement (one accelerator index per op) groups as the
// placements do. Chain 0 -> 1 -> 2 -> 3 with op 2 refused by `a`, worked by
// hand: ops 0 and 1 share a's partition, op 2 is the cpu's, and op 3 cannot
// join {0, 1} (that partition feeds op 2, which feeds op 3: a cycle), so it
// opens a third partition.
TEST(ClaimOverlay, CompactPlacementGroupsAsThePlacementsDo) {
  const Graph g = Chain(4);
  const auto base = Claims(4);
  ClaimOverlay overlay(GraphOperands(g), base);
  std::vector<int32_t> accelerators;
  ASSERT_TRUE(overlay.Place(&accelerators));
  EXPECT_EQ(accelerators, (std::vector<int32_t>{0, 0, 1, 0}));
  auto compact = GroupPlacedOps(GraphOperands(g), accelerators, {"a", "cpu"});
  ASSERT_TRUE(compact.ok()) << compact.status();
  ASSERT_EQ(compact->partitions.size(), 3u);
  EXPECT_EQ(compact->partitions[0].ops, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(compact->partitions[0].vendor, "a");
  EXPECT_EQ(compact->partitions[1].ops, (std::vector<int32_t>{2}));
  EXPECT_EQ(compact->partitions[1].vendor, "cpu");
  EXPECT_EQ(compact->partitions[2].ops, (std::vector<int32_t>{3}));
  EXPECT_EQ(compact->op_partition, (std::vector<int32_t>{0, 0, 1, 2}));
  EXPECT_TRUE(compact->placements.empty());  // the caller's to fill
  // PlacementsOf: the same accelerators.
  const std::vector<OpPlacement> placements = PlacementsOf(accelerators);
  ASSERT_EQ(placements.size(), 4u);
  for (size_t o = 0; o < 4; ++o) EXPECT_EQ(placements[o].accelerator, accelerators[o]) << o;
  // And the one-vendor shortcut holds for the compact form too.
  auto one = GroupPlacedOps(GraphOperands(g), std::vector<int32_t>(4, 1), {"a", "cpu"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->partitions.size(), 1u);
  EXPECT_EQ(one->partitions[0].ops, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(one->partitions[0].vendor, "cpu");
  // An unplaced op that is no DISPATCH, and a list of the wrong length, fail.
  EXPECT_FALSE(GroupPlacedOps(GraphOperands(g), std::vector<int32_t>{0, 0, -1, 0}, {"a", "cpu"}).ok());
  EXPECT_FALSE(GroupPlacedOps(GraphOperands(g), std::vector<int32_t>{0, 0}, {"a", "cpu"}).ok());
}

TEST(ClaimOverlay, CopiesShareUntilOneWithdraws) {
  const Graph g = Chain(3);
  const auto base = Claims(3);
  WithdrawalReasons reasons;
  const int32_t r = reasons.Add(kRefusalPolicy, "x");
  ClaimOverlay parent(GraphOperands(g), base);
  parent.Withdraw(0, 0, r);
  ClaimOverlay child = parent;  // cheap: shares the withdrawal vector
  child.Withdraw(0, 1, r);      // copies it first
  EXPECT_FALSE(parent.supported(0, 0));
  EXPECT_TRUE(parent.supported(0, 1));
  EXPECT_FALSE(child.supported(0, 0));
  EXPECT_FALSE(child.supported(0, 1));
}

TEST(ClaimOverlay, UnclaimedOpFailsPlacement) {
  const Graph g = Chain(2);
  AcceleratorClaims a{"a", {OpClaim{true}, OpClaim{true}}};
  const std::vector<AcceleratorClaims> base = {a};
  WithdrawalReasons reasons;
  ClaimOverlay overlay(GraphOperands(g), base);
  overlay.Withdraw(0, 1, reasons.Add(kRefusalPolicy, "gone"));
  std::vector<OpPlacement> placements;
  EXPECT_FALSE(overlay.Place(&placements));
  // PlaceOps over the full claims names the refusal.
  const absl::Status s = PlaceOps(g, overlay.Materialize(reasons), &placements);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gone"), std::string_view::npos) << s.message();
}

TEST(PartitionerUniform, OneAcceleratorForEveryOpIsOnePartition) {
  const Graph g = Chain(5);
  AcceleratorClaims cpu{"cpu", std::vector<OpClaim>(5, OpClaim{true})};
  auto plan = PlanPartitions(g, {cpu});
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->partitions.size(), 1u);
  EXPECT_EQ(plan->partitions[0].ops, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(plan->partitions[0].vendor, "cpu");
  ASSERT_EQ(plan->order.size(), 1u);
  EXPECT_EQ(plan->order[0].partition, 0);
  EXPECT_EQ(plan->op_partition, std::vector<int32_t>(5, 0));
}

TEST(PartitionerUniform, GroupingRejectsAnUnplacedOp) {
  const Graph g = Chain(2);
  std::vector<OpPlacement> placements(2);
  placements[0].accelerator = 0;  // op 1 left at -1, and it is no DISPATCH
  EXPECT_FALSE(GroupPlacedOps(GraphOperands(g), placements, {"cpu"}).ok());
}

}  // namespace
}  // namespace tessera
