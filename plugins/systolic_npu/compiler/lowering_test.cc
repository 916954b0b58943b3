// Lowering of graph partitions: claims and refusals, numerics of lowered
// layers against references, multi-op partitions with scratch tensors.
#include "plugins/systolic_npu/compiler/lowering.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

RunResult RunGraph(const kit::GraphSnapshot& g, const SystolicNpuConfig& npu,
                   const std::vector<std::span<const uint8_t>>& inputs,
                   Dataflow df = Dataflow::kWeightStationary) {
  auto p = LowerGraph(g, npu, LoweringOptions{df}, "main");
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  return RunEntry(*p, npu, inputs, ExecOptions{});
}

TEST(Lowering, QuantizedFullyConnectedIsBitExact) {
  std::mt19937 rng(1);
  GraphBuilder b;
  const int64_t M = 5, K = 37, N = 19;
  const int32_t x = b.Input("x", TSR_DTYPE_I8, {M, K}, {{0.04f}, {-3}, -1});
  std::vector<float> ws = RandomF(rng, N, 0.005f, 0.02f);
  const auto wbytes = RandomI8(rng, N * K);
  const int32_t w = b.Const("w", TSR_DTYPE_I8, {N, K}, wbytes, {ws, std::vector<int64_t>(N, 0), 0});
  std::vector<int32_t> bias(N);
  for (auto& v : bias) v = static_cast<int32_t>(rng() % 2001) - 1000;
  const int32_t bt = b.Const("b", TSR_DTYPE_I32, {N}, AsBytes(bias));
  const int32_t y = b.Tensor("y", TSR_DTYPE_I8, {M, N}, {{0.9f}, {5}, -1});
  auto& op = b.Op(TSR_OP_FULLY_CONNECTED, {x, w, bt}, {y});
  op.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
  b.Output(y);
  ASSERT_TRUE(CheckOpSupport(b.g, b.g.ops[0]).supported) << CheckOpSupport(b.g, b.g.ops[0]).detail;

  GemmLayer L;
  L.M = M; L.K = K; L.N = N;
  L.dtype = L.weights_dtype = TSR_DTYPE_I8;
  L.weights = wbytes;
  L.bias_q = bias;
  L.input_q = {0.04f, -3};
  L.output_q = {0.9f, 5};
  L.weight_scales = ws;
  L.activation.kind = Activation::kRelu;
  const auto xin = RandomI8(rng, M * K);
  const auto want = ReferenceGemmI8(L, xin);
  for (Dataflow df : kAllDataflows) {
    const auto got = RunGraph(b.g, Edge(), {xin}, df);
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(0, std::memcmp(got.outputs[0].data(), want.data(), want.size()));
  }
}

TEST(Lowering, FloatConvBiasReluWithinBound) {
  std::mt19937 rng(2);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 3, 9, 9});
  const auto wf = RandomF(rng, 4 * 3 * 3 * 3);
  const auto bf = RandomF(rng, 4);
  const int32_t w = b.Const("w", TSR_DTYPE_F32, {4, 3, 3, 3}, AsBytes(wf));
  const int32_t bt = b.Const("b", TSR_DTYPE_F32, {4}, AsBytes(bf));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {1, 4, 5, 5});
  auto& op = b.Op(TSR_OP_CONV_2D, {x, w, bt}, {y});
  op.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  op.attrs[TSR_ATTR_PADS].ints = {1, 1, 1, 1};
  op.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
  b.Output(y);
  const auto xf = RandomF(rng, 3 * 81);
  const auto got = AsFloats(RunGraph(b.g, Edge(), {FloatBytes(xf)}).outputs[0]);
  for (int oc = 0; oc < 4; ++oc)
    for (int oh = 0; oh < 5; ++oh)
      for (int ow = 0; ow < 5; ++ow) {
        double s = bf[oc], mag = 0;
        for (int c = 0; c < 3; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              const int ih = oh * 2 + kh - 1, iw = ow * 2 + kw - 1;
              if (ih < 0 || iw < 0 || ih >= 9 || iw >= 9) continue;
              const double p = xf[(c * 9 + ih) * 9 + iw] * wf[((oc * 3 + c) * 3 + kh) * 3 + kw];
              s += p;
              mag += std::fabs(p);
            }
        s = std::max(0.0, s);
        EXPECT_NEAR(got[(oc * 5 + oh) * 5 + ow], s, 3e-3 * mag + 1e-6);
      }
}

// conv -> relu -> max pool -> fully connected in one partition equals the
// ops run one by one (exercises scratch tensors and region plumbing).
TEST(Lowering, MultiOpPartitionEqualsOpByOp) {
  std::mt19937 rng(3);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F16, {1, 2, 8, 8});
  const int32_t w = b.Const("w", TSR_DTYPE_F16, {4, 2, 3, 3}, AsBytes(ToHalf(RandomF(rng, 72))));
  const int32_t c = b.Tensor("c", TSR_DTYPE_F16, {1, 4, 8, 8});
  auto& conv = b.Op(TSR_OP_CONV_2D, {x, w}, {c});
  conv.attrs[TSR_ATTR_PADS].ints = {1, 1, 1, 1};
  const int32_t r = b.Tensor("r", TSR_DTYPE_F16, {1, 4, 8, 8});
  b.Op(TSR_OP_RELU, {c}, {r});
  const int32_t pl = b.Tensor("p", TSR_DTYPE_F16, {1, 4, 4, 4});
  auto& pool = b.Op(TSR_OP_MAX_POOL_2D, {r}, {pl});
  pool.attrs[TSR_ATTR_KERNEL_SHAPE].ints = {2, 2};
  pool.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  const int32_t fw = b.Const("fw", TSR_DTYPE_F16, {3, 4}, AsBytes(ToHalf(RandomF(rng, 12))));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F16, {1, 4, 4, 3});
  b.Op(TSR_OP_FULLY_CONNECTED, {pl, fw}, {y});
  const int32_t z = b.Tensor("z", TSR_DTYPE_F16, {1, 4, 4, 3});
  b.Op(TSR_OP_ADD, {y, y}, {z});
  b.Output(z);
  b.Output(r);  // an intermediate that is also a partition output
  for (const auto& op : b.g.ops) ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  const auto xh = ToHalf(RandomF(rng, 128));
  const std::vector<uint8_t> xin = AsBytes(xh);
  const auto whole = RunGraph(b.g, Edge(), {xin});
  ASSERT_EQ(whole.outputs.size(), 2u);
  // Op by op: feed each op's output to the next.
  std::vector<uint8_t> cur = xin, relu_out;
  for (size_t i = 0; i < b.g.ops.size(); ++i) {
    GraphBuilder one;
    one.g.tensors = b.g.tensors;
    kit::SnapshotOp op = b.g.ops[i];
    one.g.ops = {op};
    one.g.inputs = {op.inputs[0]};
    one.g.outputs = {op.outputs[0]};
    std::vector<std::span<const uint8_t>> ins = {cur};
    cur = RunGraph(one.g, Edge(), ins).outputs[0];
    if (i == 1) relu_out = cur;
  }
  EXPECT_EQ(whole.outputs[0], cur);
  EXPECT_EQ(whole.outputs[1], relu_out);
}

TEST(Lowering, ElementwiseWithConstantOperandAndClipInputs) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t k = b.Const("k", TSR_DTYPE_F32, {2, 3}, AsBytes(std::vector<float>{1, 2, 3, 4, 5, 6}));
  const int32_t s = b.Tensor("s", TSR_DTYPE_F32, {2, 3});
  b.Op(TSR_OP_MUL, {x, k}, {s});
  const int32_t lo = b.Const("lo", TSR_DTYPE_F32, {}, AsBytes(std::vector<float>{-2.0f}));
  const int32_t hi = b.Const("hi", TSR_DTYPE_F32, {}, AsBytes(std::vector<float>{7.5f}));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 3});
  b.Op(TSR_OP_CLIP, {s, lo, hi}, {y});
  b.Output(y);
  const std::vector<float> xf = {-3, -1, 0.5f, 1, 2, 3};
  const auto got = AsFloats(RunGraph(b.g, Edge(), {FloatBytes(xf)}).outputs[0]);
  EXPECT_EQ(got, (std::vector<float>{-2, -2, 1.5f, 4, 7.5f, 7.5f}));
}

TEST(Lowering, BroadcastAddMul) {
  std::mt19937 rng(7);
  // f32 MUL [4, 3, 2] x [3, 2] (RoPE-style), scalar-first ADD [1] + [2, 3, 2].
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 3, 2});
  const int32_t t = b.Input("t", TSR_DTYPE_F32, {3, 2});
  const int32_t m = b.Tensor("m", TSR_DTYPE_F32, {4, 3, 2});
  b.Op(TSR_OP_MUL, {x, t}, {m});
  const int32_t k = b.Const("k", TSR_DTYPE_F32, {1}, AsBytes(std::vector<float>{0.25f}));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {4, 3, 2});
  b.Op(TSR_OP_ADD, {k, m}, {y});
  b.Output(y);
  for (const auto& op : b.g.ops) ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  const auto xf = RandomF(rng, 24), tf = RandomF(rng, 6);
  const auto got = AsFloats(RunGraph(b.g, SmallNpu(4, 4, 1, 1, 1), {FloatBytes(xf), FloatBytes(tf)}).outputs[0]);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(got[i], 0.25f + xf[i] * tf[i % 6]) << i;
  // int8 ADD [5, 7] + [7], bit exact with the reference formulation.
  GraphBuilder q;
  const int32_t qa = q.Input("a", TSR_DTYPE_I8, {5, 7}, {{0.05f}, {3}, -1});
  const int32_t qb = q.Input("b", TSR_DTYPE_I8, {7}, {{0.08f}, {-7}, -1});
  const int32_t qy = q.Tensor("y", TSR_DTYPE_I8, {5, 7}, {{0.1f}, {2}, -1});
  q.Op(TSR_OP_ADD, {qa, qb}, {qy});
  q.Output(qy);
  const auto ai = RandomI8(rng, 35), bi = RandomI8(rng, 7);
  const auto out = RunGraph(q.g, Edge(), {ai, bi}).outputs[0];
  const QuantEltwiseDesc d = MakeQuantEltwiseDesc(0.05f, 3, 0.08f, -7, 0.1f, 2);
  for (int i = 0; i < 35; ++i)
    EXPECT_EQ(static_cast<int8_t>(out[i]),
              QuantEltwiseOne(d, true, static_cast<int8_t>(ai[i]), static_cast<int8_t>(bi[i % 7])));
}

TEST(Lowering, PerChannelBroadcastAndSub) {
  std::mt19937 rng(8);
  // f32 NCHW [2, 3, 2, 2]: SUB a constant [3, 1, 1], then ADD with the
  // per-channel [1, 3, 1, 1] operand first (ADD commutes: swapped), then
  // SUB a trailing [2] (one value per column).
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3, 2, 2});
  const int32_t k = b.Input("k", TSR_DTYPE_F32, {1, 3, 1, 1});
  const int32_t c = b.Const("c", TSR_DTYPE_F32, {3, 1, 1}, AsBytes(std::vector<float>{0.5f, -1, 2}));
  const int32_t v = b.Const("v", TSR_DTYPE_F32, {2}, AsBytes(std::vector<float>{0.25f, 4}));
  const int32_t s = b.Tensor("s", TSR_DTYPE_F32, {2, 3, 2, 2});
  const int32_t t = b.Tensor("t", TSR_DTYPE_F32, {2, 3, 2, 2});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 3, 2, 2});
  b.Op(TSR_OP_SUB, {x, c}, {s});
  b.Op(TSR_OP_ADD, {k, s}, {t});
  b.Op(TSR_OP_SUB, {t, v}, {y});
  b.Output(y);
  for (const auto& op : b.g.ops) ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  const auto xf = RandomF(rng, 24), kf = RandomF(rng, 3);
  const float cf[3] = {0.5f, -1, 2}, vf[2] = {0.25f, 4};
  const auto got = AsFloats(RunGraph(b.g, Edge(), {FloatBytes(xf), FloatBytes(kf)}).outputs[0]);
  for (int i = 0; i < 24; ++i) {
    const int ch = (i / 4) % 3;
    EXPECT_EQ(got[i], (kf[ch] + (xf[i] - cf[ch])) - vf[i % 2]) << i;
  }
  // Quantized SUB is claimed (docs/ops.md: ADD's pipeline; bit exactness in
  // int8_vector_ops_test.cc); refused: SUB whose first operand is the
  // broadcast one.
  GraphBuilder q;
  const int32_t qa = q.Input("a", TSR_DTYPE_I8, {2, 3}, {{0.05f}, {3}, -1});
  const int32_t qy = q.Tensor("y", TSR_DTYPE_I8, {2, 3}, {{0.1f}, {2}, -1});
  q.Op(TSR_OP_SUB, {qa, qa}, {qy});
  const int32_t fa = q.Input("fa", TSR_DTYPE_F32, {1, 3, 1, 1});
  const int32_t fb = q.Input("fb", TSR_DTYPE_F32, {2, 3, 2, 2});
  const int32_t fy = q.Tensor("fy", TSR_DTYPE_F32, {2, 3, 2, 2});
  q.Op(TSR_OP_SUB, {fa, fb}, {fy});
  EXPECT_TRUE(CheckOpSupport(q.g, q.g.ops[0]).supported) << CheckOpSupport(q.g, q.g.ops[0]).detail;
  EXPECT_EQ(CheckOpSupport(q.g, q.g.ops[1]).reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE);
  EXPECT_NE(CheckOpSupport(q.g, q.g.ops[1]).detail.find("second operand"), std::string::npos);
}

TEST(Lowering, RefusalsCarryReasons) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4});
  const int32_t w = b.Input("w_mismatch", TSR_DTYPE_F32, {3, 5});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 3});
  const int32_t sm = b.Tensor("sm", TSR_DTYPE_F32, {2, 4});
  const int32_t u = b.Input("u", TSR_DTYPE_U8, {2, 4});
  const int32_t uo = b.Tensor("uo", TSR_DTYPE_U8, {2, 4});
  const int32_t row = b.Input("mid", TSR_DTYPE_F32, {2, 1, 4});  // broadcasts a middle dim
  const int32_t dyn = b.Input("dyn", TSR_DTYPE_F32, {-1, 4});
  const int32_t xi = b.Input("xi", TSR_DTYPE_I8, {1, 1, 4, 4}, {{0.1f}, {0}, -1});
  const int32_t pi = b.Tensor("pi", TSR_DTYPE_I8, {1, 1, 2, 2}, {{0.1f}, {0}, -1});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {y});  // 0: weights do not match x
  b.Op(TSR_OP_SOFTMAX, {x}, {sm});            // 1
  b.Op(TSR_OP_RELU, {u}, {uo});               // 2: u8
  b.Op(TSR_OP_ADD, {x, row}, {sm});           // 3: broadcasting
  b.Op(TSR_OP_RELU, {dyn}, {dyn});            // 4: dynamic shape
  auto& ap = b.Op(TSR_OP_AVG_POOL_2D, {xi}, {pi});  // 5: i8 average pool
  ap.attrs[TSR_ATTR_KERNEL_SHAPE].ints = {2, 2};
  ap.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  const std::vector<int32_t> want = {TSR_REFUSAL_OTHER, TSR_REFUSAL_UNSUPPORTED_OP,
                                     TSR_REFUSAL_UNSUPPORTED_DTYPE, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                                     TSR_REFUSAL_DYNAMIC_SHAPE, TSR_REFUSAL_UNSUPPORTED_DTYPE};
  for (size_t i = 0; i < want.size(); ++i) {
    const OpSupport s = CheckOpSupport(b.g, b.g.ops[i]);
    EXPECT_FALSE(s.supported) << i;
    EXPECT_EQ(s.reason, want[i]) << i << ": " << s.detail;
    EXPECT_EQ(s.detail.rfind("systolic_npu: ", 0), 0u) << s.detail;
  }
  EXPECT_NE(CheckOpSupport(b.g, b.g.ops[1]).detail.find("SOFTMAX"), std::string::npos);
  // Asymmetric int8 weights.
  GraphBuilder q;
  const int32_t qx = q.Input("x", TSR_DTYPE_I8, {1, 2}, {{0.1f}, {0}, -1});
  const int32_t qw = q.Const("w", TSR_DTYPE_I8, {1, 2}, {1, 2}, {{0.1f}, {3}, -1});
  const int32_t qy = q.Tensor("y", TSR_DTYPE_I8, {1, 1}, {{0.1f}, {0}, -1});
  q.Op(TSR_OP_FULLY_CONNECTED, {qx, qw}, {qy});
  EXPECT_EQ(CheckOpSupport(q.g, q.g.ops[0]).reason, TSR_REFUSAL_UNSUPPORTED_QUANTIZATION);
}

TEST(Lowering, EstimatesAndTooLarge) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 1, 400, 400});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {1, 1, 200, 200});
  auto& op = b.Op(TSR_OP_MAX_POOL_2D, {x}, {y});
  op.attrs[TSR_ATTR_KERNEL_SHAPE].ints = {2, 2};
  op.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  EXPECT_TRUE(CheckOpSupport(b.g, op).supported);
  auto est = EstimateOp(b.g, 0, Edge(), {}, Overlap::kDefault);
  EXPECT_EQ(est.status().code(), absl::StatusCode::kResourceExhausted);  // plane > half a bank
  auto big = EstimateOp(b.g, 0, BuiltinSocConfig("ref-server")->npu, {}, Overlap::kDefault);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_GT(big->cycles_total, 0u);
  EXPECT_GT(big->time_us, 0.0);
}

// What the claim declares (TSR_CLAIM_FLAG_COMPUTES_FP16), op by op: an F32
// FULLY_CONNECTED runs on the FP16 matrix unit, an F32 RELU on the FP32
// vector unit, an INT8 FULLY_CONNECTED exactly (the model's own precision).
TEST(Lowering, EstimateSaysWhichOpsComputeInFp16) {
  std::mt19937 rng(2);
  GraphBuilder f;
  const int32_t x = f.Input("x", TSR_DTYPE_F32, {4, 8});
  const int32_t w = f.Const("w", TSR_DTYPE_F32, {8, 8}, AsBytes(RandomF(rng, 64, -1.0f, 1.0f)));
  const int32_t y = f.Tensor("y", TSR_DTYPE_F32, {4, 8});
  const int32_t z = f.Tensor("z", TSR_DTYPE_F32, {4, 8});
  f.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {y});
  f.Op(TSR_OP_RELU, {y}, {z});
  f.Output(z);
  bool fp16 = false;
  ASSERT_TRUE(EstimateOp(f.g, 0, Edge(), {}, Overlap::kDefault, &fp16).ok());
  EXPECT_TRUE(fp16);
  ASSERT_TRUE(EstimateOp(f.g, 1, Edge(), {}, Overlap::kDefault, &fp16).ok());
  EXPECT_FALSE(fp16);

  GraphBuilder q;
  const int32_t qx = q.Input("x", TSR_DTYPE_I8, {4, 8}, {{0.04f}, {0}, -1});
  const int32_t qw = q.Const("w", TSR_DTYPE_I8, {8, 8}, RandomI8(rng, 64), {{0.01f}, {0}, -1});
  const int32_t qy = q.Tensor("y", TSR_DTYPE_I8, {4, 8}, {{0.5f}, {0}, -1});
  q.Op(TSR_OP_FULLY_CONNECTED, {qx, qw}, {qy});
  q.Output(qy);
  ASSERT_TRUE(CheckOpSupport(q.g, q.g.ops[0]).supported) << CheckOpSupport(q.g, q.g.ops[0]).detail;
  fp16 = true;
  ASSERT_TRUE(EstimateOp(q.g, 0, Edge(), {}, Overlap::kDefault, &fp16).ok());
  EXPECT_FALSE(fp16);
}

}  // namespace
}  // namespace tessera::systolic
