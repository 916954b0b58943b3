// VECTOR DEPTHWISE: a hand-worked instruction (values and cycles), the
// verifier's checks, and the depthwise CONV_2D lowering against a naive
// reference (INT8 bit exact, FP16 within the documented bound), with the
// fast and cycle-stepped executors agreeing on every cycle.
#include "plugins/systolic_npu/machine/vector_depthwise.h"

#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "plugins/systolic_npu/machine/vector_unit.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

const uint32_t kSrc0 = SramAddress(Bank::kInput, 0), kSrc1 = SramAddress(Bank::kWeight, 0),
               kDst = SramAddress(Bank::kAccum, 0);

// Two channels of 3x3, a 3x3 window, stride 2, padding 1 at top and left:
// a 2x2 output whose second row and column read one padded row / column.
PoolDesc HandDesc(int32_t pad_value) {
  PoolDesc d;
  d.in_h = d.in_w = 3;
  d.kernel_h = d.kernel_w = 3;
  d.stride_h = d.stride_w = 2;
  d.pad_top = d.pad_left = 1;
  d.out_h = d.out_w = 2;
  d.pad_value = pad_value;
  return d;
}

const int kX[2][9] = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {-1, 0, 1, 2, -2, 3, 0, 1, -1}};
const int kW[2][9] = {{1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 0, -1, 0, 2, 0, -1, 0, 1}};

// Weights tap-major: tap t of channel c at t * 2 + c.
template <typename T, typename F>
std::vector<T> TapMajor(F conv) {
  std::vector<T> w(18);
  for (int t = 0; t < 9; ++t)
    for (int c = 0; c < 2; ++c) w[t * 2 + c] = conv(kW[c][t]);
  return w;
}

struct Banks {
  std::vector<uint8_t> b[3] = {std::vector<uint8_t>(256), std::vector<uint8_t>(256), std::vector<uint8_t>(256)};
  uint8_t* ptr[3] = {b[0].data(), b[1].data(), b[2].data()};
};

TEST(VectorDepthwise, HandWorkedInt8PaddingReadsTheZeroPoint) {
  Program p;
  const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, HandDesc(3));
  Banks m;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 9; ++i) m.b[0][c * 9 + i] = static_cast<uint8_t>(static_cast<int8_t>(kX[c][i]));
  const auto w = TapMajor<int8_t>([](int v) { return static_cast<int8_t>(v); });
  std::memcpy(m.b[1].data(), w.data(), w.size());
  Instruction in = MakeVector(VectorOp::kDepthwise, TSR_DTYPE_I8, TSR_DTYPE_I32, kSrc0, kSrc1, kDst, 2, 9, desc);
  in.f[6] = 9;
  ASSERT_EQ(DepthwiseProblem(p, in), "");
  ExecuteVector(p, in, m.ptr);
  // By hand, position-major [pos][channel]. Channel 0 sums its window, 3 per
  // padded tap (5 of them everywhere): 12+15, 16+15, 24+15, 28+15.
  // Channel 1 (padded taps 3 * w): -2-3-2, 2+2+3, 3+2, -2-3-2.
  std::vector<int32_t> got(8);
  std::memcpy(got.data(), m.b[2].data(), 32);
  EXPECT_EQ(got, (std::vector<int32_t>{27, -7, 31, 7, 39, 5, 43, -7}));
  EXPECT_EQ(VectorResultBytes(p, in), 32u);
  EXPECT_EQ(VectorSrc1Bytes(in), 18u);
}

TEST(VectorDepthwise, HandWorkedF16SkipsPadding) {
  Program p;
  const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, HandDesc(0));
  Banks m;
  std::vector<uint16_t> x(18);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 9; ++i) x[c * 9 + i] = FloatToHalf(0.5f * kX[c][i]);
  std::memcpy(m.b[0].data(), x.data(), 36);
  const auto w = TapMajor<uint16_t>([](int v) { return FloatToHalf(static_cast<float>(v)); });
  std::memcpy(m.b[1].data(), w.data(), 36);
  Instruction in = MakeVector(VectorOp::kDepthwise, TSR_DTYPE_F16, TSR_DTYPE_F32, kSrc0, kSrc1, kDst, 2, 9, desc);
  in.f[6] = 9;
  ASSERT_EQ(DepthwiseProblem(p, in), "");
  ExecuteVector(p, in, m.ptr);
  // The INT8 case's in-bounds sums, halved: 12, 16, 24, 28 and -4, 4, 2, -4.
  std::vector<float> got(8);
  std::memcpy(got.data(), m.b[2].data(), 32);
  EXPECT_EQ(got, (std::vector<float>{6, -2, 8, 2, 12, 1, 14, -2}));
}

TEST(VectorDepthwise, CyclesOnePassPerTap) {
  Program p;
  const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, HandDesc(0));
  Instruction in = MakeVector(VectorOp::kDepthwise, TSR_DTYPE_F16, TSR_DTYPE_F32, kSrc0, kSrc1, kDst, 2, 9, desc);
  in.f[6] = 9;
  SystolicNpuConfig npu = SmallNpu(4, 4);
  npu.vector_width = 3;
  // depth 4 + 9 taps * ceil(2 channels * 4 positions / 3 lanes) = 4 + 27.
  EXPECT_EQ(VectorCycles(p, in, npu), 31u);
  npu.vector_width = 8;
  EXPECT_EQ(VectorCycles(p, in, npu), 13u);  // 4 + 9 * 1
}

TEST(VectorDepthwise, ProblemsAreNamed) {
  Program p;
  const uint32_t f_desc = p.AddDescriptor(ConstantKind::kPoolDesc, HandDesc(0));
  const uint32_t q_desc = p.AddDescriptor(ConstantKind::kPoolDesc, HandDesc(-7));
  PoolDesc bad = HandDesc(0);
  bad.pad_bottom = 1;
  const uint32_t bad_desc = p.AddDescriptor(ConstantKind::kPoolDesc, bad);
  auto make = [&](int32_t dt, int32_t ot, uint32_t desc, uint32_t taps, uint32_t cols = 9) {
    Instruction in = MakeVector(VectorOp::kDepthwise, dt, ot, kSrc0, kSrc1, kDst, 2, cols, desc);
    in.f[6] = taps;
    return DepthwiseProblem(p, in);
  };
  EXPECT_EQ(make(TSR_DTYPE_I8, TSR_DTYPE_I32, q_desc, 9), "");
  EXPECT_NE(make(TSR_DTYPE_I8, TSR_DTYPE_I8, q_desc, 9).find("i8 -> i32"), std::string::npos);
  EXPECT_NE(make(TSR_DTYPE_F32, TSR_DTYPE_F32, f_desc, 9).find("f16 -> f32"), std::string::npos);
  EXPECT_NE(make(TSR_DTYPE_F16, TSR_DTYPE_F32, q_desc, 9).find("pad_value must be 0"), std::string::npos);
  EXPECT_NE(make(TSR_DTYPE_F16, TSR_DTYPE_F32, f_desc, 8).find("tap count 9"), std::string::npos);
  EXPECT_NE(make(TSR_DTYPE_F16, TSR_DTYPE_F32, f_desc, 9, 10).find("in_h * in_w"), std::string::npos);
  EXPECT_NE(make(TSR_DTYPE_F16, TSR_DTYPE_F32, bad_desc, 9).find("out of range"), std::string::npos);
}

// Naive depthwise reference in int32 with padding contributing nothing,
// then reference_requant.h's requantization (independent of quant.h).
std::vector<int8_t> DepthwiseRefI8(const Conv2dLayer& L, const std::vector<uint8_t>& x) {
  const int64_t OH = L.out_h(), OW = L.out_w(), C = L.in_channels;
  const RefRange range = RefActivationRange(L.activation.kind, L.activation.clip_min, L.activation.clip_max,
                                            L.output_q.scale, L.output_q.zero_point);
  std::vector<int8_t> y(static_cast<size_t>(L.batch * C * OH * OW));
  for (int64_t b = 0; b < L.batch; ++b)
    for (int64_t c = 0; c < C; ++c) {
      const RefMultiplier qm =
          RefQuantizeMultiplier(static_cast<double>(L.input_q.scale) * L.weight_scales[c] / L.output_q.scale);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int32_t acc = L.bias_q[c];
          for (int64_t kh = 0; kh < L.kernel_h; ++kh)
            for (int64_t kw = 0; kw < L.kernel_w; ++kw) {
              const int64_t ih = oh * L.stride_h + kh * L.dilation_h - L.pad_top;
              const int64_t iw = ow * L.stride_w + kw * L.dilation_w - L.pad_left;
              if (ih < 0 || iw < 0 || ih >= L.in_h || iw >= L.in_w) continue;
              const int32_t xv = static_cast<int8_t>(x[((b * C + c) * L.in_h + ih) * L.in_w + iw]);
              acc +=
                  (xv - L.input_q.zero_point) * static_cast<int8_t>(L.weights[(c * L.kernel_h + kh) * L.kernel_w + kw]);
            }
          y[((b * C + c) * OH + oh) * OW + ow] = RefRequantize(acc, qm, L.output_q.zero_point, range.min, range.max);
        }
    }
  return y;
}

// Depthwise layers of the shapes mobile CNNs use: 3x3, 1x3 and 3x1
// windows, stride 1 and 2, padding on any side, dilation 2.
Conv2dLayer RandomDepthwise(std::mt19937& rng) {
  Conv2dLayer L;
  L.batch = 1 + rng() % 2;
  L.in_channels = L.out_channels = L.groups = 2 + rng() % 11;
  L.in_h = 5 + rng() % 12;
  L.in_w = 5 + rng() % 12;
  const int shape = rng() % 3;
  L.kernel_h = shape == 1 ? 1 : 3;
  L.kernel_w = shape == 2 ? 1 : 3;
  L.stride_h = L.stride_w = 1 + rng() % 2;
  L.dilation_h = 1 + rng() % 2;
  L.dilation_w = 1 + rng() % 2;
  L.pad_top = rng() % 2 * (L.kernel_h / 2) * L.dilation_h;
  L.pad_bottom = rng() % 2 * (L.kernel_h / 2) * L.dilation_h;
  L.pad_left = L.pad_right = (L.kernel_w / 2) * L.dilation_w;
  return L;
}

// The program runs DEPTHWISE and no MATMUL_TILE, and both executors agree
// on outputs and every metric.
RunResult RunBothExecutors(const Program& p, const SystolicNpuConfig& npu, const std::vector<uint8_t>& x) {
  bool depthwise = false;
  for (const Instruction& in : p.entries[0].code) {
    EXPECT_NE(in.op, Opcode::kMatmulTile);
    depthwise = depthwise || (in.op == Opcode::kVector && static_cast<VectorOp>(in.a) == VectorOp::kDepthwise);
  }
  EXPECT_TRUE(depthwise);
  const RunResult fast = RunEntry(p, npu, {x}, ExecOptions{ExecMode::kFast});
  const RunResult stepped = RunEntry(p, npu, {x}, ExecOptions{ExecMode::kCycleStepped});
  EXPECT_EQ(fast.outputs, stepped.outputs);
  EXPECT_EQ(fast.metrics, stepped.metrics);
  return fast;
}

TEST(VectorDepthwise, ConvInt8BitExactAcrossBandsAndChannelTiles) {
  std::mt19937 rng(41);
  for (int iter = 0; iter < 40; ++iter) {
    // 1 KiB banks (2 KiB for FP16): a 16-wide plane takes several bands,
    // and channel tiles of array_cols (3..6) split the channels.
    const SystolicNpuConfig npu = SmallNpu(3 + rng() % 4, 3 + rng() % 4, 1, 1, 1);
    Conv2dLayer L = RandomDepthwise(rng);
    L.dtype = L.weights_dtype = TSR_DTYPE_I8;
    L.weights = RandomI8(rng, L.in_channels * L.kernel_h * L.kernel_w);
    L.bias_q.resize(L.in_channels);
    for (auto& b : L.bias_q) b = static_cast<int32_t>(rng() % 4001) - 2000;
    L.input_q = {0.05f, static_cast<int32_t>(rng() % 256) - 128};
    L.output_q = {0.3f, static_cast<int32_t>(rng() % 101) - 50};
    L.weight_scales = RandomF(rng, L.in_channels, 0.005f, 0.02f);
    L.activation = {static_cast<Activation>(rng() % 3), -2.0f, 3.0f};
    const auto x = RandomI8(rng, L.batch * L.in_channels * L.in_h * L.in_w);
    auto p = CompileConv2dProgram(L, npu, TilerOptions{});
    ASSERT_TRUE(p.ok()) << p.status();
    const RunResult got = RunBothExecutors(*p, npu, x);
    const auto want = DepthwiseRefI8(L, x);
    ASSERT_EQ(got.outputs[0].size(), want.size());
    EXPECT_EQ(0, std::memcmp(got.outputs[0].data(), want.data(), want.size()))
        << "C=" << L.in_channels << " " << L.in_h << "x" << L.in_w << " k=" << L.kernel_h << "x" << L.kernel_w
        << " s=" << L.stride_h << " d=" << L.dilation_h << "," << L.dilation_w;
  }
}

TEST(VectorDepthwise, ConvFp32WithinTheFp16Bound) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 30; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(3 + rng() % 4, 3 + rng() % 4, 2, 2, 2);
    Conv2dLayer L = RandomDepthwise(rng);
    L.dtype = L.weights_dtype = TSR_DTYPE_F32;
    const auto wf = RandomF(rng, L.in_channels * L.kernel_h * L.kernel_w);
    L.weights = FloatBytes(wf);
    L.bias_f = RandomF(rng, L.in_channels);
    L.activation = {static_cast<Activation>(rng() % 3), -1.0f, 1.5f};
    const auto xf = RandomF(rng, L.batch * L.in_channels * L.in_h * L.in_w);
    std::vector<double> mag;
    auto want = ConvRefFloat(L, xf, wf, &mag);
    for (double& v : want) {  // the fused activation, exact in f64
      if (L.activation.kind == Activation::kRelu) v = std::max(v, 0.0);
      if (L.activation.kind == Activation::kClip) v = std::min(std::max(v, -1.0), 1.5);
    }
    auto p = CompileConv2dProgram(L, npu, TilerOptions{});
    ASSERT_TRUE(p.ok()) << p.status();
    const auto got = AsFloats(RunBothExecutors(*p, npu, FloatBytes(xf)).outputs[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_LE(std::fabs(got[i] - want[i]), Fp16Bound(L.kernel_h * L.kernel_w, mag[i], 2.0, want[i], false, false))
          << i;
  }
}

}  // namespace
}  // namespace tessera::systolic
