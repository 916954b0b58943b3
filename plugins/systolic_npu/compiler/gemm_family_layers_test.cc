// FULLY_CONNECTED / MATMUL / CONV_2D claims with weights and biases that
// arrive at run time: claimed and within the FP16 bound (ISA doc section 9)
// for f32/f16, batched MATMUL with broadcasting, precise refusals for int8
// and for shapes the NPU does not take, estimates equal to the run.
#include "plugins/systolic_npu/compiler/gemm_family_layers.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

RunResult RunGraph(const kit::GraphSnapshot& g, const std::vector<std::span<const uint8_t>>& ins,
                   Dataflow df = Dataflow::kWeightStationary) {
  auto p = LowerGraph(g, Edge(), LoweringOptions{df}, "main");
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  return RunEntry(*p, Edge(), ins, ExecOptions{});
}

std::vector<float> Representable(std::vector<float> v, int32_t dtype) {
  if (dtype == TSR_DTYPE_F16)
    for (auto& x : v) x = RoundToHalf(x);
  return v;
}

// y[b][m][n] = bias[n] + sum_k a[ai(b)][m][k] * w(bi(b), k, n), checked
// element by element against the FP16 bound.
void ExpectGemmWithinBound(const std::vector<uint8_t>& out, int32_t dtype, int64_t batches,
                           int64_t M, int64_t K, int64_t N,
                           const std::function<double(int64_t b, int64_t m, int64_t k)>& a,
                           const std::function<double(int64_t b, int64_t k, int64_t n)>& w,
                           const std::vector<float>& bias) {
  const bool f16 = dtype == TSR_DTYPE_F16;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double y = bias.empty() ? 0 : bias[n], mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          y += a(b, m, k) * w(b, k, n);
          mag += std::fabs(a(b, m, k) * w(b, k, n));
        }
        const double got = OutputValue(out, dtype, (b * M + m) * N + n);
        ASSERT_LE(std::fabs(got - y),
                  Fp16Bound(K, mag, bias.empty() ? 0 : std::fabs(bias[n]), y, f16, f16))
            << "b=" << b << " m=" << m << " n=" << n;
      }
}

TEST(GemmFamilyLayers, FullyConnectedWithRuntimeWeightsAndBias) {
  std::mt19937 rng(1);
  for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
    const int64_t M = 7, K = 45, N = 13;  // N > 8: several column tiles on ref-edge
    GraphBuilder b;
    const int32_t x = b.Input("x", dt, {M, K});
    const int32_t w = b.Input("w", dt, {N, K});
    const int32_t bt = b.Input("b", dt, {N});
    const int32_t y = b.Tensor("y", dt, {M, N});
    b.Op(TSR_OP_FULLY_CONNECTED, {x, w, bt}, {y});
    b.Output(y);
    const OpSupport s = CheckOpSupport(b.g, b.g.ops[0]);
    ASSERT_TRUE(s.supported) << s.detail;
    const auto xf = Representable(RandomF(rng, M * K), dt);
    const auto wf = Representable(RandomF(rng, N * K), dt);
    const auto bf = Representable(RandomF(rng, N), dt);
    for (Dataflow df : kAllDataflows) {
      const auto out =
          RunGraph(b.g, {FloatsAs(xf, dt), FloatsAs(wf, dt), FloatsAs(bf, dt)}, df).outputs[0];
      ExpectGemmWithinBound(
          out, dt, 1, M, K, N, [&](int64_t, int64_t m, int64_t k) { return xf[m * K + k]; },
          [&](int64_t, int64_t k, int64_t n) { return wf[n * K + k]; }, bf);
    }
  }
}

TEST(GemmFamilyLayers, MatmulRuntimeRightOperandFoldsLeadingDims) {
  std::mt19937 rng(2);
  const int64_t M = 5, K = 11, N = 6;
  GraphBuilder b;
  const int32_t a = b.Input("a", TSR_DTYPE_F32, {2, 3, M, K});
  const int32_t w = b.Input("b", TSR_DTYPE_F32, {1, K, N});  // broadcasts away: one GEMM
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 3, M, N});
  b.Op(TSR_OP_MATMUL, {a, w}, {y});
  b.Output(y);
  ASSERT_TRUE(CheckOpSupport(b.g, b.g.ops[0]).supported) << CheckOpSupport(b.g, b.g.ops[0]).detail;
  const auto af = RandomF(rng, 6 * M * K), wf = RandomF(rng, K * N);
  const auto out = RunGraph(b.g, {FloatBytes(af), FloatBytes(wf)}).outputs[0];
  ExpectGemmWithinBound(
      out, TSR_DTYPE_F32, 6, M, K, N,
      [&](int64_t bi, int64_t m, int64_t k) { return af[(bi * M + m) * K + k]; },
      [&](int64_t, int64_t k, int64_t n) { return wf[k * N + n]; }, {});
}

TEST(GemmFamilyLayers, BatchedMatmulEqualAndBroadcastLeadingDims) {
  std::mt19937 rng(3);
  const int64_t M = 4, K = 9, N = 10;
  struct Case {
    std::vector<int64_t> a, b, out;
    bool constant_b;
  };
  // Equal leading dims (attention), broadcasting both ways, a constant
  // batched B (read from the constant pool like a runtime one).
  const std::vector<Case> cases = {{{2, 3}, {2, 3}, {2, 3}, false},
                                   {{2, 1}, {3}, {2, 3}, false},
                                   {{}, {4}, {4}, false},
                                   {{3}, {3}, {3}, true}};
  for (const Case& c : cases)
    for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
      auto dims = [](std::vector<int64_t> lead, int64_t r, int64_t cl) {
        lead.push_back(r);
        lead.push_back(cl);
        return lead;
      };
      int64_t na = 1, nb = 1, no = 1;
      for (int64_t d : c.a) na *= d;
      for (int64_t d : c.b) nb *= d;
      for (int64_t d : c.out) no *= d;
      const auto af = Representable(RandomF(rng, na * M * K), dt);
      const auto wf = Representable(RandomF(rng, nb * K * N), dt);
      GraphBuilder g;
      const int32_t a = g.Input("a", dt, dims(c.a, M, K));
      const int32_t w = c.constant_b ? g.Const("b", dt, dims(c.b, K, N), FloatsAs(wf, dt))
                                     : g.Input("b", dt, dims(c.b, K, N));
      const int32_t y = g.Tensor("y", dt, dims(c.out, M, N));
      g.Op(TSR_OP_MATMUL, {a, w}, {y});
      g.Output(y);
      const OpSupport s = CheckOpSupport(g.g, g.g.ops[0]);
      ASSERT_TRUE(s.supported) << s.detail;
      std::vector<std::span<const uint8_t>> ins;
      const auto ab = FloatsAs(af, dt), wb = FloatsAs(wf, dt);
      ins.push_back(ab);
      if (!c.constant_b) ins.push_back(wb);
      const auto out = RunGraph(g.g, ins).outputs[0];
      ASSERT_EQ(out.size(), static_cast<size_t>(no * M * N) * (dt == TSR_DTYPE_F16 ? 2 : 4));
      // Batch index of A and B for output batch o (the cases above: the
      // last output dim maps to the last dim of each operand, or 0).
      auto src = [&](const std::vector<int64_t>& lead, int64_t o) -> int64_t {
        if (lead.empty()) return 0;
        int64_t index = 0, stride = 1, rest = o;
        for (size_t d = c.out.size(); d-- > 0;) {
          const int64_t coord = rest % c.out[d];
          rest /= c.out[d];
          const size_t from_right = c.out.size() - d;
          if (from_right > lead.size()) continue;
          const int64_t dim = lead[lead.size() - from_right];
          if (dim != 1) index += coord * stride;
          stride *= dim;
        }
        return index;
      };
      ExpectGemmWithinBound(
          out, dt, no, M, K, N,
          [&](int64_t o, int64_t m, int64_t k) { return af[(src(c.a, o) * M + m) * K + k]; },
          [&](int64_t o, int64_t k, int64_t n) { return wf[(src(c.b, o) * K + k) * N + n]; },
          {});
    }
}

TEST(GemmFamilyLayers, ConvWithRuntimeWeightsAndBias) {
  std::mt19937 rng(4);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4, 7, 6});
  const int32_t w = b.Input("w", TSR_DTYPE_F32, {6, 2, 3, 3});
  const int32_t bt = b.Input("b", TSR_DTYPE_F32, {6});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 6, 4, 3});
  auto& op = b.Op(TSR_OP_CONV_2D, {x, w, bt}, {y});
  op.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  op.attrs[TSR_ATTR_PADS].ints = {1, 1, 1, 0};
  op.attrs[TSR_ATTR_GROUPS].ints = {2};
  b.Output(y);
  ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  Conv2dLayer L;
  L.batch = 2; L.in_channels = 4; L.in_h = 7; L.in_w = 6;
  L.out_channels = 6; L.kernel_h = L.kernel_w = 3; L.groups = 2;
  L.stride_h = L.stride_w = 2;
  L.pad_top = L.pad_left = L.pad_bottom = 1;
  const auto xf = RandomF(rng, 2 * 4 * 7 * 6), wf = RandomF(rng, 6 * 2 * 9);
  L.bias_f = RandomF(rng, 6);
  std::vector<double> mag;
  const auto want = ConvRefFloat(L, xf, wf, &mag);
  const auto got = RunGraph(b.g, {FloatBytes(xf), FloatBytes(wf), FloatBytes(L.bias_f)}).outputs[0];
  ASSERT_EQ(got.size(), want.size() * 4);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::fabs(OutputValue(got, TSR_DTYPE_F32, i) - want[i]),
              Fp16Bound(18, mag[i], 2.0, want[i], false, false))
        << i;
}

// Attention scores Q.K^T inside one partition: K is produced by the NPU
// into the scratch region and read back as the FULLY_CONNECTED weights.
// The whole partition gives the bits of running the three ops one by one.
TEST(GemmFamilyLayers, AttentionScoresReadAnIntermediateAsWeights) {
  std::mt19937 rng(6);
  const int64_t T = 6, D = 16, H = 8;
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {T, D});
  const int32_t wq = b.Const("wq", TSR_DTYPE_F32, {H, D}, AsBytes(RandomF(rng, H * D)));
  const int32_t wk = b.Const("wk", TSR_DTYPE_F32, {H, D}, AsBytes(RandomF(rng, H * D)));
  const int32_t q = b.Tensor("q", TSR_DTYPE_F32, {T, H});
  const int32_t k = b.Tensor("k", TSR_DTYPE_F32, {T, H});
  const int32_t s = b.Tensor("scores", TSR_DTYPE_F32, {T, T});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, wq}, {q});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, wk}, {k});
  b.Op(TSR_OP_FULLY_CONNECTED, {q, k}, {s});  // s = q . k^T, k at run time
  b.Output(s);
  for (const auto& op : b.g.ops)
    ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  const auto xb = FloatBytes(RandomF(rng, T * D));
  const auto whole = RunGraph(b.g, {xb}).outputs[0];
  auto alone = [&](size_t i, const std::vector<std::span<const uint8_t>>& ins) {
    GraphBuilder one;
    one.g.tensors = b.g.tensors;
    one.g.ops = {b.g.ops[i]};
    for (int32_t t : b.g.ops[i].inputs)
      if (!b.g.tensors[t].is_constant) one.g.inputs.push_back(t);
    one.g.outputs = {b.g.ops[i].outputs[0]};
    return RunGraph(one.g, ins).outputs[0];
  };
  const auto qb = alone(0, {xb}), kb = alone(1, {xb});
  EXPECT_EQ(whole, alone(2, {qb, kb}));
}

TEST(GemmFamilyLayers, Int8RuntimeWeightsOrBiasAreRefusedWithTheReason) {
  const kit::SnapshotQuant act{{0.1f}, {0}, -1};
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_I8, {2, 4}, act);
  const int32_t w_rt = b.Input("w_rt", TSR_DTYPE_I8, {3, 4}, {{0.05f}, {0}, -1});
  const int32_t w = b.Const("w", TSR_DTYPE_I8, {3, 4}, std::vector<uint8_t>(12, 1),
                            {{0.05f}, {0}, -1});
  const int32_t b_rt = b.Input("b_rt", TSR_DTYPE_I32, {3});
  const int32_t y1 = b.Tensor("y1", TSR_DTYPE_I8, {2, 3}, act);
  const int32_t y2 = b.Tensor("y2", TSR_DTYPE_I8, {2, 3}, act);
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w_rt}, {y1});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w, b_rt}, {y2});
  const OpSupport weights = CheckOpSupport(b.g, b.g.ops[0]);
  EXPECT_FALSE(weights.supported);
  EXPECT_EQ(weights.reason, TSR_REFUSAL_UNSUPPORTED_QUANTIZATION);
  EXPECT_NE(weights.detail.find("'w_rt' computed at run time"), std::string::npos) << weights.detail;
  EXPECT_NE(weights.detail.find("zero point"), std::string::npos) << weights.detail;
  const OpSupport bias = CheckOpSupport(b.g, b.g.ops[1]);
  EXPECT_FALSE(bias.supported);
  EXPECT_EQ(bias.reason, TSR_REFUSAL_UNSUPPORTED_QUANTIZATION);
  EXPECT_NE(bias.detail.find("'b_rt' computed at run time"), std::string::npos) << bias.detail;
}

TEST(GemmFamilyLayers, MatmulShapesTheNpuDoesNotTakeAreRefused) {
  GraphBuilder b;
  const int32_t a = b.Input("a", TSR_DTYPE_F32, {2, 4, 5});
  const int32_t w3 = b.Input("w3", TSR_DTYPE_F32, {3, 5, 6});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {3, 4, 6});
  const int32_t v = b.Input("v", TSR_DTYPE_F32, {5});
  const int32_t yv = b.Tensor("yv", TSR_DTYPE_F32, {2, 4});
  b.Op(TSR_OP_MATMUL, {a, w3}, {y});   // leading dims 2 vs 3
  b.Op(TSR_OP_MATMUL, {a, v}, {yv});   // 1-D right operand
  for (size_t i = 0; i < 2; ++i) {
    const OpSupport s = CheckOpSupport(b.g, b.g.ops[i]);
    EXPECT_FALSE(s.supported) << i;
    EXPECT_EQ(s.reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE) << s.detail;
  }
  EXPECT_NE(CheckOpSupport(b.g, b.g.ops[0]).detail.find("do not broadcast"), std::string::npos);
  // Quantized MATMUL needs one constant [K, N].
  const kit::SnapshotQuant q{{0.1f}, {0}, -1};
  GraphBuilder c;
  const int32_t qa = c.Input("a", TSR_DTYPE_I8, {2, 4, 5}, q);
  const int32_t qw = c.Const("w", TSR_DTYPE_I8, {2, 5, 6}, std::vector<uint8_t>(60, 1), q);
  const int32_t qy = c.Tensor("y", TSR_DTYPE_I8, {2, 4, 6}, q);
  c.Op(TSR_OP_MATMUL, {qa, qw}, {qy});
  EXPECT_EQ(CheckOpSupport(c.g, c.g.ops[0]).reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE);
}

TEST(GemmFamilyLayers, EstimateCountsTheWeightTrafficAndEqualsTheRun) {
  std::mt19937 rng(5);
  const int64_t M = 16, K = 64, N = 24;
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {M, K});
  const int32_t w = b.Input("w", TSR_DTYPE_F32, {N, K});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {M, N});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {y});
  b.Output(y);
  auto est = EstimateOp(b.g, 0, Edge(), {}, Overlap::kDefault);
  ASSERT_TRUE(est.ok()) << est.status();
  // At least the whole input and the whole weight matrix cross DRAM once.
  EXPECT_GE(est->dram_read_bytes, static_cast<uint64_t>((M * K + N * K) * 4));
  const auto run = RunGraph(b.g, {FloatBytes(RandomF(rng, M * K)), FloatBytes(RandomF(rng, N * K))});
  EXPECT_EQ(run.metrics, *est);
}

}  // namespace
}  // namespace tessera::systolic
