// The on-chip arena: liveness placement, DRAM bytes of resident and
// spilled partitions against hand-worked counts, fast = cycle-stepped.
#include "plugins/systolic_npu/compiler/memory_plan.h"

#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

// x [1, c0, hw, hw] -> conv 3x3 pad 1 (c1) + RELU -> t1 -> conv 3x3 pad 1
// (c2) -> t2 -> conv 1x1 (c3) -> y; f32, every conv with a bias.
struct ConvChain {
  GraphBuilder b;
  int32_t x = 0, t1 = 0, t2 = 0, y = 0;
  int64_t weight_elems = 0, bias_elems = 0;
  ConvChain(int64_t c0, int64_t c1, int64_t c2, int64_t c3, int64_t hw) {
    std::mt19937 rng(7);
    x = b.Input("x", TSR_DTYPE_F32, {1, c0, hw, hw});
    t1 = b.Tensor("t1", TSR_DTYPE_F32, {1, c1, hw, hw});
    t2 = b.Tensor("t2", TSR_DTYPE_F32, {1, c2, hw, hw});
    y = b.Tensor("y", TSR_DTYPE_F32, {1, c3, hw, hw});
    Conv(rng, x, t1, c0, c1, 3);
    Conv(rng, t1, t2, c1, c2, 3);
    Conv(rng, t2, y, c2, c3, 1);
    b.Output(y);
  }
  void Conv(std::mt19937& rng, int32_t in, int32_t out, int64_t ci, int64_t co, int64_t k) {
    const std::string n = b.g.tensors[out].name;
    const int32_t w = b.Const(n + ".w", TSR_DTYPE_F32, {co, ci, k, k}, FloatBytes(RandomF(rng, co * ci * k * k)));
    const int32_t bias = b.Const(n + ".b", TSR_DTYPE_F32, {co}, FloatBytes(RandomF(rng, co)));
    auto& op = b.Op(TSR_OP_CONV_2D, {in, w, bias}, {out});
    op.attrs[TSR_ATTR_STRIDES].ints = {1, 1};
    const int64_t p = k / 2;
    op.attrs[TSR_ATTR_PADS].ints = {p, p, p, p};
    if (k == 3) op.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
    weight_elems += co * ci * k * k;
    bias_elems += co;
  }
};

// Each op lowered alone, its output fed to the next: the bits a resident
// program must reproduce.
std::vector<uint8_t> OpByOp(const kit::GraphSnapshot& g, const SystolicNpuConfig& npu, std::vector<uint8_t> x) {
  for (size_t i = 0; i < g.ops.size(); ++i) {
    auto p = LowerGraph(SingleOpGraph(g, i), npu, LoweringOptions{}, "main");
    EXPECT_TRUE(p.ok()) << p.status();
    x = RunEntry(*p, npu, {x}, ExecOptions{}).outputs.at(0);
  }
  return x;
}

void ExpectFastEqualsCycleStepped(const Program& p, const SystolicNpuConfig& npu, const std::vector<uint8_t>& x) {
  ExecOptions fast, stepped;
  stepped.mode = ExecMode::kCycleStepped;
  const RunResult a = RunEntry(p, npu, {x}, fast);
  const RunResult b = RunEntry(p, npu, {x}, stepped);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.metrics, b.metrics);
  EXPECT_EQ(a.metrics, EstimateEntry(p, p.entries[0], npu, Overlap::kDefault));
}

TEST(MemoryPlan, LivenessSharesTheArena) {
  // x 4 x 8 x 8 f32 = 1024 B, t1 and t2 8 x 8 x 8 f32 = 2048 B each. Live
  // ranges (op indices): x [0, 0] (staged: conv 0 reads it), t1 [0, 1],
  // t2 [1, 2]. Largest first: t1 at 0, t2 beside it at 2048 (both live at
  // op 1), x at 2048 too (not live with t2), so the arena is 4096 bytes.
  ConvChain c(4, 8, 8, 4, 8);
  const ActivationPlan plan = PlanActivations(c.b.g, 1 << 20);
  EXPECT_EQ(plan.offset.at(c.t1), 0u);
  EXPECT_EQ(plan.offset.at(c.t2), 2048u);
  EXPECT_EQ(plan.offset.at(c.x), 2048u);
  EXPECT_EQ(plan.offset.count(c.y), 0u);  // a partition output has its own region
  EXPECT_EQ(plan.staged, std::vector<int32_t>{c.x});
  EXPECT_EQ(plan.arena_bytes, 4096u);
  // A 3072-byte budget: t1 at 0, t2 (live with t1) would end at 4096 and
  // stays in DRAM, x still fits at 2048.
  const ActivationPlan small = PlanActivations(c.b.g, 3072);
  EXPECT_EQ(small.offset.at(c.t1), 0u);
  EXPECT_EQ(small.offset.count(c.t2), 0u);
  EXPECT_EQ(small.offset.at(c.x), 2048u);
  EXPECT_EQ(small.arena_bytes, 3072u);
}

TEST(MemoryPlan, AnAliasKeepsItsOwnerAlive) {
  // op 0 RELU x -> a, op 1 RESHAPE a -> ar (an alias of a's bytes), op 2
  // RELU x -> c, op 3 ADD(ar, c) -> y. a is read through ar at op 3, so it
  // lives [0, 3] and c ([2, 3]) cannot take its bytes: a at 0, c at 256.
  // x is read by no GEMM-family layer, so it is not staged.
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {64});
  const int32_t a = b.Tensor("a", TSR_DTYPE_F32, {64});
  const int32_t ar = b.Tensor("ar", TSR_DTYPE_F32, {8, 8});
  const int32_t c = b.Tensor("c", TSR_DTYPE_F32, {8, 8});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {8, 8});
  b.Op(TSR_OP_RELU, {x}, {a});
  b.Op(TSR_OP_RESHAPE, {a}, {ar});
  b.Op(TSR_OP_RELU, {x}, {c});
  b.Op(TSR_OP_ADD, {ar, c}, {y});
  b.Output(y);
  const ActivationPlan plan = PlanActivations(b.g, 1 << 20);
  EXPECT_EQ(plan.offset.at(a), 0u);
  EXPECT_EQ(plan.offset.at(c), 256u);
  EXPECT_EQ(plan.offset.count(ar), 0u);
  EXPECT_EQ(plan.offset.count(x), 0u);
  EXPECT_TRUE(plan.staged.empty());
  EXPECT_EQ(plan.arena_bytes, 512u);
}

TEST(MemoryPlan, ResidentChainReadsOnlyCompulsoryBytes) {
  // Everything fits ref-edge's 128 KiB arena budget, so DRAM sees the
  // weights (F16, pre-tiled), the biases (F32 parameters), x once and y
  // once: nothing else.
  ConvChain c(4, 8, 8, 4, 8);
  const SystolicNpuConfig npu = Edge();
  auto p = LowerGraph(c.b.g, npu, LoweringOptions{}, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->entries[0].CountRegions(RegionKind::kOnChip), 1u);
  EXPECT_EQ(p->entries[0].CountRegions(RegionKind::kScratch), 0u);
  const uint64_t x_bytes = 4 * 8 * 8 * 4, y_bytes = 4 * 8 * 8 * 4;
  const uint64_t weights = c.weight_elems * 2 + c.bias_elems * 4;
  std::mt19937 rng(8);
  const std::vector<uint8_t> x = FloatBytes(RandomF(rng, 4 * 8 * 8));
  const RunResult r = RunEntry(*p, npu, {x}, ExecOptions{});
  EXPECT_EQ(r.metrics.dram_read_bytes, weights + x_bytes);
  EXPECT_EQ(r.metrics.dram_write_bytes, y_bytes);
  EXPECT_EQ(r.metrics.dram_bytes_compulsory, weights + x_bytes + y_bytes);
  // The arena changes where bytes live, not the arithmetic.
  EXPECT_EQ(r.outputs.at(0), OpByOp(c.b.g, npu, x));
  ExpectFastEqualsCycleStepped(*p, npu, x);
}

TEST(MemoryPlan, IntermediatesThatDoNotFitStreamThroughDram) {
  // 4 + 4 + 4 KiB of tile banks: arena budgets of 6 and 9 KiB. x (4 x 16 x
  // 16 f32, 4 KiB) can be staged; t1 and t2 (16 x 16 x 16 f32, 16 KiB each)
  // fit neither budget and go to DRAM scratch: each is written once and
  // streamed back in im2col tiles, so DRAM writes are t1 + t2 + y exactly.
  ConvChain c(4, 16, 16, 4, 16);
  SystolicNpuConfig npu = SmallNpu(8, 8, 4, 4, 4);
  EXPECT_EQ(ArenaBudgets(npu), (std::vector<uint64_t>{6 * 1024, 9 * 1024}));
  for (uint64_t budget : ArenaBudgets(npu)) {
    const ActivationPlan plan = PlanActivations(c.b.g, budget);
    EXPECT_EQ(plan.offset.count(c.t1), 0u);
    EXPECT_EQ(plan.offset.count(c.t2), 0u);
    EXPECT_EQ(plan.offset.at(c.x), 0u);
  }
  auto p = LowerGraph(c.b.g, npu, LoweringOptions{}, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->entries[0].CountRegions(RegionKind::kScratch), 1u);
  std::mt19937 rng(9);
  const std::vector<uint8_t> x = FloatBytes(RandomF(rng, 4 * 16 * 16));
  const RunResult r = RunEntry(*p, npu, {x}, ExecOptions{});
  const uint64_t t_bytes = 16 * 16 * 16 * 4, y_bytes = 4 * 16 * 16 * 4;
  EXPECT_EQ(r.metrics.dram_write_bytes, 2 * t_bytes + y_bytes);
  EXPECT_GT(r.metrics.dram_read_bytes + r.metrics.dram_write_bytes, r.metrics.dram_bytes_compulsory);
  EXPECT_EQ(r.outputs.at(0), OpByOp(c.b.g, npu, x));
  ExpectFastEqualsCycleStepped(*p, npu, x);
}

TEST(MemoryPlan, TileBanksGiveUpTheArena) {
  const SystolicNpuConfig npu = Edge();                   // 96 + 96 + 64 KiB
  const SystolicNpuConfig t = TileBanks(npu, 64 * 1024);  // a quarter of 256 KiB
  EXPECT_EQ(t.sram_input_kib, 72);
  EXPECT_EQ(t.sram_weight_kib, 72);
  EXPECT_EQ(t.sram_accum_kib, 48);
  EXPECT_EQ(TileBanks(npu, 0).sram_input_kib, 96);
}

TEST(MemoryPlan, VerifierRefusesAnArenaLargerThanTheFreeSram) {
  ConvChain c(4, 8, 8, 4, 8);
  const SystolicNpuConfig npu = Edge();
  auto p = LowerGraph(c.b.g, npu, LoweringOptions{}, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  for (Region& r : p->entries[0].regions)
    if (r.kind == RegionKind::kOnChip) r.size_bytes = r.dims[0] = 256 * 1024;  // all of SRAM
  const absl::Status s = VerifyProgram(*p, npu);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("on-chip regions"), std::string::npos) << s;
}

}  // namespace
}  // namespace tessera::systolic
