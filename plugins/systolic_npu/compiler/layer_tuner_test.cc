// The layer tuner against an independent search (the tiler's own programs,
// CompileGemmProgram, scored over a wider grid of caps), its numerics
// against a plain f32 GEMM, and its memo.
#include "plugins/systolic_npu/compiler/layer_tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Phone() { return BuiltinSocConfig("ref-phone")->npu; }

struct Fc {
  int64_t M, K, N;
  std::vector<float> w, bias;  // w [N][K]
};

Fc RandomFc(int64_t M, int64_t K, int64_t N, uint32_t seed) {
  std::mt19937 rng(seed);
  return Fc{M, K, N, RandomF(rng, N * K, -0.5f, 0.5f), RandomF(rng, N, -0.1f, 0.1f)};
}

GraphBuilder FcGraph(const Fc& fc) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {fc.M, fc.K});
  const int32_t w = b.Const("w", TSR_DTYPE_F32, {fc.N, fc.K}, AsBytes(fc.w));
  const int32_t bias = b.Const("b", TSR_DTYPE_F32, {fc.N}, AsBytes(fc.bias));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {fc.M, fc.N});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w, bias}, {y});
  b.Output(y);
  return b;
}

// The oracle: the same layer through the tiler's public entry point (not
// LowerGraph), every dataflow, no cap and every cap from 1 row up to the
// free dimension in steps of 8 rows: a superset of the tuner's grid.
uint64_t BruteForceBest(const Fc& fc, const SystolicNpuConfig& npu) {
  GemmLayer L;
  L.M = fc.M;
  L.K = fc.K;
  L.N = fc.N;
  L.weights = AsBytes(fc.w);
  L.bias_f = fc.bias;
  uint64_t best = UINT64_MAX;
  for (Dataflow d : kAllDataflows) {
    std::vector<int64_t> caps = {0, 1};
    for (int64_t c = 8; c <= std::max(fc.M, fc.K); c += 8) caps.push_back(c);
    for (int64_t cap : caps) {
      auto p = CompileGemmProgram(L, npu, TilerOptions{d, cap});
      if (!p.ok()) continue;
      best = std::min(best, EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault).cycles_total);
    }
  }
  return best;
}

// One-row FC (batch-1 inference): under the rule (WS) every 32x32 weight
// tile is loaded to multiply a single row; the tuner must find a tiling at
// least as good as the brute-force search's best over its own grid, and
// strictly better than the rule here.
TEST(LayerTuner, BatchOneFullyConnectedBeatsTheRuleAndMatchesTheSearch) {
  const SystolicNpuConfig npu = Phone();
  const Fc fc = RandomFc(1, 256, 256, 7);
  GraphBuilder b = FcGraph(fc);
  auto t = TuneLayer(b.g, 0, npu, Dataflow::kWeightStationary);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_LT(t->tuned_cycles, t->rule_cycles);
  const uint64_t oracle = BruteForceBest(fc, npu);
  // The tuner searches power-of-two caps only: it may not reach a finer
  // grid's best, but must not be far from it (and never worse than the rule).
  EXPECT_LE(oracle, t->tuned_cycles);
  EXPECT_LE(t->tuned_cycles, oracle + oracle / 10) << "oracle " << oracle;
  EXPECT_NE(t->options.dataflow, Dataflow::kWeightStationary);
}

// Where the rule is already best among the candidates, it is kept: a tie
// never moves away from the rule.
TEST(LayerTuner, NeverWorseThanTheRuleOverManyShapes) {
  const SystolicNpuConfig npu = Phone();
  std::mt19937 rng(11);
  for (int i = 0; i < 12; ++i) {
    const int64_t M = 1 + rng() % 200, K = 1 + rng() % 300, N = 1 + rng() % 150;
    const Fc fc = RandomFc(M, K, N, 100 + i);
    GraphBuilder b = FcGraph(fc);
    for (Dataflow rule : kAllDataflows) {
      auto t = TuneLayer(b.g, 0, npu, rule);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_LE(t->tuned_cycles, t->rule_cycles) << M << "x" << K << "x" << N;
      if (t->tuned_cycles == t->rule_cycles) {
        EXPECT_EQ(t->options.dataflow, rule);
        EXPECT_EQ(t->options.free_tile_cap, 0);
      }
      EXPECT_LE(BruteForceBest(fc, npu), t->tuned_cycles);
    }
  }
}

// The tuned program computes the layer: against a plain f32 GEMM, within
// the FP16 operands' rounding; and its run takes the cycles it was scored at.
TEST(LayerTuner, TunedLoweringComputesTheLayerInTheScoredCycles) {
  const SystolicNpuConfig npu = Phone();
  const Fc fc = RandomFc(3, 200, 70, 9);
  GraphBuilder b = FcGraph(fc);
  TuningTally tally;
  LoweringOptions lo{Dataflow::kWeightStationary};
  lo.tune = true;
  lo.tally = &tally;
  lo.on_chip_arena = false;  // the layer as the tuner scores it: no staging of x
  auto p = LowerGraph(b.g, npu, lo, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(tally.layers, 1);
  EXPECT_GT(tally.candidates, 3);
  std::mt19937 rng(3);
  const std::vector<float> x = RandomF(rng, fc.M * fc.K, -1, 1);
  const RunResult r = RunEntry(*p, npu, {FloatBytes(x)}, ExecOptions{});
  ASSERT_EQ(r.outputs.size(), 1u);
  const std::vector<float> y = AsFloats(r.outputs[0]);
  for (int64_t m = 0; m < fc.M; ++m)
    for (int64_t n = 0; n < fc.N; ++n) {
      double want = fc.bias[n], mag = std::fabs(fc.bias[n]);
      for (int64_t k = 0; k < fc.K; ++k) {
        want += static_cast<double>(x[m * fc.K + k]) * fc.w[n * fc.K + k];
        mag += std::fabs(x[m * fc.K + k] * fc.w[n * fc.K + k]);
      }
      EXPECT_NEAR(y[m * fc.N + n], want, 2e-3 * mag + 1e-4) << m << "," << n;
    }
  EXPECT_EQ(r.metrics.cycles_total, tally.tuned_cycles);
}

// Same shapes, other weights: remembered, not searched again. Another
// shape: searched.
TEST(LayerTuner, TheMemoKeysOnShapesNotWeights) {
  const SystolicNpuConfig npu = Phone();
  TuningMemo memo;
  TuningTally tally;
  GraphBuilder a = FcGraph(RandomFc(4, 96, 64, 1));
  GraphBuilder same = FcGraph(RandomFc(4, 96, 64, 2));
  GraphBuilder other = FcGraph(RandomFc(5, 96, 64, 3));
  auto first = memo.Tune(a.g, 0, npu, Dataflow::kWeightStationary, &tally);
  ASSERT_TRUE(first.ok());
  const int searched = tally.candidates;
  auto again = memo.Tune(same.g, 0, npu, Dataflow::kWeightStationary, &tally);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(tally.remembered, 1);
  EXPECT_EQ(tally.candidates, searched);
  EXPECT_EQ(again->options.dataflow, first->options.dataflow);
  EXPECT_EQ(again->options.free_tile_cap, first->options.free_tile_cap);
  ASSERT_TRUE(memo.Tune(other.g, 0, npu, Dataflow::kWeightStationary, &tally).ok());
  EXPECT_EQ(tally.remembered, 1);
  EXPECT_GT(tally.candidates, searched);
  EXPECT_EQ(tally.layers, 3);
}

}  // namespace
}  // namespace tessera::systolic

namespace tessera::systolic {
namespace {

// Two FCs in one partition: whatever the per-layer search picks, the whole
// tuned program is never slower than the rule's (LowerGraph keeps the
// rule's when it is not), over shapes on both reference SoCs.
TEST(LayerTuner, AWholeTunedProgramIsNeverSlowerThanTheRules) {
  std::mt19937 rng(5);
  for (const char* soc : {"ref-phone", "ref-edge"}) {
    const SystolicNpuConfig npu = BuiltinSocConfig(soc)->npu;
    for (int i = 0; i < 8; ++i) {
      const int64_t M = 1 + rng() % 96, K = 8 + rng() % 200, H = 8 + rng() % 200, N = 8 + rng() % 120;
      std::mt19937 wr(i);
      GraphBuilder b;
      const int32_t x = b.Input("x", TSR_DTYPE_F32, {M, K});
      const int32_t w1 = b.Const("w1", TSR_DTYPE_F32, {H, K}, AsBytes(RandomF(wr, H * K)));
      const int32_t h = b.Tensor("h", TSR_DTYPE_F32, {M, H});
      b.Op(TSR_OP_FULLY_CONNECTED, {x, w1}, {h});
      const int32_t w2 = b.Const("w2", TSR_DTYPE_F32, {N, H}, AsBytes(RandomF(wr, N * H)));
      const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {M, N});
      b.Op(TSR_OP_FULLY_CONNECTED, {h, w2}, {y});
      b.Output(y);
      auto rule = LowerGraph(b.g, npu, LoweringOptions{Dataflow::kWeightStationary}, "main");
      LoweringOptions lo{Dataflow::kWeightStationary};
      lo.tune = true;
      auto tuned = LowerGraph(b.g, npu, lo, "main");
      ASSERT_TRUE(rule.ok() && tuned.ok());
      const std::vector<uint8_t> in = FloatBytes(RandomF(wr, M * K, -1, 1));
      // Measured: the executor's run of each program.
      const uint64_t rule_cycles = RunEntry(*rule, npu, {in}, ExecOptions{}).metrics.cycles_total;
      const uint64_t tuned_cycles = RunEntry(*tuned, npu, {in}, ExecOptions{}).metrics.cycles_total;
      EXPECT_LE(tuned_cycles, rule_cycles) << soc << " " << M << "x" << K << "x" << H << "x" << N;
    }
  }
}

}  // namespace
}  // namespace tessera::systolic
