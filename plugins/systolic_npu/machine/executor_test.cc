// Fast vs cycle-stepped: bit-identical outputs and identical metrics, and
// the simulated tile timing equals the cycle formula.
#include "plugins/systolic_npu/machine/executor.h"

#include <cstdio>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using snpu_test::Bytes;
using snpu_test::RunEntry;
using snpu_test::SmallNpu;

TEST(MatmulEngine, SimulatedTimingEqualsFormula) {
  std::mt19937 rng(1);
  auto fast = MakeFastMatmulEngine();
  auto sim = MakeCycleSteppedMatmulEngine();
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t R = 1 + rng() % 9, C = 1 + rng() % 9;
    const Dataflow df = kAllDataflows[rng() % 3];
    // The stationary operand fits the array, the streamed dimension is free.
    uint32_t M = 1 + rng() % 20, K = 1 + rng() % 20, N = 1 + rng() % 20;
    if (df == Dataflow::kWeightStationary) {
      K = 1 + rng() % R;
      N = 1 + rng() % C;
    } else if (df == Dataflow::kOutputStationary) {
      M = 1 + rng() % R;
      N = 1 + rng() % C;
    } else {
      K = 1 + rng() % R;
      M = 1 + rng() % C;
    }
    const bool f16 = rng() % 2;
    const size_t es = f16 ? 2 : 1;
    std::vector<uint8_t> a(M * K * es), w(K * N * es);
    for (size_t i = 0; i < a.size(); i += es) {
      if (f16) {
        const uint16_t h = FloatToHalf(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 37.0f);
        std::memcpy(&a[i], &h, 2);
      } else {
        a[i] = static_cast<uint8_t>(rng());
      }
    }
    for (size_t i = 0; i < w.size(); i += es) {
      if (f16) {
        const uint16_t h = FloatToHalf(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 91.0f);
        std::memcpy(&w[i], &h, 2);
      } else {
        w[i] = static_cast<uint8_t>(rng());
      }
    }
    const bool accumulate = rng() % 2;
    std::vector<uint8_t> acc0(M * N * 4);
    for (auto& b : acc0) b = static_cast<uint8_t>(rng() % 64);  // finite floats
    std::vector<uint8_t> acc1 = acc0;
    MatmulArgs x{df, f16 ? TSR_DTYPE_F16 : TSR_DTYPE_I8, accumulate, a.data(), w.data(), acc0.data(), M, K, N, R, C};
    const MatmulTiming tf = fast->Run(x);
    x.acc = acc1.data();
    const MatmulTiming ts = sim->Run(x);
    EXPECT_EQ(tf, ts) << "R=" << R << " C=" << C << " M=" << M << " K=" << K << " N=" << N
                      << " df=" << DataflowName(df);
    EXPECT_EQ(tf, MatmulFormula(df, M, K, N, R, C));
    EXPECT_EQ(acc0, acc1) << "M=" << M << " K=" << K << " N=" << N;
  }
}

// Random layers through the whole pipeline (tiler -> bytecode -> both
// executors), all three dataflows, both overlap conventions, int8 and fp16.
TEST(Executor, FastAndCycleSteppedAreIdentical) {
  std::mt19937 rng(2);
  int cases = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const int64_t R = 2 + rng() % 7, C = 2 + rng() % 7;
    const SystolicNpuConfig npu = SmallNpu(R, C, 2 + rng() % 3, 2 + rng() % 3, 2 + rng() % 3);
    GemmLayer L;
    L.M = 1 + rng() % 40;
    L.K = 1 + rng() % 40;
    L.N = 1 + rng() % 30;
    const int kind = rng() % 3;  // i8, f16, f32
    L.dtype = kind == 0 ? TSR_DTYPE_I8 : (kind == 1 ? TSR_DTYPE_F16 : TSR_DTYPE_F32);
    L.activation.kind = static_cast<Activation>(rng() % 3);
    L.activation.clip_min = -0.5f;
    L.activation.clip_max = 0.75f;
    L.weight_layout = rng() % 2 ? WeightLayout::kNK : WeightLayout::kKN;
    std::vector<uint8_t> x;
    if (L.dtype == TSR_DTYPE_I8) {
      L.weights_dtype = TSR_DTYPE_I8;
      L.weights = snpu_test::RandomI8(rng, L.K * L.N);
      if (rng() % 2) {
        L.bias_q.resize(L.N);
        for (auto& b : L.bias_q) b = static_cast<int32_t>(rng() % 20001) - 10000;
      }
      L.input_q = {0.02f, static_cast<int32_t>(rng() % 256) - 128};
      L.output_q = {0.5f + (rng() % 100) / 50.0f, static_cast<int32_t>(rng() % 256) - 128};
      L.weight_scales = snpu_test::RandomF(rng, rng() % 2 ? L.N : 1, 0.001f, 0.05f);
      x = snpu_test::RandomI8(rng, L.M * L.K);
    }
    // Float layers: half of them read their weights (and maybe the bias)
    // from DRAM at run time, a third of those as a batched MATMUL.
    std::vector<uint8_t> w_dram, b_dram;
    int64_t batches = 1;
    if (L.dtype != TSR_DTYPE_I8) {
      const bool dram_w = rng() % 2;
      if (dram_w && L.weight_layout == WeightLayout::kKN && rng() % 3 == 0) {
        L.a_batch = {1 + static_cast<int64_t>(rng() % 3)};
        L.b_batch = {rng() % 2 ? L.a_batch[0] : 1};
        batches = L.a_batch[0];
      }
      const auto wf = snpu_test::RandomF(rng, batches * L.K * L.N);
      L.weights_dtype = TSR_DTYPE_F32;
      if (rng() % 2) L.bias_f = snpu_test::RandomF(rng, L.N);
      x = snpu_test::FloatsAs(snpu_test::RandomF(rng, batches * L.M * L.K), L.dtype);
      if (dram_w) {
        L.weights_placement = OperandPlacement::kDram;
        w_dram = snpu_test::FloatsAs(wf, L.dtype);
        if (!L.bias_f.empty() && rng() % 2) {
          L.bias_placement = OperandPlacement::kDram;
          b_dram = snpu_test::FloatsAs(L.bias_f, L.dtype);
          L.bias_f.clear();
        }
      } else {
        L.weights = snpu_test::FloatBytes(wf);
      }
    }
    std::vector<std::span<const uint8_t>> ins = {x};
    if (!w_dram.empty()) ins.push_back(w_dram);
    if (!b_dram.empty()) ins.push_back(b_dram);
    for (Dataflow df : kAllDataflows) {
      auto p = CompileGemmProgram(L, npu, TilerOptions{df});
      ASSERT_TRUE(p.ok()) << p.status();
      for (Overlap ov : {Overlap::kDefault, Overlap::kNone}) {
        const auto fast = RunEntry(*p, npu, ins, ExecOptions{ExecMode::kFast, ov});
        const auto sim = RunEntry(*p, npu, ins, ExecOptions{ExecMode::kCycleStepped, ov});
        ASSERT_EQ(fast.outputs, sim.outputs) << "M=" << L.M << " K=" << L.K << " N=" << L.N << " dtype=" << L.dtype
                                             << " df=" << DataflowName(df) << " dram weights=" << !w_dram.empty();
        EXPECT_EQ(fast.metrics, sim.metrics);
        EXPECT_GT(fast.metrics.cycles_total, 0u);
        EXPECT_EQ(fast.metrics.macs, static_cast<uint64_t>(batches * L.M * L.K * L.N));
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 720);
}

TEST(Executor, ConvFastAndCycleSteppedAreIdentical) {
  std::mt19937 rng(4);
  for (int iter = 0; iter < 30; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(4 + rng() % 5, 4 + rng() % 5);
    Conv2dLayer L;
    L.batch = 1 + rng() % 2;
    L.groups = rng() % 3 == 0 ? 2 : 1;
    L.in_channels = L.groups * (1 + rng() % 3);
    L.out_channels = L.groups * (1 + rng() % 4);
    L.in_h = 3 + rng() % 6;
    L.in_w = 3 + rng() % 6;
    L.kernel_h = 1 + rng() % 3;
    L.kernel_w = 1 + rng() % 3;
    L.stride_h = 1 + rng() % 2;
    L.pad_top = rng() % 2;
    L.pad_left = L.pad_bottom = L.pad_right = L.pad_top;
    const bool q = rng() % 2;
    L.dtype = q ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
    const int64_t wn = L.out_channels * (L.in_channels / L.groups) * L.kernel_h * L.kernel_w;
    std::vector<uint8_t> x;
    const int64_t xn = L.batch * L.in_channels * L.in_h * L.in_w;
    if (q) {
      L.weights_dtype = TSR_DTYPE_I8;
      L.weights = snpu_test::RandomI8(rng, wn);
      L.input_q = {0.05f, 7};
      L.output_q = {0.7f, -3};
      L.weight_scales = {0.01f};
      x = snpu_test::RandomI8(rng, xn);
    }
    // Float convs: half of them read weights and bias from DRAM.
    std::vector<uint8_t> w_dram, b_dram;
    if (!q) {
      const auto wf = snpu_test::RandomF(rng, wn);
      const auto bf = snpu_test::RandomF(rng, L.out_channels);
      x = snpu_test::FloatsAs(snpu_test::RandomF(rng, xn), L.dtype);
      L.weights_dtype = TSR_DTYPE_F32;
      if (rng() % 2) {
        L.weights_placement = L.bias_placement = OperandPlacement::kDram;
        w_dram = snpu_test::FloatsAs(wf, L.dtype);
        b_dram = snpu_test::FloatsAs(bf, L.dtype);
      } else {
        L.weights = snpu_test::FloatBytes(wf);
        L.bias_f = bf;
      }
    }
    std::vector<std::span<const uint8_t>> ins = {x};
    if (!w_dram.empty()) ins = {x, w_dram, b_dram};
    for (Dataflow df : kAllDataflows) {
      auto p = CompileConv2dProgram(L, npu, TilerOptions{df});
      ASSERT_TRUE(p.ok()) << p.status();
      for (Overlap ov : {Overlap::kDefault, Overlap::kNone}) {
        const auto fast = RunEntry(*p, npu, ins, ExecOptions{ExecMode::kFast, ov});
        const auto sim = RunEntry(*p, npu, ins, ExecOptions{ExecMode::kCycleStepped, ov});
        ASSERT_EQ(fast.outputs, sim.outputs);
        EXPECT_EQ(fast.metrics, sim.metrics);
      }
    }
  }
}
}  // namespace
}  // namespace tessera::systolic
