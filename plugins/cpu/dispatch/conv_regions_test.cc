// The convolution regions the load step forms: which ops join (a
// squeeze-and-excitation block with its residual add, a skip from the
// region's input) and which must stay out (an op that reads a tensor made
// after the region starts), and that a program with regions computes what
// the reference kernels compute op by op (the oracle: no fusion, f64
// accumulation).
#include "plugins/cpu/dispatch/conv_regions.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
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
using testing::RunProgramOutputs;

constexpr int64_t kC = 8, kH = 6, kW = 5;
const std::vector<int64_t> kX = {1, 4, kH, kW}, kA = {1, kC, kH, kW}, kPerChannel = {1, kC, 1, 1};

std::map<int32_t, kit::SnapshotAttr> Activation(int64_t kind) {
  std::map<int32_t, kit::SnapshotAttr> a;
  a[TSR_ATTR_ACTIVATION].ints = {kind};
  return a;
}

// x -> CONV_2D(out_c, k x k, same padding), weights seeded by `seed`.
int32_t Conv(Builder& b, int32_t x, int64_t in_c, int64_t out_c, int64_t k, std::vector<int64_t> out_shape,
             unsigned seed, std::map<int32_t, kit::SnapshotAttr> attrs = {}) {
  attrs[TSR_ATTR_PADS].ints = {k / 2, k / 2, k / 2, k / 2};
  const int32_t w = b.Constant({out_c, in_c, k, k}, Random(out_c * in_c * k * k, seed));
  const int32_t bias = b.Constant({out_c}, Random(out_c, seed + 100));
  return b.Op(TSR_OP_CONV_2D, {x, w, bias}, std::move(out_shape), std::move(attrs));
}

// a * hardsigmoid-ish gate(conv(relu(conv(pool(a))))): PP-LCNet's SE block.
int32_t SqueezeExcitation(Builder& b, int32_t a) {
  const int32_t g = b.Op(TSR_OP_GLOBAL_AVG_POOL, {a}, kPerChannel);
  const int32_t s1 = Conv(b, g, kC, 2, 1, {1, 2, 1, 1}, 7, Activation(TSR_ACTIVATION_RELU));
  const int32_t s2 = Conv(b, s1, 2, kC, 1, kPerChannel, 8);
  const int32_t gate = b.Op(TSR_OP_CLIP, {s2}, kPerChannel, Clip(0, 1));
  return b.Op(TSR_OP_MUL, {a, gate}, kA);
}

// The programs' constants point into `encoded`, which they share.
struct Loaded {
  std::unique_ptr<fast::FastEngine> engine;
  std::vector<uint8_t> encoded;
  absl::StatusOr<CpuProgram> fused = absl::UnknownError("not loaded"), reference = absl::UnknownError("not loaded");
};

std::unique_ptr<Loaded> Load(Builder& b) {
  auto l = std::make_unique<Loaded>();
  l->encoded = kit::EncodeSnapshot(b.graph());
  absl::StatusOr<std::unique_ptr<fast::FastEngine>> e = fast::FastEngine::Create(1);
  EXPECT_TRUE(e.ok()) << e.status();
  if (e.ok()) l->engine = *std::move(e);
  l->fused = LoadCpuProgram(l->encoded, l->engine.get());
  l->reference = LoadCpuProgram(l->encoded, nullptr);
  return l;
}

// Runs both programs on one random input of `input_elements` values
// (scaled by 3) and compares every output.
void ExpectSameOutputs(const CpuProgram& fused, const CpuProgram& reference, const std::vector<size_t>& sizes,
                       size_t input_elements = 4 * kH * kW, unsigned seed = 3) {
  std::vector<float> x = Random(input_elements, seed);
  for (float& v : x) v *= 3;
  const auto got = RunProgramOutputs(fused, x, sizes), want = RunProgramOutputs(reference, x, sizes);
  for (size_t o = 0; o < sizes.size(); ++o)
    for (size_t i = 0; i < sizes[o]; ++i)
      EXPECT_NEAR(got[o][i], want[o][i], 1e-5f * (1 + std::fabs(want[o][i]))) << "output " << o << " [" << i << "]";
}

TEST(ConvRegions, ASqueezeExcitationBlockWithItsResidualIsOneRegion) {
  // x -> conv (+HardSwish-free RELU) = a; SE(a) + a -> 1x1 conv -> y; a is
  // also a graph output, so it leaves the region as well.
  Builder b;
  const int32_t x = b.Tensor(kX);
  const int32_t a = Conv(b, x, 4, kC, 3, kA, 1);
  const int32_t relu = b.Op(TSR_OP_RELU, {a}, kA);
  const int32_t scaled = SqueezeExcitation(b, relu);
  const int32_t res = b.Op(TSR_OP_ADD, {scaled, relu}, kA);
  const int32_t y = Conv(b, res, kC, 3, 1, {1, 3, kH, kW}, 9);
  b.graph().inputs = {x};
  b.graph().outputs = {y, relu};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok()) << p.fused.status() << p.reference.status();
  // Every op runs inside op 0's region: conv(+relu), pool, two convs (the
  // CLIP a post-op), MUL, ADD, conv.
  for (size_t o = 1; o < p.fused->graph.ops.size(); ++o) EXPECT_EQ(p.fused->fused_into[o], 0) << "op " << o;
  EXPECT_EQ(p.fused->fast_kernel_count, 1u);
  EXPECT_EQ(p.fused->fast_inputs[0], (std::vector<int32_t>{x}));
  EXPECT_EQ(p.fused->fast_outputs[0], (std::vector<int32_t>{relu, y}));  // in graph order
  // Reorders: x into the convolutions' layout and the two outputs back, at
  // most; the SE's per-channel operand may need one more where the
  // layout is channel-blocked. Separately, each op paid its own.
  EXPECT_LE(p.fused->fast_reorder_count, 4u);
  ExpectSameOutputs(*p.fused, *p.reference, {3 * kH * kW, kC * kH * kW});
}

TEST(ConvRegions, ASkipFromTheRegionInputJoinsAsAnInput) {
  // y = conv(conv(x)) + x: x is ready when the region starts.
  Builder b;
  const std::vector<int64_t> shape = {1, kC, kH, kW};
  const int32_t x = b.Tensor(shape);
  const int32_t c1 = Conv(b, x, kC, kC, 3, shape, 1, Activation(TSR_ACTIVATION_RELU));
  const int32_t c2 = Conv(b, c1, kC, kC, 3, shape, 2);
  const int32_t y = b.Op(TSR_OP_ADD, {x, c2}, shape);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok());
  EXPECT_EQ(p.fused->fused_into[1], 0);
  EXPECT_EQ(p.fused->fused_into[2], 0);
  EXPECT_EQ(p.fused->fast_inputs[0], (std::vector<int32_t>{x}));
  EXPECT_EQ(p.fused->fast_outputs[0], (std::vector<int32_t>{y}));
  ExpectSameOutputs(*p.fused, *p.reference, {kC * kH * kW}, kC * kH * kW, 5);
}

TEST(ConvRegions, AnOpReadingATensorMadeAfterTheRegionStartsStaysOut) {
  // a = conv(x); r = TANH(a) (no region op); y = a * r. The MUL reads r,
  // which is written after the region's first op: inside the region it
  // would run before r exists. The two convs after a still form a region.
  Builder b;
  const int32_t x = b.Tensor(kX);
  const int32_t a = Conv(b, x, 4, kC, 3, kA, 1);
  const int32_t r = b.Op(TSR_OP_TANH, {a}, kA);
  const int32_t m = b.Op(TSR_OP_MUL, {a, r}, kA);
  const int32_t c = Conv(b, m, kC, kC, 1, kA, 2);
  const int32_t y = b.Op(TSR_OP_GLOBAL_AVG_POOL, {c}, kPerChannel);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok());
  EXPECT_NE(p.fused->fused_into[2], 0) << "the MUL joined the region of op 0";
  EXPECT_EQ(p.fused->fused_into[4], 3);  // the pool joins the second conv
  ExpectSameOutputs(*p.fused, *p.reference, {kC});
}

TEST(ConvRegions, EdgeValuesPassThroughTheRegionsBinaryOpsAsInIEEE) {
  // y = a * s + x for a per-channel constant s holding inf, -0, a denormal
  // and NaN, and x holding NaN, +-inf and denormals: the region's binary
  // ops (oneDNN, f32) must give what the reference's IEEE f32 ops give.
  Builder b;
  const std::vector<int64_t> shape = {1, kC, kH, kW};
  const int32_t x = b.Tensor(shape);
  const int32_t a = Conv(b, x, kC, kC, 1, shape, 1);
  const float inf = std::numeric_limits<float>::infinity(), denormal = std::numeric_limits<float>::denorm_min();
  const int32_t s = b.Constant(kPerChannel, {1.5f, inf, -0.0f, denormal, NAN, -2.0f, 1e-38f, -inf});
  const int32_t y = b.Op(TSR_OP_ADD, {b.Op(TSR_OP_MUL, {a, s}, shape), x}, shape);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok());
  // With AVX2 or better oneDNN has a JIT kernel for the MUL's per-channel
  // constant in the convolution's layout and the region takes both ops;
  // below that (ONEDNN_MAX_CPU_ISA=SSE41) the region is refused and retried
  // as the convolution alone, and the ops run one by one. The outputs must
  // be the reference's either way.
  SCOPED_TRACE(p.fused->fused_into[2] == 0 ? "MUL and ADD in the region" : "MUL and ADD on their own");
  std::vector<float> in = Random(kC * kH * kW, 6);
  in[0] = NAN, in[7] = inf, in[8] = -inf, in[9] = denormal, in[40] = -denormal, in[41] = 3e38f;
  const auto got = RunProgramOutputs(*p.fused, in, {kC * kH * kW})[0];
  const auto want = RunProgramOutputs(*p.reference, in, {kC * kH * kW})[0];
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << i;
    }
  }
}

TEST(ConvRegions, ABatchOfTwoRescaledPerImageAndChannel) {
  // Batch 2: the squeeze-excitation scale is [2, C, 1, 1], one value per
  // image and channel. Whether oneDNN has a JIT kernel for that broadcast
  // or not, the convolutions stay one region (as a chain when the MUL is
  // refused) and the outputs are the reference's.
  Builder b;
  const std::vector<int64_t> x_shape = {2, 4, kH, kW}, a_shape = {2, kC, kH, kW}, s_shape = {2, kC, 1, 1};
  const int32_t x = b.Tensor(x_shape);
  const int32_t a = Conv(b, x, 4, kC, 3, a_shape, 1, Activation(TSR_ACTIVATION_RELU));
  const int32_t g = b.Op(TSR_OP_GLOBAL_AVG_POOL, {a}, s_shape);
  const int32_t s = Conv(b, g, kC, kC, 1, s_shape, 2, Activation(TSR_ACTIVATION_RELU));
  const int32_t y = b.Op(TSR_OP_MUL, {a, s}, a_shape);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok());
  EXPECT_EQ(p.fused->fused_into[1], 0);
  EXPECT_EQ(p.fused->fused_into[2], 0);
  ExpectSameOutputs(*p.fused, *p.reference, {2 * kC * kH * kW}, 2 * 4 * kH * kW, 8);
}

TEST(ConvRegions, ABroadcastThatIsNotPerChannelStaysOut) {
  // a * w for w of shape [1, 1, H, 1]: not a per-channel operand.
  Builder b;
  const int32_t x = b.Tensor(kX);
  const int32_t a = Conv(b, x, 4, kC, 3, kA, 1);
  const int32_t w = b.Constant({1, 1, kH, 1}, Random(kH, 4));
  const int32_t y = b.Op(TSR_OP_MUL, {a, w}, kA);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  const std::unique_ptr<Loaded> loaded = Load(b);
  Loaded& p = *loaded;
  ASSERT_TRUE(p.fused.ok() && p.reference.ok());
  EXPECT_EQ(p.fused->fused_into[1], -1);
  ExpectSameOutputs(*p.fused, *p.reference, {kC * kH * kW});
}

}  // namespace
}  // namespace tessera::cpu
