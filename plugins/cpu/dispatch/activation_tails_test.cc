// The activation tails the load step fuses into a compute op: which graphs
// match (both HardSwish forms, RELU, CLIP) and which must not, and that a
// program with a fused HardSwish computes what the reference kernels
// compute op by op (the oracle: no fusion, f64 accumulation).
#include "plugins/cpu/dispatch/activation_tails.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/cpu/dispatch/cpu_program.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/cpu/dispatch/snapshot_builder_test_util.h"
#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

using testing::Builder;
using testing::Clip;
using testing::Random;
using testing::RunProgram;

const std::vector<int64_t> kX = {1, 4, 6, 6}, kY = {1, 8, 6, 6};

// x -> CONV_2D(8, 3x3, pad 1) -> y, the compute op every case starts with.
int32_t Conv(Builder& b, int32_t x) {
  std::map<int32_t, kit::SnapshotAttr> attrs;
  attrs[TSR_ATTR_PADS].ints = {1, 1, 1, 1};
  const int32_t w = b.Constant({8, 4, 3, 3}, Random(8 * 4 * 9, 1));
  const int32_t bias = b.Constant({8}, Random(8, 2));
  return b.Op(TSR_OP_CONV_2D, {x, w, bias}, kY, attrs);
}

// The PaddleOCR form: y * CLIP(y + three, 0, six) * sixth (or / 6).
int32_t HardSwishRelu6(Builder& b, int32_t y, float three = 3, float six = 6, bool divide = false) {
  const int32_t a = b.Op(TSR_OP_ADD, {y, b.Scalar(three)}, kY);
  const int32_t r = b.Op(TSR_OP_CLIP, {a}, kY, Clip(0, six));
  const int32_t m = b.Op(TSR_OP_MUL, {r, y}, kY);
  return divide ? b.Op(TSR_OP_DIV, {m, b.Scalar(6)}, kY) : b.Op(TSR_OP_MUL, {b.Scalar(1.0f / 6.0f), m}, kY);
}

// The importer's HardSwish: y * CLIP(y * (1/6) + 0.5, 0, 1).
int32_t HardSwishGate(Builder& b, int32_t y) {
  const int32_t s = b.Op(TSR_OP_MUL, {y, b.Scalar(1.0f / 6.0f)}, kY);
  const int32_t a = b.Op(TSR_OP_ADD, {s, b.Scalar(0.5f)}, kY);
  const int32_t g = b.Op(TSR_OP_CLIP, {a}, kY, Clip(0, 1));
  return b.Op(TSR_OP_MUL, {y, g}, kY);
}

// y * SIGMOID(alpha * y); without the MUL when alpha is 1 and `silu`.
int32_t Swish(Builder& b, int32_t y, float alpha, bool silu = false) {
  const int32_t in = silu ? y : b.Op(TSR_OP_MUL, {b.Scalar(alpha), y}, kY);
  const int32_t s = b.Op(TSR_OP_SIGMOID, {in}, kY);
  return b.Op(TSR_OP_MUL, {y, s}, kY);
}

// The HF "NewGELU" / PyTorch tanh-GELU export:
// (0.5 * y) * (1 + TANH(sqrt(2/pi) * (y + 0.044715 * POW(y, 3)))).
int32_t GeluTanh(Builder& b, int32_t y, float cubic = 0.044715f) {
  const int32_t cube = b.Op(TSR_OP_POW, {y, b.Scalar(3)}, kY);
  const int32_t inner = b.Op(TSR_OP_ADD, {y, b.Op(TSR_OP_MUL, {b.Scalar(cubic), cube}, kY)}, kY);
  const int32_t arg = b.Op(TSR_OP_MUL, {b.Scalar(0.7978845608f), inner}, kY);
  const int32_t gate = b.Op(TSR_OP_ADD, {b.Scalar(1), b.Op(TSR_OP_TANH, {arg}, kY)}, kY);
  return b.Op(TSR_OP_MUL, {b.Op(TSR_OP_MUL, {b.Scalar(0.5f), y}, kY), gate}, kY);
}

// Loads the graph (inputs and outputs set) without fast kernels and asks
// for the tail after op 0 (the convolution).
std::optional<ActivationTail> TailOfOp0(Builder& b) {
  const std::vector<uint8_t> encoded = kit::EncodeSnapshot(b.graph());
  absl::StatusOr<CpuProgram> p = LoadCpuProgram(encoded, nullptr);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return std::nullopt;
  std::vector<std::vector<size_t>> readers(p->graph.tensors.size());
  for (size_t o = 0; o < p->graph.ops.size(); ++o)
    for (int32_t t : p->graph.ops[o].inputs)
      if (t >= 0) readers[t].push_back(o);
  return FindActivationTail(*p, readers, 0);
}

std::optional<ActivationTail> TailOf(Builder& b, int32_t x, int32_t out) {
  b.graph().inputs = {x};
  b.graph().outputs = {out};
  return TailOfOp0(b);
}

TEST(ActivationTails, BothHardSwishFormsAndTheDivideAreFound) {
  enum Form { kRelu6TimesSixth, kRelu6OverSix, kGate };
  for (Form form : {kRelu6TimesSixth, kRelu6OverSix, kGate}) {
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    const int32_t out = form == kGate ? HardSwishGate(b, y) : HardSwishRelu6(b, y, 3, 6, form == kRelu6OverSix);
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value()) << "form " << form;
    EXPECT_EQ(t->kind, fast::kActivationHardSwish);
    EXPECT_EQ(t->ops, (std::vector<size_t>{1, 2, 3, 4}));
    EXPECT_EQ(t->output, out);
  }
}

TEST(ActivationTails, SwishWithAndWithoutItsScale) {
  for (bool silu : {false, true}) {
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t out = Swish(b, Conv(b, x), 1.702f, silu);
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value()) << "silu " << silu;
    EXPECT_EQ(t->kind, fast::kActivationSwish);
    EXPECT_EQ(t->alpha, silu ? 1.0f : 1.702f);
    EXPECT_EQ(t->ops, silu ? (std::vector<size_t>{1, 2}) : (std::vector<size_t>{1, 2, 3}));
  }
  {
    // y * SIGMOID(z) for another tensor z is no swish.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    const int32_t z = b.Op(TSR_OP_RELU, {y}, kY);
    const int32_t out = b.Op(TSR_OP_MUL, {y, b.Op(TSR_OP_SIGMOID, {z}, kY)}, kY);
    EXPECT_FALSE(TailOf(b, x, out).has_value());
  }
}

TEST(ActivationTails, TanhGeluAsPyTorchExportsIt) {
  {
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t out = GeluTanh(b, Conv(b, x));
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->kind, fast::kActivationGeluTanh);
    EXPECT_EQ(t->ops, (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(t->output, out);
  }
  {
    // 0.045 is not GELU's cubic coefficient.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t out = GeluTanh(b, Conv(b, x), 0.045f);
    EXPECT_FALSE(TailOf(b, x, out).has_value());
  }
}

TEST(ActivationTails, ReluAndClipAsBefore) {
  Builder b;
  const int32_t x = b.Tensor(kX);
  const int32_t out = b.Op(TSR_OP_CLIP, {Conv(b, x)}, kY, Clip(-1, 2));
  const std::optional<ActivationTail> t = TailOf(b, x, out);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->kind, TSR_ACTIVATION_CLIP);
  EXPECT_EQ(t->clip_min, -1);
  EXPECT_EQ(t->clip_max, 2);
}

TEST(ActivationTails, NearMissesAreNotHardSwish) {
  auto tail_with = [](float three, float six) {
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t out = HardSwishRelu6(b, Conv(b, x), three, six);
    return TailOf(b, x, out);
  };
  EXPECT_FALSE(tail_with(2.5f, 6).has_value());  // y + 2.5
  EXPECT_FALSE(tail_with(3, 5).has_value());     // relu5
  {
    // y read a third time (by the graph's second output's op): not a tail.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    const int32_t out = HardSwishRelu6(b, y);
    const int32_t other = b.Op(TSR_OP_RELU, {y}, kY);
    b.graph().inputs = {x};
    b.graph().outputs = {out, other};
    EXPECT_FALSE(TailOfOp0(b).has_value());
  }
  {
    // An intermediate (the CLIP's output) is also a graph output.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    const int32_t out = HardSwishRelu6(b, y);
    b.graph().inputs = {x};
    ASSERT_EQ(b.graph().ops[2].type, TSR_OP_CLIP);
    b.graph().outputs = {out, b.graph().ops[2].outputs[0]};
    EXPECT_FALSE(TailOfOp0(b).has_value());
  }
}

TEST(ActivationTails, ScalarAffineStepsFoldIntoOneLinearStep) {
  {
    // HardSwish, then (v * 0.5 + 0.25) - 1: alpha 0.5, beta -0.75.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t hs = HardSwishRelu6(b, Conv(b, x));
    const int32_t m = b.Op(TSR_OP_MUL, {hs, b.Scalar(0.5f)}, kY);
    const int32_t a = b.Op(TSR_OP_ADD, {b.Scalar(0.25f), m}, kY);
    const int32_t out = b.Op(TSR_OP_SUB, {a, b.Scalar(1.0f)}, kY);
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->kind, fast::kActivationHardSwish);
    EXPECT_EQ(t->ops, (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7}));
    EXPECT_TRUE(t->has_linear);
    EXPECT_EQ(t->linear_alpha, 0.5f);
    EXPECT_EQ(t->linear_beta, -0.75f);
    EXPECT_EQ(t->output, out);
  }
  {
    // No activation: (3 - 2y) / 4 = -0.5 y + 0.75.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t m = b.Op(TSR_OP_MUL, {b.Scalar(2.0f), Conv(b, x)}, kY);
    const int32_t s = b.Op(TSR_OP_SUB, {b.Scalar(3.0f), m}, kY);
    const int32_t out = b.Op(TSR_OP_DIV, {s, b.Scalar(4.0f)}, kY);
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->kind, TSR_ACTIVATION_NONE);
    EXPECT_EQ(t->ops, (std::vector<size_t>{1, 2, 3}));
    EXPECT_EQ(t->linear_alpha, -0.5f);
    EXPECT_EQ(t->linear_beta, 0.75f);
  }
  {
    // c / v is not affine, and a tensor operand is no scalar: the run stops
    // before them.
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    const int32_t m = b.Op(TSR_OP_MUL, {y, b.Scalar(2.0f)}, kY);
    const int32_t out = b.Op(TSR_OP_DIV, {b.Scalar(1.0f), m}, kY);
    const std::optional<ActivationTail> t = TailOf(b, x, out);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->ops, (std::vector<size_t>{1}));
    EXPECT_EQ(t->linear_alpha, 2.0f);
    EXPECT_EQ(t->output, m);
    Builder c;
    const int32_t x2 = c.Tensor(kX);
    const int32_t y2 = Conv(c, x2);
    const int32_t out2 = c.Op(TSR_OP_ADD, {y2, c.Constant(kY, std::vector<float>(8 * 36, 1.0f))}, kY);
    EXPECT_FALSE(TailOf(c, x2, out2).has_value());
  }
  {
    // An intermediate of the affine run is a graph output: the run ends
    // with it (it must still be written).
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t m = b.Op(TSR_OP_MUL, {Conv(b, x), b.Scalar(2.0f)}, kY);
    const int32_t out = b.Op(TSR_OP_ADD, {m, b.Scalar(1.0f)}, kY);
    b.graph().inputs = {x};
    b.graph().outputs = {out, m};
    const std::optional<ActivationTail> t = TailOfOp0(b);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->ops, (std::vector<size_t>{1}));
    EXPECT_EQ(t->output, m);
  }
}

TEST(ActivationTails, AFusedTailInAChainComputesWhatTheReferenceKernelsDo) {
  // conv -> HardSwish (or Swish) -> 1x1 conv: with the fast kernels the
  // whole thing is one chain (the tail a post-op), checked against the
  // reference kernels running the ops one by one.
  enum Tail { kRelu6Form, kGateForm, kSwish, kRelu6ThenAffine, kGelu };
  for (Tail form : {kRelu6Form, kGateForm, kSwish, kRelu6ThenAffine, kGelu}) {
    Builder b;
    const int32_t x = b.Tensor(kX);
    const int32_t y = Conv(b, x);
    int32_t hs = form == kGateForm ? HardSwishGate(b, y)
                 : form == kSwish  ? Swish(b, y, 0.7f)
                 : form == kGelu   ? GeluTanh(b, y)
                                   : HardSwishRelu6(b, y);
    if (form == kRelu6ThenAffine)  // PP-LCNetV3's learnable affine block
      hs = b.Op(TSR_OP_ADD, {b.Op(TSR_OP_MUL, {hs, b.Scalar(1.3f)}, kY), b.Scalar(-0.2f)}, kY);
    const int32_t w2 = b.Constant({4, 8, 1, 1}, Random(32, 3));
    const int32_t z = b.Op(TSR_OP_CONV_2D, {hs, w2}, {1, 4, 6, 6});
    b.graph().inputs = {x};
    b.graph().outputs = {z};
    const std::vector<uint8_t> encoded = kit::EncodeSnapshot(b.graph());
    absl::StatusOr<std::unique_ptr<fast::FastEngine>> engine = fast::FastEngine::Create(1);
    ASSERT_TRUE(engine.ok()) << engine.status();
    absl::StatusOr<CpuProgram> fused = LoadCpuProgram(encoded, engine->get());
    absl::StatusOr<CpuProgram> reference = LoadCpuProgram(encoded, nullptr);
    ASSERT_TRUE(fused.ok() && reference.ok());
    // Every op of the HardSwish and the second convolution run inside op 0.
    for (size_t o = 1; o < fused->graph.ops.size(); ++o) EXPECT_EQ(fused->fused_into[o], 0) << "op " << o;
    EXPECT_EQ(fused->fast_kernel_count, 1u);  // what the fast_kernels metric reports
    ASSERT_NE(fused->fast_ops[0], nullptr);
    const std::vector<float> input = Random(4 * 36, 4);
    // Inputs scaled so that y spans the HardSwish's three pieces.
    std::vector<float> wide = input;
    for (float& v : wide) v *= 4;
    const std::vector<float> got = RunProgram(*fused, wide, 4 * 36), want = RunProgram(*reference, wide, 4 * 36);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "tail " << form << " [" << i << "]";
  }
}

TEST(ActivationTails, EdgeValuesThroughAFusedTailAsTheReferenceGivesThem) {
  // A depthwise identity convolution (y = x exactly, no 0 * inf) and then
  // each tail as a post-op, on NaN, +-inf, denormals and huge values: NaN
  // where the reference has NaN, the same infinity where it has one, close
  // elsewhere.
  enum Tail { kRelu6Form, kGateForm, kSwish, kRelu6ThenAffine, kGelu };
  const float inf = std::numeric_limits<float>::infinity(), denormal = std::numeric_limits<float>::denorm_min();
  const std::vector<float> edges = {NAN, inf, -inf, denormal, -denormal, 0.0f, -0.0f, 3e38f, -3e38f, 1e-30f, 88.0f, -88.0f};
  for (Tail form : {kRelu6Form, kGateForm, kSwish, kRelu6ThenAffine, kGelu}) {
    Builder b;
    const std::vector<int64_t> shape = {1, 8, 3, 4};
    const int32_t x = b.Tensor(shape);
    std::map<int32_t, kit::SnapshotAttr> dw;
    dw[TSR_ATTR_GROUPS].ints = {8};
    const int32_t y = b.Op(TSR_OP_CONV_2D, {x, b.Constant({8, 1, 1, 1}, std::vector<float>(8, 1.0f))}, shape, dw);
    // The tail builders use kY's shape for their tensors; here y has `shape`.
    b.graph().tensors[y].shape = kY;
    int32_t out = form == kGateForm ? HardSwishGate(b, y)
                  : form == kSwish  ? Swish(b, y, 0.7f)
                  : form == kGelu   ? GeluTanh(b, y)
                                    : HardSwishRelu6(b, y);
    if (form == kRelu6ThenAffine) out = b.Op(TSR_OP_ADD, {b.Op(TSR_OP_MUL, {out, b.Scalar(1.3f)}, kY), b.Scalar(-0.2f)}, kY);
    for (kit::SnapshotTensor& t : b.graph().tensors)
      if (!t.is_constant && t.shape == kY) t.shape = shape;
    b.graph().inputs = {x};
    b.graph().outputs = {out};
    const std::vector<uint8_t> encoded = kit::EncodeSnapshot(b.graph());
    absl::StatusOr<std::unique_ptr<fast::FastEngine>> engine = fast::FastEngine::Create(1);
    ASSERT_TRUE(engine.ok()) << engine.status();
    absl::StatusOr<CpuProgram> fused = LoadCpuProgram(encoded, engine->get());
    absl::StatusOr<CpuProgram> reference = LoadCpuProgram(encoded, nullptr);
    ASSERT_TRUE(fused.ok() && reference.ok()) << fused.status() << reference.status();
    ASSERT_EQ(fused->fused_into[1], 0) << "tail " << form << " not fused";
    std::vector<float> in = Random(8 * 12, 9);
    for (size_t i = 0; i < edges.size(); ++i) in[i * 7 % in.size()] = edges[i];
    const std::vector<float> got = RunProgram(*fused, in, 8 * 12), want = RunProgram(*reference, in, 8 * 12);
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "tail " << form << " x=" << in[i] << ": " << got[i];
      } else if (std::isinf(want[i]) && form == kRelu6Form && std::isfinite(in[i])) {
        // Op by op, y * relu6(y + 3) overflows to inf for y = 3e38 before
        // the division by 6; the post-op does not, and gives HardSwish's
        // true value, y itself.
        EXPECT_EQ(got[i], in[i]) << "x=" << in[i];
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << "tail " << form << " x=" << in[i];
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "tail " << form << " x=" << in[i];
      }
    }
  }
}

}  // namespace
}  // namespace tessera::cpu
