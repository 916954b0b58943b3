#include "plugins/systolic_npu/machine/cycle_model.h"

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

TEST(CycleModel, MatmulFormulas) {
  // WS on an 8x8 array, one 8x8 weight tile, 100 input rows.
  MatmulTiming ws = MatmulFormula(Dataflow::kWeightStationary, 100, 8, 8, 8, 8);
  EXPECT_EQ(ws.fill, 8u);
  EXPECT_EQ(ws.stream, 100u);
  EXPECT_EQ(ws.drain, 15u);
  EXPECT_EQ(ws.total(), 123u);  // K + M + N + R - 1
  MatmulTiming os = MatmulFormula(Dataflow::kOutputStationary, 8, 100, 8, 8, 8);
  EXPECT_EQ(os.fill, 0u);
  EXPECT_EQ(os.stream, 100u);
  EXPECT_EQ(os.total(), 123u);
  // IS: A^T (K=8 x M=8) stationary, 100 weight columns stream.
  MatmulTiming is = MatmulFormula(Dataflow::kInputStationary, 8, 8, 100, 8, 8);
  EXPECT_EQ(is.fill, 8u);
  EXPECT_EQ(is.stream, 100u);
  EXPECT_EQ(is.drain, 15u);  // M + R - 1
  EXPECT_EQ(is.total(), 123u);
}

TEST(CycleModel, DmaAndVectorFormulas) {
  SystolicNpuConfig npu = SmallNpu(4, 4);  // 4 GB/s at 500 MHz = 8 B/cycle, latency 20
  EXPECT_EQ(DmaCycles(0, npu), 20u);
  EXPECT_EQ(DmaCycles(8, npu), 21u);
  EXPECT_EQ(DmaCycles(9, npu), 22u);
  EXPECT_EQ(DmaCycles(800, npu), 120u);
  Program p;
  const Instruction relu = MakeVector(VectorOp::kRelu, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 3, 5);
  EXPECT_EQ(VectorCycles(p, relu, npu), kVectorPipelineDepth + 4);  // ceil(15/4)
}

// docs/systolic_npu_isa.md section 7, VECTOR: 4 + passes * ceil(elements /
// vector_width), passes = kH * kW for pools, 2 for SIGMOID. The expected
// numbers are the document's, worked by hand, never the code's.
TEST(CycleModel, VectorFormulaPinnedForPoolsAndSigmoid) {
  SystolicNpuConfig npu = SmallNpu(4, 4);  // 4 lanes
  Program p;
  PoolDesc d;
  d.in_h = 9;
  d.in_w = 4;
  d.kernel_h = 3;
  d.kernel_w = 2;  // not square: kH and kW must not be confused
  d.out_h = 4;
  d.out_w = 3;
  const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, d);
  // 5 channels: 5 * 4 * 3 = 60 result elements on 4 lanes = 15 vectors, 6 passes.
  const Instruction max_pool = MakeVector(VectorOp::kMaxPool, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 5, 36, desc);
  EXPECT_EQ(VectorCycles(p, max_pool, npu), 4u + 6 * 15);
  const Instruction avg_pool = MakeVector(VectorOp::kAvgPool, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 5, 36, desc);
  EXPECT_EQ(VectorCycles(p, avg_pool, npu), 94u);
  // The document's GLOBAL_AVG_POOL example: a 7 x 7 plane of 64 channels on
  // 16 lanes = 4 + 49 * 4 = 200 cycles.
  SystolicNpuConfig wide = SmallNpu(16, 16);
  PoolDesc g;
  g.in_h = 7;
  g.in_w = 7;
  g.kernel_h = 7;
  g.kernel_w = 7;
  g.out_h = 1;
  g.out_w = 1;
  const uint32_t gdesc = p.AddDescriptor(ConstantKind::kPoolDesc, g);
  EXPECT_EQ(VectorCycles(p, MakeVector(VectorOp::kAvgPool, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 64, 49, gdesc), wide),
            200u);
  // SIGMOID of 15 elements on 4 lanes: 4 + 2 * 4 = 12; TANH: 4 + 4 = 8.
  EXPECT_EQ(VectorCycles(p, MakeVector(VectorOp::kSigmoid, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 3, 5), npu), 12u);
  EXPECT_EQ(VectorCycles(p, MakeVector(VectorOp::kTanh, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, 0, 3, 5), npu), 8u);
}

// Two independent MATMUL_TILEs per dataflow, both conventions, totals by
// hand from section 7 (fill / stream / drain per tile; under
// overlap=default the next tile preloads while this one streams, from the
// previous stream's start):
//   OS  M=8 K=20 N=8 on 8x8: fill 0, stream 20, drain 8+8+8-1 = 23.
//       tile 1 streams [0, 20), done 43; tile 2 streams [20, 40), done 63.
//       overlap=none: 2 folds of R + C + K - 2 = 34 -> 68.
//   IS  M=8 K=8 N=30: fill 8, stream 30, drain 8+8-1 = 15.
//       tile 1 preloads [0, 8), streams [8, 38), done 53; tile 2 preloads
//       [8, 16) under tile 1's stream, streams [38, 68), done 83.
//       overlap=none: 2 folds of 2R + C + N - 2 = 52 -> 104.
//   WS  M=30 K=8 N=8: fill 8, stream 30, drain 8+8-1 = 15: the same
//       numbers as IS (83 and 104).
TEST(CycleModel, PinnedTotalsOfIndependentTilesInBothConventions) {
  const SystolicNpuConfig npu = SmallNpu(8, 8, 16, 16, 16);
  const uint32_t in0 = SramAddress(Bank::kInput, 0), in1 = SramAddress(Bank::kInput, 4096);
  const uint32_t w0 = SramAddress(Bank::kWeight, 0), w1 = SramAddress(Bank::kWeight, 4096);
  const uint32_t acc0 = SramAddress(Bank::kAccum, 0), acc1 = SramAddress(Bank::kAccum, 4096);
  struct Row {
    Dataflow df;
    uint32_t m, k, n;
    uint64_t want_default, want_none;
  };
  const Row rows[] = {
      {Dataflow::kOutputStationary, 8, 20, 8, 63, 68},
      {Dataflow::kInputStationary, 8, 8, 30, 83, 104},
      {Dataflow::kWeightStationary, 30, 8, 8, 83, 104},
  };
  for (const Row& r : rows) {
    const uint8_t df = static_cast<uint8_t>(r.df);
    Program p;
    EntryPoint e;
    e.code = {MakeMatmulTile(df, TSR_DTYPE_F16, false, in0, w0, acc0, r.m, r.k, r.n),
              MakeMatmulTile(df, TSR_DTYPE_F16, false, in1, w1, acc1, r.m, r.k, r.n)};
    const RunMetrics def = EstimateEntry(p, e, npu, Overlap::kDefault);
    EXPECT_EQ(def.cycles_total, r.want_default) << DataflowName(r.df);
    EXPECT_EQ(def.cycles_compute, r.want_default) << DataflowName(r.df);  // the MXU never idles
    EXPECT_EQ(def.macs, 2ull * r.m * r.k * r.n);
    EXPECT_EQ(EstimateEntry(p, e, npu, Overlap::kNone).cycles_total, r.want_none) << DataflowName(r.df);
  }
}

TEST(CycleModel, OverlapConventions) {
  SystolicNpuConfig npu = SmallNpu(4, 4, 8, 8, 8);
  npu.dram_bandwidth_gbps = 500;  // compute bound: folds overlap each other
  npu.dram_latency_cycles = 2;
  std::mt19937 rng(1);
  GemmLayer L;
  L.M = 64;
  L.K = 64;
  L.N = 32;
  L.dtype = L.weights_dtype = TSR_DTYPE_F32;
  L.weights = FloatBytes(RandomF(rng, L.K * L.N));
  auto p = CompileGemmProgram(L, npu, TilerOptions{});
  ASSERT_TRUE(p.ok());
  const EntryPoint& e = p->entries[0];
  const RunMetrics none = EstimateEntry(*p, e, npu, Overlap::kNone);
  const RunMetrics def = EstimateEntry(*p, e, npu, Overlap::kDefault);
  // kNone: SCALE-Sim's WS count, ceil(K/R) * ceil(N/C) folds of
  // 2R + C - 2 + M cycles (no bias: no vector op).
  const uint64_t sum = (64 / 4) * (32 / 4) * (2 * 4 + 4 - 2 + 64);
  EXPECT_EQ(none.cycles_total, sum);
  EXPECT_EQ(none.cycles_compute, sum);
  EXPECT_EQ(none.cycles_dma_stall, 0u);
  // kDefault overlaps folds with each other but pays DMA.
  EXPECT_EQ(def.cycles_total, def.cycles_compute + def.cycles_dma_stall);
  EXPECT_LT(def.cycles_compute, none.cycles_compute);
  EXPECT_GT(def.dram_read_bytes, 0u);
  EXPECT_EQ(def.macs, 64u * 64 * 32);
  EXPECT_DOUBLE_EQ(def.utilization, static_cast<double>(def.macs) / (def.cycles_compute * 16.0));
  EXPECT_LE(def.utilization, 1.0);
  EXPECT_DOUBLE_EQ(def.time_us, def.cycles_total / 500.0);
  EXPECT_EQ(def.Named().size(), 11u);
  EXPECT_STREQ(def.Named()[0].name, "cycles_total");
}

TEST(CycleModel, DoubleBufferingHidesDma) {
  // Large K and M: a compute-bound WS layer on a fat DRAM pipe spends most
  // of its time computing; on a thin pipe it is DMA bound.
  std::mt19937 rng(2);
  GemmLayer L;
  L.M = 256;
  L.K = 64;
  L.N = 16;
  L.dtype = L.weights_dtype = TSR_DTYPE_I8;
  L.weights = RandomI8(rng, L.K * L.N);
  L.weight_scales = {0.01f};
  SystolicNpuConfig fat = SmallNpu(8, 8, 16, 16, 16);
  fat.dram_bandwidth_gbps = 1000;
  fat.dram_latency_cycles = 1;
  SystolicNpuConfig thin = fat;
  thin.dram_bandwidth_gbps = 0.05;
  auto pf = CompileGemmProgram(L, fat, {});
  ASSERT_TRUE(pf.ok());
  const RunMetrics f = EstimateEntry(*pf, pf->entries[0], fat, Overlap::kDefault);
  const RunMetrics t = EstimateEntry(*pf, pf->entries[0], thin, Overlap::kDefault);
  EXPECT_LT(f.cycles_dma_stall * 4, f.cycles_total);
  EXPECT_GT(t.cycles_dma_stall * 2, t.cycles_total);
  // Starved of data the folds no longer overlap each other.
  EXPECT_LE(f.cycles_compute, t.cycles_compute);
  EXPECT_GT(t.cycles_total, f.cycles_total);
}

TEST(CycleModel, TrafficCountsEveryByteOnce) {
  // A strip-resident WS GEMM: A is read once per column tile, the weights
  // and params once, the output written once.
  std::mt19937 rng(3);
  GemmLayer L;
  L.M = 40;
  L.K = 24;
  L.N = 12;
  L.dtype = L.weights_dtype = TSR_DTYPE_F32;
  L.weights = FloatBytes(RandomF(rng, L.K * L.N));
  L.bias_f = RandomF(rng, L.N);
  const SystolicNpuConfig npu = SmallNpu(8, 8, 16, 16, 16);
  auto p = CompileGemmProgram(L, npu, {});
  ASSERT_TRUE(p.ok());
  const RunMetrics m = EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault);
  const uint64_t col_tiles = 2;  // N = 12 on 8 columns
  EXPECT_EQ(m.dram_read_bytes, col_tiles * L.M * L.K * 4 + L.K * L.N * 2 + L.N * 4);
  EXPECT_EQ(m.dram_write_bytes, static_cast<uint64_t>(L.M * L.N * 4));
  // One DMA's cycles follow the bandwidth: 8 bytes/cycle + 20 latency.
  Program q;
  const Instruction load = MakeDmaLoadStrided(0, 1, 0, 10, 16, 16, 1, TSR_DTYPE_F32, TSR_DTYPE_F16);
  EXPECT_EQ(InstructionTraffic(q, load).dram_read, 640u);
  EXPECT_EQ(InstructionTraffic(q, load).sram_write, 320u);
}

TEST(CycleModel, OnChipArenaDmaIsSramTraffic) {
  // 8 x 8 array: the arena's port moves 4 * 8 = 32 bytes per cycle after
  // an 8-cycle latency. Entry: region 1 an input (DRAM), region 2 the
  // arena. Load 16 x 16 f32 (1024 B) from DRAM to the input bank, store it
  // to the arena, load it back: 20 + 1024 / 8 = 148 cycles, then
  // 8 + 1024 / 32 = 40 for the store, then 40 for the reload (each waits
  // for the one before: RAW on the bank, then on the arena).
  const SystolicNpuConfig npu = SmallNpu(8, 8, 16, 16, 16);
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  Region in;
  in.kind = RegionKind::kInput;
  in.dtype = TSR_DTYPE_F32;
  in.dims = {256};
  in.size_bytes = 1024;
  Region arena = in;
  arena.kind = RegionKind::kOnChip;
  arena.dtype = TSR_DTYPE_I8;
  arena.dims = {1024};
  e.regions = {in, arena};
  const uint32_t a = SramAddress(Bank::kInput, 0), b = SramAddress(Bank::kWeight, 0);
  e.code = {MakeDmaLoadStrided(a, 1, 0, 16, 16, 16, 1, TSR_DTYPE_F32, TSR_DTYPE_F32),
            MakeDmaStore(a, 2, 0, 16, 16, 16, 1, TSR_DTYPE_F32, TSR_DTYPE_F32),
            MakeDmaLoadStrided(b, 2, 0, 16, 16, 16, 1, TSR_DTYPE_F32, TSR_DTYPE_F32)};
  p.entries.push_back(e);
  ASSERT_TRUE(VerifyProgram(p, npu).ok()) << VerifyProgram(p, npu);
  EXPECT_EQ(SramDmaCycles(1024, npu), 40u);
  const RunMetrics m = EstimateEntry(p, p.entries[0], npu, Overlap::kDefault);
  EXPECT_EQ(m.cycles_total, 148u + 40 + 40);
  EXPECT_EQ(m.dram_read_bytes, 1024u);
  EXPECT_EQ(m.dram_write_bytes, 0u);
  EXPECT_EQ(m.sram_read_bytes, 1024u * 2);    // the bank by the store, the arena by the reload
  EXPECT_EQ(m.sram_write_bytes, 1024u * 3);   // two loads into banks, the store into the arena
  EXPECT_EQ(m.dram_bytes_compulsory, 1024u);  // the input once
}

TEST(CycleModel, ParseOptions) {
  EXPECT_EQ(*ParseOverlap("none"), Overlap::kNone);
  EXPECT_EQ(*ParseOverlap("default"), Overlap::kDefault);
  EXPECT_FALSE(ParseOverlap("some").ok());
  EXPECT_EQ(*ParseDataflow("os"), Dataflow::kOutputStationary);
  EXPECT_EQ(*ParseDataflow("is"), Dataflow::kInputStationary);
  EXPECT_FALSE(ParseDataflow("rs").ok());
}

}  // namespace
}  // namespace tessera::systolic
