// overlap=none against SCALE-Sim v2's analytical compute model. The
// expected cycles come from the closed form below, written here from
// SCALE-Sim's fold accounting (scalesim/compute/systolic_compute_*.py),
// never from the cycle model under test:
//   WS: ceil(K/R) * ceil(N/C) folds of 2R + C + M - 2 cycles
//   OS: ceil(M/R) * ceil(N/C) folds of  R + C + K - 2 cycles
//   IS: ceil(K/R) * ceil(M/C) folds of 2R + C + N - 2 cycles
#include "plugins/systolic_npu/machine/classic_model.h"

#include <cstdio>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

uint64_t Ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint64_t ScaleSimCycles(Dataflow df, uint64_t M, uint64_t K, uint64_t N, uint64_t R, uint64_t C) {
  switch (df) {
    case Dataflow::kWeightStationary:
      return Ceil(K, R) * Ceil(N, C) * (2 * R + C + M - 2);
    case Dataflow::kOutputStationary:
      return Ceil(M, R) * Ceil(N, C) * (R + C + K - 2);
    case Dataflow::kInputStationary:
      return Ceil(K, R) * Ceil(M, C) * (2 * R + C + N - 2);
  }
  return 0;
}

// An FP16 GEMM without bias or activation: MATMUL_TILEs only, no vector op.
GemmLayer PlainGemm(int64_t M, int64_t K, int64_t N, std::mt19937& rng) {
  GemmLayer L;
  L.M = M;
  L.K = K;
  L.N = N;
  L.dtype = TSR_DTYPE_F16;
  L.weights_dtype = TSR_DTYPE_F32;
  L.weight_layout = WeightLayout::kKN;
  L.weights = FloatBytes(RandomF(rng, K * N));
  return L;
}

uint64_t MatmulCount(const EntryPoint& e) {
  uint64_t n = 0;
  for (const Instruction& in : e.code) n += in.op == Opcode::kMatmulTile;
  return n;
}

// The table of docs/systolic_npu_isa.md section 7, "Cross-check against
// SCALE-Sim v2": cycles per array (8x8 ref-edge, 32x32 ref-phone, 128x128
// ref-server) and dataflow (WS, OS, IS), by hand from the closed form.
struct TableRow {
  int64_t M, K, N;
  uint64_t cycles[3][3];
};
constexpr TableRow kTable[] = {
    {1, 512, 512, {{94208, 33664, 34176}, {24320, 9184, 9696}, {6128, 3064, 3576}}},
    {64, 64, 64, {{5504, 4992, 5504}, {632, 504, 632}, {446, 318, 446}}},
    {100, 300, 200, {{115900, 102050, 109668}, {13580, 10136, 11760}, {2892, 1108, 1746}}},
    {49, 576, 64, {{40896, 33040, 43344}, {5148, 2552, 5688}, {2155, 830, 2230}}},
    {256, 128, 96, {{53376, 54528, 60416}, {4200, 4560, 6080}, {638, 764, 956}}},
    {512, 512, 512, {{2187264, 2154496, 2187264}, {155136, 146944, 155136}, {14304, 12256, 14304}}},
};
const char* const kSocs[] = {"ref-edge", "ref-phone", "ref-server"};

TEST(ClassicModel, TableIsTheClosedForm) {
  const uint64_t arrays[] = {8, 32, 128};
  for (const TableRow& r : kTable)
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d)
        EXPECT_EQ(r.cycles[a][d], ScaleSimCycles(kAllDataflows[d], r.M, r.K, r.N, arrays[a], arrays[a]))
            << r.M << "x" << r.K << "x" << r.N << " on " << arrays[a] << " " << DataflowName(kAllDataflows[d]);
}

// The NPU's overlap=none cycles, estimated and executed (fast; on the 8x8
// array also cycle-stepped), equal the table. Prints the table as it
// appears in the ISA doc.
TEST(ClassicModel, CrossCheckAgainstScaleSim) {
  std::mt19937 rng(7);
  std::printf("| GEMM M×K×N | array | WS NPU | WS formula | OS NPU | OS formula | IS NPU | IS formula |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const TableRow& r : kTable) {
    const GemmLayer L = PlainGemm(r.M, r.K, r.N, rng);
    const std::vector<uint8_t> x = FloatsAs(RandomF(rng, r.M * r.K), TSR_DTYPE_F16);
    for (int a = 0; a < 3; ++a) {
      const auto soc = BuiltinSocConfig(kSocs[a]);
      ASSERT_TRUE(soc.ok()) << soc.status();
      const SystolicNpuConfig& npu = soc->npu;
      std::printf("| %lld×%lld×%lld | %lldx%lld |", static_cast<long long>(r.M), static_cast<long long>(r.K),
                  static_cast<long long>(r.N), static_cast<long long>(npu.array_rows),
                  static_cast<long long>(npu.array_cols));
      for (int d = 0; d < 3; ++d) {
        const Dataflow df = kAllDataflows[d];
        auto p = CompileGemmProgram(L, npu, TilerOptions{df});
        ASSERT_TRUE(p.ok()) << p.status();
        const RunMetrics est = EstimateEntry(*p, p->entries[0], npu, Overlap::kNone);
        EXPECT_EQ(est.cycles_total, r.cycles[a][d])
            << r.M << "x" << r.K << "x" << r.N << " on " << kSocs[a] << " " << DataflowName(df);
        EXPECT_EQ(est.cycles_dma_stall, 0u);
        const RunResult fast = RunEntry(*p, npu, {x}, ExecOptions{ExecMode::kFast, Overlap::kNone});
        EXPECT_EQ(fast.metrics, est);
        if (a == 0 && r.M * r.K * r.N <= (1 << 23)) {
          const RunResult sim = RunEntry(*p, npu, {x}, ExecOptions{ExecMode::kCycleStepped, Overlap::kNone});
          EXPECT_EQ(sim.metrics, fast.metrics);
          EXPECT_EQ(sim.outputs, fast.outputs);
        }
        std::printf(" %llu | %llu |", static_cast<unsigned long long>(est.cycles_total),
                    static_cast<unsigned long long>(r.cycles[a][d]));
      }
      std::printf("\n");
    }
  }
}

// A fold whose streamed dimension SRAM cuts into several MATMUL_TILEs (WS:
// M tiles, OS: K tiles, IS: N column tiles) is still one fold.
TEST(ClassicModel, FoldSpansSeveralTiles) {
  std::mt19937 rng(8);
  const int64_t M = 100, K = 150, N = 10;
  const GemmLayer L = PlainGemm(M, K, N, rng);
  const std::vector<uint8_t> x = FloatsAs(RandomF(rng, M * K), TSR_DTYPE_F16);
  struct Case {
    Dataflow df;
    SystolicNpuConfig npu;
    uint64_t folds;
  };
  // 4x4 array. WS: 512-byte accumulator halves hold 32 rows of 4 columns
  // (4 M tiles per fold). OS: 512-byte input halves hold 64 of K (3 K
  // tiles). IS: 3 column tiles of N stream past each resident A tile.
  const Case cases[] = {
      {Dataflow::kWeightStationary, SmallNpu(4, 4, 1, 4, 1), Ceil(K, 4) * Ceil(N, 4)},
      {Dataflow::kOutputStationary, SmallNpu(4, 4, 1, 4, 1), Ceil(M, 4) * Ceil(N, 4)},
      {Dataflow::kInputStationary, SmallNpu(4, 4, 4, 4, 1), Ceil(K, 4) * Ceil(M, 4)},
  };
  for (const Case& c : cases) {
    auto p = CompileGemmProgram(L, c.npu, TilerOptions{c.df});
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_GE(MatmulCount(p->entries[0]), 3 * c.folds) << DataflowName(c.df);
    const uint64_t want = ScaleSimCycles(c.df, M, K, N, 4, 4);
    EXPECT_EQ(EstimateEntry(*p, p->entries[0], c.npu, Overlap::kNone).cycles_total, want) << DataflowName(c.df);
    const RunResult fast = RunEntry(*p, c.npu, {x}, ExecOptions{ExecMode::kFast, Overlap::kNone});
    const RunResult sim = RunEntry(*p, c.npu, {x}, ExecOptions{ExecMode::kCycleStepped, Overlap::kNone});
    EXPECT_EQ(fast.metrics.cycles_total, want) << DataflowName(c.df);
    EXPECT_EQ(sim.metrics, fast.metrics);
    EXPECT_EQ(sim.outputs, fast.outputs);
  }
}

// When SRAM cannot keep IS's M x K input panel, the tiler reloads each A
// tile for every column tile; the reloaded bytes are a new fold (the
// documented departure from SCALE-Sim, which assumes the reuse).
TEST(ClassicModel, ReloadedStationaryTileIsANewFold) {
  std::mt19937 rng(9);
  const int64_t M = 100, K = 150, N = 10;
  const GemmLayer L = PlainGemm(M, K, N, rng);
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 4, 1);  // 4 x 150 f16 > 512-byte half
  auto p = CompileGemmProgram(L, npu, TilerOptions{Dataflow::kInputStationary});
  ASSERT_TRUE(p.ok()) << p.status();
  const uint64_t tiles = Ceil(K, 4) * Ceil(M, 4) * Ceil(N, 4);
  EXPECT_EQ(MatmulCount(p->entries[0]), tiles);
  const uint64_t want = tiles * (2 * 4 + 4 - 2) + Ceil(K, 4) * Ceil(M, 4) * N;
  EXPECT_EQ(EstimateEntry(*p, p->entries[0], npu, Overlap::kNone).cycles_total, want);
}

// The worked example of the ISA doc (section 7): a 64 x 40 x 40 FP16 WS
// GEMM on a 32 x 32 array as the tiler emits its four MATMUL_TILEs
// (K tiles 32 + 8, column tiles 32 + 8, one M tile; the K x nt panels
// resident), without the DMA and vector work around them.
TEST(ClassicModel, WorkedExampleOfBothConventions) {
  const auto soc = BuiltinSocConfig("ref-phone");
  ASSERT_TRUE(soc.ok());
  const SystolicNpuConfig& npu = soc->npu;
  const uint32_t in0 = SramAddress(Bank::kInput, 0), in1 = SramAddress(Bank::kInput, 8192);
  const uint32_t p0 = SramAddress(Bank::kWeight, 0), p1 = SramAddress(Bank::kWeight, 65536);
  const uint32_t acc0 = SramAddress(Bank::kAccum, 0), acc1 = SramAddress(Bank::kAccum, 65536);
  Program p;
  EntryPoint e;
  e.code = {
      MakeMatmulTile(0, TSR_DTYPE_F16, false, in0, p0, acc0, 64, 32, 32),
      MakeMatmulTile(0, TSR_DTYPE_F16, true, in1, p0 + 32 * 32 * 2, acc0, 64, 8, 32),
      MakeMatmulTile(0, TSR_DTYPE_F16, false, in0, p1, acc1, 64, 32, 8),
      MakeMatmulTile(0, TSR_DTYPE_F16, true, in1, p1 + 32 * 8 * 2, acc1, 64, 8, 8),
  };
  // overlap=none: 4 folds of 2R + C - 2 + M = 64 + 32 - 2 + 64 = 158.
  EXPECT_EQ(EstimateEntry(p, e, npu, Overlap::kNone).cycles_total, 4u * 158);
  // overlap=default, by hand (fill K, stream M = 64, drain N + R - 1):
  //   tile 1: preload [0, 32),    stream [32, 96),   done 96 + 63 = 159
  //   tile 2: preload [32, 40),   stream [96, 160),  done 160 + 63 = 223
  //   tile 3: preload [96, 128),  stream [160, 224), done 224 + 39 = 263
  //   tile 4: preload [160, 168), stream [224, 288), done 288 + 39 = 327
  const RunMetrics def = EstimateEntry(p, e, npu, Overlap::kDefault);
  EXPECT_EQ(def.cycles_total, 327u);
  EXPECT_EQ(def.cycles_compute, 327u);
}

// The fold bookkeeping on hand-written instructions.
TEST(ClassicModel, FoldContinuationRules) {
  const uint32_t in0 = SramAddress(Bank::kInput, 0), w0 = SramAddress(Bank::kWeight, 0);
  const uint32_t w1 = SramAddress(Bank::kWeight, 256), acc0 = SramAddress(Bank::kAccum, 0);
  const auto ws = [&](uint32_t w, uint32_t m, uint32_t k, uint32_t n) {
    return MakeMatmulTile(0, TSR_DTYPE_F16, false, in0, w, acc0, m, k, n);
  };
  ClassicFolds f;
  EXPECT_FALSE(f.Continues(ws(w0, 8, 4, 4)));  // first use of these weights
  EXPECT_TRUE(f.Continues(ws(w0, 3, 4, 4)));   // the same weights, more rows of M
  EXPECT_FALSE(f.Continues(ws(w1, 8, 4, 4)));  // other weights
  EXPECT_TRUE(f.Continues(ws(w0, 8, 4, 4)));   // the first fold is still resident
  EXPECT_FALSE(f.Continues(ws(w0, 8, 4, 2)));  // same bytes, another tile shape
  f.Overwritten(1, 8, 9);                      // a DMA writes one byte of it
  EXPECT_FALSE(f.Continues(ws(w0, 8, 4, 2)));
  f.Overwritten(0, 0, 1 << 20);  // the input bank holds no WS fold
  EXPECT_TRUE(f.Continues(ws(w0, 8, 4, 2)));
  // OS: the fold is the accumulator tile; only accumulating tiles continue it.
  const auto os = [&](bool acc, uint32_t m, uint32_t n) {
    return MakeMatmulTile(1, TSR_DTYPE_F16, acc, in0, w0, acc0, m, 4, n);
  };
  EXPECT_FALSE(f.Continues(os(false, 4, 4)));
  EXPECT_TRUE(f.Continues(os(true, 4, 4)));
  EXPECT_FALSE(f.Continues(os(false, 4, 4)));  // a fresh accumulation: a new fold
  EXPECT_FALSE(f.Continues(os(true, 2, 4)));   // another output tile shape
  // IS: the fold is the input tile; N streams, so any column count
  // continues it.
  const auto is = [&](uint32_t n) { return MakeMatmulTile(2, TSR_DTYPE_F16, false, in0, w1, acc0, 4, 4, n); };
  EXPECT_FALSE(f.Continues(is(4)));
  EXPECT_TRUE(f.Continues(is(2)));
  // Tiles that only read w0 (the OS ones) left the WS fold there alone.
  EXPECT_TRUE(f.Continues(ws(w0, 4, 4, 2)));
  f.Overwritten(0, 31, 32);  // the last byte of the 4 x 4 f16 input tile
  EXPECT_FALSE(f.Continues(is(4)));
}

}  // namespace
}  // namespace tessera::systolic
