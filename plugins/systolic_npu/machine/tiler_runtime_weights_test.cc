// Weights and biases read from DRAM at run time (OperandPlacement::kDram):
// the same bits as pre-tiled constants (the DMA engine rounds F32 -> F16
// exactly as the compiler does), within the FP16 bound of the ISA doc
// section 9 against f64, batched MATMUL with numpy broadcasting, their DRAM
// traffic in the metrics, and INT8 refused.
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

// F16 tensors hold F16 values: round the test data first so the f64
// reference sees what the NPU sees.
std::vector<float> Representable(std::vector<float> v, int32_t dtype) {
  if (dtype == TSR_DTYPE_F16)
    for (auto& x : v) x = RoundToHalf(x);
  return v;
}

// Runs `L` with its weights (and bias) both pretiled and placed in DRAM.
struct GemmRuns {
  RunResult pretiled, dram;
};

GemmRuns RunBothPlacements(GemmLayer L, const SystolicNpuConfig& npu, Dataflow df, const std::vector<uint8_t>& x,
                           bool dram_bias) {
  GemmRuns r;
  auto p = CompileGemmProgram(L, npu, TilerOptions{df});
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return r;
  r.pretiled = RunEntry(*p, npu, {x}, ExecOptions{});
  const std::vector<uint8_t> w = L.weights;
  const std::vector<uint8_t> b = FloatsAs(L.bias_f, L.dtype);
  L.weights.clear();
  L.weights_placement = OperandPlacement::kDram;
  std::vector<std::span<const uint8_t>> ins = {x, w};
  if (dram_bias) {
    L.bias_f.clear();
    L.bias_placement = OperandPlacement::kDram;
    ins.push_back(b);
  }
  auto q = CompileGemmProgram(L, npu, TilerOptions{df});
  EXPECT_TRUE(q.ok()) << q.status();
  if (q.ok()) r.dram = RunEntry(*q, npu, ins, ExecOptions{});
  return r;
}

TEST(RuntimeWeights, GemmSameBitsAsPretiledAndWithinBound) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 60; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7, 2 + rng() % 3, 2 + rng() % 3, 2 + rng() % 3);
    GemmLayer L;
    L.M = 1 + rng() % 40;
    L.K = 1 + rng() % 200;
    L.N = 1 + rng() % 30;
    L.dtype = L.weights_dtype = rng() % 2 ? TSR_DTYPE_F16 : TSR_DTYPE_F32;
    L.weight_layout = rng() % 2 ? WeightLayout::kNK : WeightLayout::kKN;
    const auto wf = Representable(RandomF(rng, L.K * L.N), L.dtype);
    L.weights = FloatsAs(wf, L.dtype);
    L.bias_f = Representable(RandomF(rng, L.N), L.dtype);
    L.activation = {static_cast<Activation>(rng() % 3), -1.0f, 1.5f};
    const auto xf = Representable(RandomF(rng, L.M * L.K), L.dtype);
    const bool dram_bias = rng() % 2;
    for (Dataflow df : kAllDataflows) {
      const GemmRuns r = RunBothPlacements(L, npu, df, FloatsAs(xf, L.dtype), dram_bias);
      ASSERT_EQ(r.pretiled.outputs, r.dram.outputs)
          << "M=" << L.M << " K=" << L.K << " N=" << L.N << " df=" << DataflowName(df);
      const bool f16 = L.dtype == TSR_DTYPE_F16;
      for (int64_t m = 0; m < L.M; ++m)
        for (int64_t n = 0; n < L.N; ++n) {
          double y = L.bias_f[n], mag = 0;
          for (int64_t k = 0; k < L.K; ++k) {
            const double w = wf[L.weight_layout == WeightLayout::kNK ? n * L.K + k : k * L.N + n];
            y += xf[m * L.K + k] * w;
            mag += std::fabs(xf[m * L.K + k] * w);
          }
          if (L.activation.kind == Activation::kRelu) y = std::max(0.0, y);
          if (L.activation.kind == Activation::kClip) y = std::clamp(y, -1.0, 1.5);
          const double g = OutputValue(r.dram.outputs[0], L.dtype, m * L.N + n);
          ASSERT_LE(std::fabs(g - y), Fp16Bound(L.K, mag, std::fabs(L.bias_f[n]), y, f16, f16))
              << "m=" << m << " n=" << n;
        }
    }
  }
}

TEST(RuntimeWeights, ConvSameBitsAsPretiledAndWithinBound) {
  std::mt19937 rng(32);
  for (int iter = 0; iter < 40; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7);
    Conv2dLayer L = RandomConv(rng);
    L.dtype = L.weights_dtype = rng() % 2 ? TSR_DTYPE_F16 : TSR_DTYPE_F32;
    const int64_t K = (L.in_channels / L.groups) * L.kernel_h * L.kernel_w;
    const auto wf = Representable(RandomF(rng, L.out_channels * K), L.dtype);
    L.weights = FloatsAs(wf, L.dtype);
    L.bias_f = Representable(RandomF(rng, L.out_channels), L.dtype);
    const auto xf = Representable(RandomF(rng, L.batch * L.in_channels * L.in_h * L.in_w), L.dtype);
    const auto x = FloatsAs(xf, L.dtype);
    std::vector<double> mag;
    const auto want = ConvRefFloat(L, xf, wf, &mag);
    auto p = CompileConv2dProgram(L, npu, TilerOptions{});
    ASSERT_TRUE(p.ok()) << p.status();
    const auto pretiled = RunEntry(*p, npu, {x}, ExecOptions{});
    Conv2dLayer R = L;
    R.weights.clear();
    R.bias_f.clear();
    R.weights_placement = R.bias_placement = OperandPlacement::kDram;
    auto q = CompileConv2dProgram(R, npu, TilerOptions{});
    ASSERT_TRUE(q.ok()) << q.status();
    const auto dram = RunEntry(*q, npu, {x, L.weights, FloatsAs(L.bias_f, L.dtype)}, ExecOptions{});
    ASSERT_EQ(pretiled.outputs, dram.outputs) << "groups=" << L.groups;
    const bool f16 = L.dtype == TSR_DTYPE_F16;
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_LE(std::fabs(OutputValue(dram.outputs[0], L.dtype, i) - want[i]),
                Fp16Bound(K, mag[i], 2.0, want[i], f16, f16))
          << i;
  }
}

struct BatchCase {
  std::vector<int64_t> a_batch, b_batch, out_batch;
};

TEST(RuntimeWeights, BatchedMatmulBroadcastsLeadingDims) {
  std::mt19937 rng(33);
  const std::vector<BatchCase> cases = {
      {{3}, {3}, {3}},           // equal leading dims (attention Q.K^T)
      {{2, 3}, {2, 3}, {2, 3}},  // rank 4
      {{}, {4}, {4}},            // a shared A
      {{2, 1}, {3}, {2, 3}},     // both broadcast
      {{1, 3}, {2, 1}, {2, 3}},
  };
  for (const BatchCase& c : cases)
    for (int32_t dtype : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
      ASSERT_EQ(*BroadcastBatchDims(c.a_batch, c.b_batch), c.out_batch);
      const SystolicNpuConfig npu = SmallNpu(3 + rng() % 4, 3 + rng() % 4);
      GemmLayer L;
      L.M = 1 + rng() % 9;
      L.K = 1 + rng() % 20;
      L.N = 1 + rng() % 9;
      L.dtype = dtype;
      L.weight_layout = WeightLayout::kKN;
      L.weights_placement = L.bias_placement = OperandPlacement::kDram;
      L.a_batch = c.a_batch;
      L.b_batch = c.b_batch;
      int64_t na = 1, nb = 1, no = 1;
      for (int64_t d : c.a_batch) na *= d;
      for (int64_t d : c.b_batch) nb *= d;
      for (int64_t d : c.out_batch) no *= d;
      const auto af = Representable(RandomF(rng, na * L.M * L.K), dtype);
      const auto bf = Representable(RandomF(rng, nb * L.K * L.N), dtype);
      const auto biasf = Representable(RandomF(rng, L.N), dtype);
      for (Dataflow df : kAllDataflows) {
        auto p = CompileGemmProgram(L, npu, TilerOptions{df});
        ASSERT_TRUE(p.ok()) << p.status();
        const auto out =
            RunEntry(*p, npu, {FloatsAs(af, dtype), FloatsAs(bf, dtype), FloatsAs(biasf, dtype)}, ExecOptions{})
                .outputs[0];
        // Reference: numpy indexing of the right-aligned leading dims.
        const size_t rank = c.out_batch.size();
        for (int64_t ob = 0; ob < no; ++ob) {
          int64_t ai = 0, bi = 0, rest = ob, sa = 1, sb = 1;
          for (size_t d = rank; d-- > 0;) {
            const int64_t coord = rest % c.out_batch[d];
            rest /= c.out_batch[d];
            const size_t off = rank - d;  // position from the right
            if (off <= c.a_batch.size()) {
              const int64_t dim = c.a_batch[c.a_batch.size() - off];
              if (dim != 1) ai += coord * sa;
              sa *= dim;
            }
            if (off <= c.b_batch.size()) {
              const int64_t dim = c.b_batch[c.b_batch.size() - off];
              if (dim != 1) bi += coord * sb;
              sb *= dim;
            }
          }
          for (int64_t m = 0; m < L.M; ++m)
            for (int64_t n = 0; n < L.N; ++n) {
              double y = biasf[n], mag = 0;
              for (int64_t k = 0; k < L.K; ++k) {
                const double v = static_cast<double>(af[(ai * L.M + m) * L.K + k]) * bf[(bi * L.K + k) * L.N + n];
                y += v;
                mag += std::fabs(v);
              }
              const bool f16 = dtype == TSR_DTYPE_F16;
              const double g = OutputValue(out, dtype, (ob * L.M + m) * L.N + n);
              ASSERT_LE(std::fabs(g - y), Fp16Bound(L.K, mag, std::fabs(biasf[n]), y, f16, f16))
                  << "batch " << ob << " m=" << m << " n=" << n;
            }
        }
      }
    }
  EXPECT_FALSE(BroadcastBatchDims({2}, {3}).ok());
  EXPECT_FALSE(BroadcastBatchDims({2, 4}, {3, 4}).ok());
}

TEST(RuntimeWeights, WeightTrafficIsDramReadBytesAndEstimateAgrees) {
  // K x N fits one weight buffer: under WS each weight is loaded exactly
  // once, as F32 (4 bytes) instead of the pre-tiled F16 panel (2 bytes).
  const SystolicNpuConfig npu = SmallNpu(4, 4, 4, 8, 4);
  std::mt19937 rng(34);
  GemmLayer L;
  L.M = 20;
  L.K = 30;
  L.N = 10;
  L.dtype = L.weights_dtype = TSR_DTYPE_F32;
  L.weight_layout = WeightLayout::kNK;
  L.weights = FloatBytes(RandomF(rng, L.K * L.N));
  const auto x = FloatBytes(RandomF(rng, L.M * L.K));
  const GemmRuns r = RunBothPlacements(L, npu, Dataflow::kWeightStationary, x, false);
  EXPECT_EQ(r.dram.metrics.dram_read_bytes - r.pretiled.metrics.dram_read_bytes, static_cast<uint64_t>(L.K * L.N * 2));
  L.weights.clear();
  L.weights_placement = OperandPlacement::kDram;
  auto p = CompileGemmProgram(L, npu, TilerOptions{});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault), r.dram.metrics);
}

TEST(RuntimeWeights, WeightTilesAreDoubleBuffered) {
  // The panel does not fit: one weight tile per (M tile, K tile), loaded
  // alternately into the two halves of the weight bank.
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 1, 1);
  GemmLayer L;
  L.M = 9;
  L.K = 300;
  L.N = 4;
  L.dtype = TSR_DTYPE_F32;
  L.weight_layout = WeightLayout::kKN;
  L.weights_placement = OperandPlacement::kDram;
  auto p = CompileGemmProgram(L, npu, TilerOptions{});
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<uint32_t> dst;
  for (const Instruction& in : p->entries[0].code)
    if (in.op == Opcode::kDmaLoad && in.c == 2) dst.push_back(in.f[0]);
  ASSERT_GT(dst.size(), 2u);
  for (size_t i = 0; i < dst.size(); ++i) {
    EXPECT_EQ(SramBankBits(dst[i]), static_cast<uint32_t>(Bank::kWeight));
    if (i > 0) {
      EXPECT_NE(dst[i], dst[i - 1]) << i;
    }
    if (i > 1) {
      EXPECT_EQ(dst[i], dst[i - 2]) << i;
    }
  }
}

TEST(RuntimeWeights, Int8AndMalformedLayersAreRejected) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  GemmLayer L;
  L.M = 2;
  L.K = 3;
  L.N = 4;
  L.dtype = L.weights_dtype = TSR_DTYPE_I8;
  L.weight_scales = {0.1f};
  L.weights_placement = OperandPlacement::kDram;
  auto p = CompileGemmProgram(L, npu, {});
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("zero point"), std::string::npos) << p.status();
  L.dtype = L.weights_dtype = TSR_DTYPE_F32;
  L.weights.resize(L.K * L.N * 4);  // bytes alongside a DRAM placement
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
  L.weights.clear();
  L.weights_placement = OperandPlacement::kPretiled;
  L.weights.resize(L.K * L.N * 4);
  L.a_batch = {2};
  L.b_batch = {2};  // batched needs the DRAM placement
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
  L.weights.clear();
  L.weights_placement = OperandPlacement::kDram;
  L.b_batch = {3};  // does not broadcast against {2}
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::systolic
