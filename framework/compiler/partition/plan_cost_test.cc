#include "framework/compiler/partition/plan_cost.h"

#include "framework/compiler/partition/cpu_op_class.h"
#include "framework/compiler/partition/op_work.h"
#include "framework/compiler/partition/partitioner.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// 1 GFLOP/s = 1000 ops per microsecond; a 1 GB/s link moves 1000 bytes
// per microsecond. Every expected figure below is worked by hand from
// these numbers.
constexpr char kSoc[] =
    "[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n"
    "[dispatch.npu]\noverhead_us = 10\nmemory = device_dram\n"
    "[transfer.host.device_dram]\nbandwidth_gbps = 1\nlatency_us = 2\n"
    "[transfer.device_dram.host]\nbandwidth_gbps = 1\nlatency_us = 3\n";

SocCostModel Soc(const char* text = kSoc) {
  absl::StatusOr<SocCostModel> m = SocCostModel::Parse(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : SocCostModel{};
}

TEST(OpWork, CountsFromShapesAlone) {
  ModelBuilder b("w");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {8, 16});
  const int32_t w = b.Constant("w", {16, 4}, std::vector<float>(64, 1.f));
  const int32_t y = b.Op(TSR_OP_MATMUL, {x, w});  // [8,4]: 2 * 32 * 16
  const int32_t e = b.Op(TSR_OP_EXP, {y});        // 8 * 32
  const int32_t r = b.Op(TSR_OP_RESHAPE, {e}, {{TSR_ATTR_SHAPE, Attribute{{32}, {}}}});
  const int32_t a = b.Op(TSR_OP_ADD, {r, r});  // 32
  b.Output(a);
  Graph g = *std::move(b).Build();
  EXPECT_DOUBLE_EQ(WorkOf(g, g.ops[0]).ops, 1024);
  EXPECT_DOUBLE_EQ(WorkOf(g, g.ops[1]).ops, 256);
  EXPECT_DOUBLE_EQ(WorkOf(g, g.ops[2]).ops, 0);
  EXPECT_DOUBLE_EQ(WorkOf(g, g.ops[3]).ops, 32);
}

TEST(OpWork, ConvTransposeCountsEveryInputTimesItsWeightSlice) {
  ModelBuilder b("t");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 2, 3, 3});
  const int32_t w = b.Constant("w", {2, 4, 2, 2}, std::vector<float>(32, 1.f));
  b.Output(b.Op(TSR_OP_CONV_TRANSPOSE_2D, {x, w}));
  Graph g = *std::move(b).Build();
  EXPECT_DOUBLE_EQ(WorkOf(g, g.ops[0]).ops, 2 * 18 * 16);  // 18 inputs x (4 x 2 x 2) taps, a MAC is 2
}

TEST(SocCostModel, TransfersUseTheDirectLinkElseHostElseTheDefault) {
  absl::StatusOr<SocCostModel> m = SocCostModel::Parse(
      "[transfer.a.host]\nbandwidth_gbps = 2\nlatency_us = 1\n"
      "[transfer.host.b]\nbandwidth_gbps = 4\nlatency_us = 0.5\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_DOUBLE_EQ(m->TransferUs("a", "a", 4000), 0);
  EXPECT_DOUBLE_EQ(m->TransferUs("a", "host", 4000), 4000 / 2000.0 + 1);
  EXPECT_DOUBLE_EQ(m->TransferUs("a", "b", 4000), (2 + 1) + (1 + 0.5));  // via host
  EXPECT_DOUBLE_EQ(m->TransferUs("b", "a", 10000),
                   10000 / (SocCostModel::kDefaultLinkGbps * 1e3) + SocCostModel::kDefaultLinkLatencyUs);
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(5e4, false), 5e4 / (SocCostModel::kDefaultCpuGflops * 1e3));
  EXPECT_FALSE(m->notes().empty());  // says it used the default CPU
}

TEST(SocCostModel, PricesEachOpClassAtItsShareOfTheGemmRate) {
  absl::StatusOr<SocCostModel> m = SocCostModel::Parse(
      "[cpu]\ngflops_f32 = 100\ngops_int8 = 400\nthreads = 4\n"
      "efficiency_depthwise = 0.25\nefficiency_data_movement = 0.05\n");
  ASSERT_TRUE(m.ok()) << m.status();
  // 1e5 ops at 100 GFLOP/s = 1e5 ops / 1e5 ops per us = 1 us.
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(1e5, false, CpuOpClass::kGemm), 1);
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(1e5, false, CpuOpClass::kDepthwise), 4);      // 25 GFLOP/s
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(1e5, false, CpuOpClass::kDataMovement), 20);  // 5 GFLOP/s
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(1e5, false, CpuOpClass::kElementwise), 1);    // not given: the GEMM rate
  EXPECT_DOUBLE_EQ(m->CpuTimeUs(4e5, true, CpuOpClass::kDepthwise), 4);       // 400 GOP/s x 0.25
}

TEST(CpuOpClass, ClassesByOpAndGroups) {
  ModelBuilder b("c");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 8, 6, 6});
  const int32_t dw = b.Constant("dw", {8, 1, 3, 3}, std::vector<float>(72, 1.f));
  const int32_t pw = b.Constant("pw", {4, 8, 1, 1}, std::vector<float>(32, 1.f));
  const int32_t d = b.Op(TSR_OP_CONV_2D, {x, dw}, {{TSR_ATTR_GROUPS, Attribute{{8}, {}}}});
  const int32_t p = b.Op(TSR_OP_CONV_2D, {d, pw});
  const int32_t s = b.Op(TSR_OP_SOFTMAX, {p});
  const int32_t t = b.Op(TSR_OP_TRANSPOSE, {s}, {{TSR_ATTR_PERM, Attribute{{0, 1, 3, 2}, {}}}});
  const int32_t r = b.Op(TSR_OP_REDUCE_SUM, {t}, {{TSR_ATTR_AXES, Attribute{{3}, {}}}});
  b.Output(r);
  Graph g = *std::move(b).Build();
  EXPECT_EQ(ClassOf(g.ops[0]), CpuOpClass::kDepthwise);
  EXPECT_EQ(ClassOf(g.ops[1]), CpuOpClass::kGemm);
  EXPECT_EQ(ClassOf(g.ops[2]), CpuOpClass::kElementwise);
  EXPECT_EQ(ClassOf(g.ops[3]), CpuOpClass::kDataMovement);
  EXPECT_EQ(ClassOf(g.ops[4]), CpuOpClass::kReduction);
  EXPECT_EQ(CpuOpClassName(CpuOpClass::kDataMovement), "data_movement");
  EXPECT_EQ(CpuOpClassFromName("depthwise"), CpuOpClass::kDepthwise);
  EXPECT_FALSE(CpuOpClassFromName("depthwize").has_value());
}

TEST(SocCostModel, RejectsAMalformedDescription) {
  absl::StatusOr<SocCostModel> m = SocCostModel::Parse("[dispatch.npu]\noverhead_us = fast\nmemory = host\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("line 2"), std::string::npos) << m.status();
}

// x[4] f32 -> RELU -> RELU -> y.
Graph TwoRelus() {
  ModelBuilder b("two");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  b.Output(b.Op(TSR_OP_RELU, {b.Op(TSR_OP_RELU, {x})}));
  return *std::move(b).Build();
}

// The npu takes the first RELU (0.5 us) and refuses the second; the cpu
// takes both.
std::vector<AcceleratorClaims> NpuThenCpuClaims() {
  AcceleratorClaims npu{"npu", {}}, cpu{"cpu", {}};
  npu.claims = {OpClaim{true, 0, "", 0.5}, OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"}};
  cpu.claims = {OpClaim{true}, OpClaim{true}};
  return {npu, cpu};
}

// TwoRelus with NpuThenCpuClaims: RELU (npu) -> RELU (cpu).
TEST(PlanCost, SumsComputeDispatchAndEveryCrossingByHand) {
  const Graph g = TwoRelus();
  const std::vector<AcceleratorClaims> claims = NpuThenCpuClaims();
  absl::StatusOr<PartitionPlan> plan = PlanPartitions(g, claims);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const SocCostModel soc = Soc();
  PlanCostModel model(g, soc, {{"npu", "device_dram", 10, false}, {"cpu", "host", 0, true}});
  const PlanCost cost = model.Cost(*plan, claims);
  // compute: 0.5 (npu estimate) + 4 ops / 1000 (cpu) ; dispatch: 10 + 0
  EXPECT_DOUBLE_EQ(cost.compute_us, 0.5 + 0.004);
  EXPECT_DOUBLE_EQ(cost.dispatch_us, 10);
  // x host -> device_dram: 16 B / 1000 + 2; the npu's output back: 16 / 1000 + 3.
  EXPECT_DOUBLE_EQ(cost.transfer_us, (0.016 + 2) + (0.016 + 3));
  ASSERT_EQ(cost.conversions.size(), 2u);
  EXPECT_EQ(cost.memories[cost.conversions[0].from_memory], "host");
  EXPECT_EQ(cost.memories[cost.conversions[0].to_memory], "device_dram");
  EXPECT_EQ(cost.conversions[1].bytes, 16u);
  EXPECT_DOUBLE_EQ(cost.total_us(), 0.504 + 10 + 5.032);

  // A whole-partition estimate replaces the per-op sum where given.
  PartitionEstimator whole = [](const PlannedPartition& p) -> std::optional<double> {
    if (p.vendor == "npu") return 0.25;
    return std::nullopt;
  };
  const PlanCost with = model.Cost(*plan, claims, &whole);
  EXPECT_DOUBLE_EQ(with.compute_us, 0.25 + 0.004);
  EXPECT_TRUE(with.partitions[plan->op_partition[0]].whole_partition_estimate);
  EXPECT_FALSE(with.partitions[plan->op_partition[1]].whole_partition_estimate);
}

// The policy's candidates cost with the op memories read from their
// placement and keep only the totals: the same hand-worked figures as
// above, with no per-partition or conversion list.
TEST(PlanCost, TotalsAloneFromThePlacementMatchTheHandWorkedFigures) {
  const Graph g = TwoRelus();
  const std::vector<AcceleratorClaims> claims = NpuThenCpuClaims();
  const std::vector<int32_t> accelerators = {0, 1};  // op 0 on the npu, op 1 on the cpu
  absl::StatusOr<PartitionPlan> plan = GroupPlacedOps(GraphOperands(g), accelerators, {"npu", "cpu"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const SocCostModel soc = Soc();
  PlanCostModel model(g, soc, {{"npu", "device_dram", 10, false}, {"cpu", "host", 0, true}});
  std::vector<int32_t> memory = {7, 7, 7};  // stale contents and size: replaced
  model.OpMemories(accelerators, &memory);
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(model.memories()[memory[0]], "device_dram");
  EXPECT_EQ(model.memories()[memory[1]], "host");
  for (bool per_partition : {false, true}) {
    const PlanCost cost = model.Cost(*plan, claims, nullptr, memory, per_partition);
    EXPECT_DOUBLE_EQ(cost.compute_us, 0.5 + 0.004);
    EXPECT_DOUBLE_EQ(cost.dispatch_us, 10);
    EXPECT_DOUBLE_EQ(cost.transfer_us, (0.016 + 2) + (0.016 + 3));
    EXPECT_EQ(cost.partitions.size(), per_partition ? 2u : 0u);
    EXPECT_EQ(cost.conversions.size(), per_partition ? 2u : 0u);
  }
  // -1 (an existing DISPATCH op) reads the op's own dispatch memory, which
  // is host for an op without a DISPATCH reference.
  model.OpMemories(std::vector<int32_t>{-1, 0}, &memory);
  EXPECT_EQ(model.memories()[memory[0]], "host");
  EXPECT_EQ(model.memories()[memory[1]], "device_dram");
}

TEST(PlanCost, ATensorReadInTwoOtherMemoriesIsCopiedOncePerMemory) {
  // x -> RELU (cpu) feeds two npu ops: one copy to device_dram, not two.
  ModelBuilder b("fan");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {250});
  const int32_t r = b.Op(TSR_OP_RELU, {x});
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_EXP, {r}), b.Op(TSR_OP_EXP, {r})}));
  Graph g = *std::move(b).Build();
  AcceleratorClaims npu{"npu", {}}, cpu{"cpu", {}};
  for (size_t o = 0; o < g.ops.size(); ++o) {
    npu.claims.push_back(o == 1 || o == 2 ? OpClaim{true, 0, "", 1.0} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""});
    cpu.claims.push_back(OpClaim{true});
  }
  const std::vector<AcceleratorClaims> claims = {npu, cpu};
  absl::StatusOr<PartitionPlan> plan = PlanPartitions(g, claims);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const SocCostModel soc = Soc();
  PlanCostModel model(g, soc, {{"npu", "device_dram", 10, false}, {"cpu", "host", 0, true}});
  const PlanCost cost = model.Cost(*plan, claims);
  // r (1000 B) host -> dram once; both EXP outputs dram -> host.
  EXPECT_DOUBLE_EQ(cost.transfer_us, (1 + 2) + 2 * (1 + 3));
  EXPECT_EQ(cost.conversions.size(), 3u);
}

TEST(PlanCost, TwoVendorsDeclaringOneMemoryKindCopyThroughTheHost) {
  // npu and dsp both say device_dram, but each library's memory is its
  // own: npu's output reaches the dsp through the host (dram -> host 1 us
  // + 3, host -> dram 1 us + 2), not for free. The description has a
  // direct device_dram -> device_dram link, which only applies within one
  // vendor.
  ModelBuilder b("pair");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {250});
  b.Output(b.Op(TSR_OP_EXP, {b.Op(TSR_OP_RELU, {x})}));
  Graph g = *std::move(b).Build();
  AcceleratorClaims npu{"npu", {}}, dsp{"dsp", {}}, cpu{"cpu", {}};
  npu.claims = {OpClaim{true, 0, "", 1.0}, OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""}};
  dsp.claims = {OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""}, OpClaim{true, 0, "", 1.0}};
  cpu.claims = {OpClaim{true}, OpClaim{true}};
  const std::vector<AcceleratorClaims> claims = {npu, dsp, cpu};
  absl::StatusOr<PartitionPlan> plan = PlanPartitions(g, claims);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string text = std::string(kSoc) +
                           "[dispatch.dsp]\noverhead_us = 10\nmemory = device_dram\n"
                           "[transfer.device_dram.device_dram]\nbandwidth_gbps = 100\nlatency_us = 0\n";
  const SocCostModel soc = Soc(text.c_str());
  PlanCostModel model(g, soc,
                      {{"npu", "device_dram", 10, false}, {"dsp", "device_dram", 10, false}, {"cpu", "host", 0, true}});
  const PlanCost cost = model.Cost(*plan, claims);
  // x host -> npu: 1 + 2; relu npu -> dsp via host: (1 + 3) + (1 + 2);
  // exp dsp -> host (graph output): 1 + 3.
  EXPECT_DOUBLE_EQ(cost.transfer_us, 3 + 7 + 4);
  ASSERT_EQ(cost.conversions.size(), 3u);
  EXPECT_EQ(cost.memories[cost.conversions[1].from_memory], "device_dram (npu)");
  EXPECT_EQ(cost.memories[cost.conversions[1].to_memory], "device_dram (dsp)");
}

}  // namespace
}  // namespace tessera
