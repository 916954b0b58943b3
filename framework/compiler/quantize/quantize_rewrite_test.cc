// The INT8 rewrite on small models built in code: structure (what is
// quantized, what stays float, interface kept), validity (verifier and the
// reference kernels accept it) and accuracy against FP32.
#include "framework/compiler/quantize/quantize_rewrite.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "framework/compiler/quantize/accuracy_report.h"
#include "framework/compiler/quantize/post_training_quantization.h"
#include "framework/compiler/quantize/reference_interpreter.h"
#include "framework/compiler/quantize/test_models.h"
#include "framework/core/base/dtype.h"
#include "framework/core/graph/graph_verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::quantize {
namespace {

using testing::BuildCnn;
using testing::BuildMlp;
using testing::RandomSamples;

std::vector<int32_t> OpTypes(const Graph& g) {
  std::vector<int32_t> types;
  for (const Op& op : g.ops) types.push_back(op.type);
  return types;
}

const Op* FindOp(const Graph& g, int32_t type, int nth = 0) {
  for (const Op& op : g.ops)
    if (op.type == type && nth-- == 0) return &op;
  return nullptr;
}

// Accuracy of `q.graph` on the reference kernels against the FP32 outputs.
std::vector<OutputAccuracy> ReferenceAccuracy(const PtqModel& q) {
  AccuracyAccumulator acc;
  for (size_t i = 0; i < q.samples.size(); ++i) {
    absl::StatusOr<std::vector<HostTensor>> out = RunOnReferenceKernels(q.graph, q.samples[i].inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    EXPECT_TRUE(acc.Add(q.fp32_outputs[i], *out).ok());
  }
  return acc.Result();
}

void ExpectSameInterface(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.tensors[a.inputs[i]].name, b.tensors[b.inputs[i]].name);
    EXPECT_EQ(a.tensors[a.inputs[i]].dtype, b.tensors[b.inputs[i]].dtype);
    EXPECT_EQ(a.tensors[a.inputs[i]].shape, b.tensors[b.inputs[i]].shape);
  }
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.tensors[a.outputs[i]].name, b.tensors[b.outputs[i]].name);
    EXPECT_EQ(a.tensors[a.outputs[i]].dtype, b.tensors[b.outputs[i]].dtype);
    EXPECT_EQ(a.tensors[a.outputs[i]].shape, b.tensors[b.outputs[i]].shape);
  }
}

TEST(QuantizeRewrite, MlpBecomesInt8WithFusedRelu) {
  const Graph fp32 = BuildMlp();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 16, 1));
  ASSERT_TRUE(q.ok()) << q.status();
  const Graph& g = q->graph;
  EXPECT_TRUE(VerifyGraph(g).ok());
  ExpectSameInterface(fp32, g);
  EXPECT_THAT(OpTypes(g), ::testing::ElementsAre(TSR_OP_QUANTIZE, TSR_OP_FULLY_CONNECTED, TSR_OP_FULLY_CONNECTED,
                                                 TSR_OP_DEQUANTIZE));
  EXPECT_EQ(q->report.quantized_ops, 2);
  EXPECT_EQ(q->report.float_ops, 0);
  EXPECT_EQ(q->report.fused_activations, 1);

  const Op& fc1 = g.ops[1];
  ASSERT_NE(fc1.FindAttr(TSR_ATTR_ACTIVATION), nullptr);
  EXPECT_EQ(fc1.FindAttr(TSR_ATTR_ACTIVATION)->ints[0], TSR_ACTIVATION_RELU);
  const Tensor& x = g.tensors[fc1.inputs[0]];
  const Tensor& w = g.tensors[fc1.inputs[1]];
  const Tensor& bias = g.tensors[fc1.inputs[2]];
  const Tensor& y = g.tensors[fc1.outputs[0]];
  EXPECT_EQ(x.dtype, TSR_DTYPE_I8);
  EXPECT_EQ(x.quant.scales.size(), 1u);
  EXPECT_EQ(w.dtype, TSR_DTYPE_I8);
  EXPECT_EQ(w.quant.axis, 0);
  EXPECT_EQ(w.quant.scales.size(), 32u);
  EXPECT_TRUE(std::all_of(w.quant.zero_points.begin(), w.quant.zero_points.end(), [](int64_t z) { return z == 0; }));
  EXPECT_EQ(bias.dtype, TSR_DTYPE_I32);
  EXPECT_FLOAT_EQ(bias.quant.scales[3], x.quant.scales[0] * w.quant.scales[3]);
  // The fused RELU's output range starts at 0: the zero point is the bottom code.
  EXPECT_EQ(y.dtype, TSR_DTYPE_I8);
  EXPECT_EQ(y.quant.zero_points[0], -128);
  EXPECT_EQ(y.name, "fc1.relu_int8");

  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_EQ(acc[0].name, "y");
  EXPECT_GT(acc[0].snr_db, 30.0);
  EXPECT_LT(acc[0].max_abs_error, 0.1);
}

TEST(QuantizeRewrite, CnnKeepsSoftmaxInFloatAndLayoutOpsInInt8) {
  const Graph fp32 = BuildCnn();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 8, 2));
  ASSERT_TRUE(q.ok()) << q.status();
  const Graph& g = q->graph;
  EXPECT_TRUE(VerifyGraph(g).ok());
  ExpectSameInterface(fp32, g);
  // conv1(+relu), pool, conv2(+clip), add, mul, reshape, fc in int8; softmax in float.
  EXPECT_EQ(q->report.quantized_ops, 7);
  EXPECT_EQ(q->report.float_ops, 1);
  EXPECT_EQ(q->report.fused_activations, 2);
  EXPECT_THAT(OpTypes(g), ::testing::ElementsAre(TSR_OP_QUANTIZE, TSR_OP_CONV_2D, TSR_OP_MAX_POOL_2D, TSR_OP_CONV_2D,
                                                 TSR_OP_ADD, TSR_OP_MUL, TSR_OP_RESHAPE, TSR_OP_FULLY_CONNECTED,
                                                 TSR_OP_DEQUANTIZE, TSR_OP_SOFTMAX));
  for (int32_t type : {TSR_OP_MAX_POOL_2D, TSR_OP_RESHAPE, TSR_OP_ADD, TSR_OP_MUL}) {
    const Op* op = FindOp(g, type);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(g.tensors[op->outputs[0]].dtype, TSR_DTYPE_I8) << OpTypeName(type);
  }
  // Pool and reshape pass the stored integers through: same parameters.
  const Op* pool = FindOp(g, TSR_OP_MAX_POOL_2D);
  EXPECT_EQ(g.tensors[pool->inputs[0]].quant.scales, g.tensors[pool->outputs[0]].quant.scales);
  EXPECT_EQ(g.tensors[pool->inputs[0]].quant.zero_points, g.tensors[pool->outputs[0]].quant.zero_points);
  // The constant MUL operand is quantized per tensor.
  const Op* mul = FindOp(g, TSR_OP_MUL);
  EXPECT_TRUE(g.tensors[mul->inputs[1]].is_constant);
  EXPECT_EQ(g.tensors[mul->inputs[1]].dtype, TSR_DTYPE_I8);
  // One DEQUANTIZE feeds both the graph output 'logits' and the SOFTMAX.
  const Op* deq = FindOp(g, TSR_OP_DEQUANTIZE);
  const Op* softmax = FindOp(g, TSR_OP_SOFTMAX);
  EXPECT_EQ(softmax->inputs[0], deq->outputs[0]);
  EXPECT_EQ(g.tensors[deq->outputs[0]].name, "logits");

  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 2u);
  EXPECT_GT(acc[0].snr_db, 25.0) << acc[0].name;
  EXPECT_GT(acc[1].snr_db, 25.0) << acc[1].name;
}

// A RELU that cannot fold (its input has another consumer) acts on the
// stored integers as a CLIP at the zero point: real zero, whatever the zp.
TEST(QuantizeRewrite, StandaloneReluBecomesAClipAtTheZeroPoint) {
  std::mt19937 rng(3);
  ModelBuilder b("relu");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {8, 8}, testing::Normal(rng, 64, 0.4f))});
  const int32_t r = b.Op(TSR_OP_RELU, {h});
  b.Output(b.Op(TSR_OP_ADD, {r, h}, {}, {.name = "y"}));
  const Graph fp32 = *std::move(b).Build();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 8, 4));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->report.fused_activations, 0);
  EXPECT_EQ(q->report.quantized_ops, 3);
  const Op* clip = FindOp(q->graph, TSR_OP_CLIP);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(FindOp(q->graph, TSR_OP_RELU), nullptr);
  const Tensor& in = q->graph.tensors[clip->inputs[0]];
  ASSERT_NE(clip->FindAttr(TSR_ATTR_CLIP_MIN), nullptr);
  EXPECT_EQ(clip->FindAttr(TSR_ATTR_CLIP_MIN)->floats[0], static_cast<float>(in.quant.zero_points[0]));
  EXPECT_NE(in.quant.zero_points[0], 0);  // so a plain stored-integer RELU would have been wrong
  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_GT(acc[0].snr_db, 30.0);
}

// An op with no int8 form stays FP32 between a DEQUANTIZE and a QUANTIZE.
TEST(QuantizeRewrite, FloatOnlyOpIsWrappedInDequantizeAndQuantize) {
  std::mt19937 rng(5);
  ModelBuilder b("sig");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w1", {8, 8}, testing::Normal(rng, 64, 0.4f))});
  const int32_t s = b.Op(TSR_OP_SIGMOID, {h}, {}, {.name = "s"});
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {s, b.Constant<float>("w2", {4, 8}, testing::Normal(rng, 32, 0.4f))}, {},
                {.name = "y"}));
  const Graph fp32 = *std::move(b).Build();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 8, 6));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(OpTypes(q->graph),
              ::testing::ElementsAre(TSR_OP_QUANTIZE, TSR_OP_FULLY_CONNECTED, TSR_OP_DEQUANTIZE, TSR_OP_SIGMOID,
                                     TSR_OP_QUANTIZE, TSR_OP_FULLY_CONNECTED, TSR_OP_DEQUANTIZE));
  EXPECT_EQ(q->report.quantized_ops, 2);
  EXPECT_EQ(q->report.float_ops, 1);
  EXPECT_EQ(q->graph.tensors[q->graph.ops[3].outputs[0]].name, "s");
  EXPECT_EQ(q->graph.tensors[q->graph.ops[4].outputs[0]].name, "s_int8");
}

// A tensor whose calibration saw ±inf has no usable range: its op stays float.
TEST(QuantizeRewrite, NonFiniteCalibrationKeepsTheOpInFloat) {
  const Graph fp32 = BuildMlp();
  std::vector<CalibrationSample> samples = RandomSamples(fp32, 2, 8);
  const float inf = std::numeric_limits<float>::infinity();
  std::memcpy(samples[1].inputs[0].data.data(), &inf, sizeof(inf));
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, samples);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->graph.ops[0].type, TSR_OP_FULLY_CONNECTED);
  EXPECT_EQ(q->graph.tensors[q->graph.ops[0].inputs[0]].dtype, TSR_DTYPE_F32);
  EXPECT_GE(q->report.float_ops, 1);
  EXPECT_TRUE(VerifyGraph(q->graph).ok());
}

// A CLIP bound of NaN means "no bound" (docs/ops.md, CLIP), but a fused CLIP
// activation refuses NaN bounds: fusing it as is made calibration fail.
TEST(QuantizeRewrite, ClipWithNanBoundFusesAsAnOpenBound) {
  std::mt19937 rng(21);
  ModelBuilder b("nan_clip");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {8, 8}, testing::Normal(rng, 64, 0.4f))});
  b.Output(b.Op(TSR_OP_CLIP, {h}, {{TSR_ATTR_CLIP_MIN, Floats({std::nanf("")})}, {TSR_ATTR_CLIP_MAX, Floats({0.5f})}},
                {.name = "y"}));
  const Graph fp32 = *std::move(b).Build();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 8, 22));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->report.fused_activations, 1);
  const Op* fc = FindOp(q->graph, TSR_OP_FULLY_CONNECTED);
  ASSERT_NE(fc, nullptr);
  ASSERT_NE(fc->FindAttr(TSR_ATTR_CLIP_MIN), nullptr);
  EXPECT_EQ(fc->FindAttr(TSR_ATTR_CLIP_MIN)->floats[0], -std::numeric_limits<float>::infinity());
  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_GT(acc[0].snr_db, 30.0);
}

// A channel with tiny weights and an ordinary bias: bias / (x_scale ·
// w_scale) is ~1e10, beyond int32. Saturating it gave that channel a wrong
// result (error ~0.5); the op now stays float.
TEST(QuantizeRewrite, BiasBeyondInt32KeepsTheOpInFloat) {
  std::mt19937 rng(23);
  ModelBuilder b("big_bias");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 8});
  std::vector<float> w = testing::Normal(rng, 16, 0.4f);
  for (int k = 8; k < 16; ++k) w[k] = 1e-7f;  // channel 1
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED,
                {x, b.Constant<float>("w", {2, 8}, w), b.Constant<float>("b", {2}, std::vector<float>{0.1f, 0.5f})}, {},
                {.name = "y"}));
  const Graph fp32 = *std::move(b).Build();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 8, 24));
  ASSERT_TRUE(q.ok()) << q.status();
  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_LT(acc[0].max_abs_error, 0.05);
  EXPECT_EQ(q->report.float_ops, 1);
}

// A bool output (GREATER) next to an f32 one: the accuracy report refused
// every non-f32 output, so `compile --quantize` failed on such models.
TEST(QuantizeRewrite, BoolOutputIsReportedNextToFloatOutput) {
  std::mt19937 rng(27);
  ModelBuilder b("mask");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4});
  const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {4, 4}, testing::Normal(rng, 16, 0.4f))},
                         {}, {.name = "h"});
  b.Output(h);
  b.Output(b.Op(TSR_OP_GREATER, {h, b.Constant<float>("zero", {1}, std::vector<float>{0.0f})}, {}, {.name = "mask"}));
  const Graph fp32 = *std::move(b).Build();
  absl::StatusOr<PtqModel> q = QuantizeInt8(fp32, RandomSamples(fp32, 4, 28));
  ASSERT_TRUE(q.ok()) << q.status();
  ExpectSameInterface(fp32, q->graph);
  const std::vector<OutputAccuracy> acc = ReferenceAccuracy(*q);
  ASSERT_EQ(acc.size(), 2u);
  EXPECT_EQ(acc[1].name, "mask");
  EXPECT_LE(acc[1].max_abs_error, 1.0);
}

// A malformed graph (output index out of range) is an error, not a read
// past the end of the tensor table.
TEST(QuantizeRewrite, MalformedGraphIsAnError) {
  Graph g = BuildMlp();
  const std::vector<CalibrationSample> samples = RandomSamples(g, 1, 9);
  g.outputs.push_back(static_cast<int32_t>(g.tensors.size()) + 1000);
  absl::StatusOr<PtqModel> q = QuantizeInt8(g, samples);
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(), ::testing::HasSubstr("out of range"));
}

TEST(QuantizeRewrite, RangesMustCoverTheGraph) { EXPECT_FALSE(QuantizeGraph(BuildMlp(), {}).ok()); }

}  // namespace
}  // namespace tessera::quantize
