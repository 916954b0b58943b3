// The tiling compiler against naive references: INT8 bit exact, FP16
// within the documented error bound (docs/systolic_npu_isa.md).
#include "plugins/systolic_npu/machine/tiler.h"

#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/numerics.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

struct GemmCase {
  int64_t M, K, N;
};

TEST(Tiler, GemmInt8BitExactAgainstReference) {
  std::mt19937 rng(21);
  const auto edge = BuiltinSocConfig("ref-edge");
  ASSERT_TRUE(edge.ok());
  for (int iter = 0; iter < 60; ++iter) {
    const SystolicNpuConfig npu = iter % 3 == 0 ? edge->npu : SmallNpu(2 + rng() % 7, 2 + rng() % 7);
    GemmLayer L;
    L.M = 1 + rng() % 70;
    L.K = 1 + rng() % 70;
    L.N = 1 + rng() % 50;
    L.dtype = TSR_DTYPE_I8;
    L.weights_dtype = TSR_DTYPE_I8;
    L.weight_layout = rng() % 2 ? WeightLayout::kNK : WeightLayout::kKN;
    L.weights = RandomI8(rng, L.K * L.N);
    L.bias_q.resize(L.N);
    for (auto& b : L.bias_q) b = static_cast<int32_t>(rng() % 6001) - 3000;
    L.input_q = {0.03f, static_cast<int32_t>(rng() % 256) - 128};
    L.weight_scales = RandomF(rng, L.N, 0.01f, 0.02f);
    // Output scale chosen so results spread over the int8 range.
    L.output_q = {static_cast<float>(0.06 * std::sqrt(static_cast<double>(L.K)) * (0.5 + (rng() % 100) / 100.0)),
                  static_cast<int32_t>(rng() % 101) - 50};
    L.activation = {static_cast<Activation>(rng() % 3), -1.0f, 2.0f};
    const auto x = RandomI8(rng, L.M * L.K);
    const auto want = ReferenceGemmI8(L, x);
    if (L.M * L.N > 200 && L.activation.kind == Activation::kNone) {  // the case exercises more than the clamp
      std::set<int8_t> distinct(want.begin(), want.end());
      EXPECT_GT(distinct.size(), 8u);
    }
    for (Dataflow df : kAllDataflows) {
      auto p = CompileGemmProgram(L, npu, TilerOptions{df});
      ASSERT_TRUE(p.ok()) << p.status();
      const auto got = RunEntry(*p, npu, {x}, ExecOptions{});
      ASSERT_EQ(got.outputs[0].size(), want.size());
      EXPECT_EQ(0, std::memcmp(got.outputs[0].data(), want.data(), want.size()))
          << "M=" << L.M << " K=" << L.K << " N=" << L.N << " df=" << DataflowName(df);
    }
  }
}

TEST(Tiler, GemmFp16WithinErrorBound) {
  std::mt19937 rng(22);
  for (int iter = 0; iter < 60; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7);
    GemmLayer L;
    L.M = 1 + rng() % 40;
    L.K = 1 + rng() % 300;
    L.N = 1 + rng() % 30;
    const bool f16_io = rng() % 2;
    L.dtype = f16_io ? TSR_DTYPE_F16 : TSR_DTYPE_F32;
    L.weights_dtype = TSR_DTYPE_F32;
    const auto wf = RandomF(rng, L.K * L.N);
    L.weights = FloatBytes(wf);
    L.bias_f = RandomF(rng, L.N);
    L.activation = {static_cast<Activation>(rng() % 3), -1.0f, 1.5f};
    auto xf = RandomF(rng, L.M * L.K);
    std::vector<uint8_t> x;
    if (f16_io) {
      for (auto& v : xf) v = RoundToHalf(v);
      const auto h = ToHalf(xf);
      x.resize(h.size() * 2);
      std::memcpy(x.data(), h.data(), x.size());
    } else {
      x = FloatBytes(xf);
    }
    for (Dataflow df : kAllDataflows) {
      auto p = CompileGemmProgram(L, npu, TilerOptions{df});
      ASSERT_TRUE(p.ok()) << p.status();
      const auto got = RunEntry(*p, npu, {x}, ExecOptions{});
      for (int64_t m = 0; m < L.M; ++m) {
        for (int64_t n = 0; n < L.N; ++n) {
          double y = L.bias_f[n], mag = 0;
          for (int64_t k = 0; k < L.K; ++k) {
            const double w = wf[L.weight_layout == WeightLayout::kNK ? n * L.K + k : k * L.N + n];
            y += xf[m * L.K + k] * w;
            mag += std::fabs(xf[m * L.K + k] * w);
          }
          if (L.activation.kind == Activation::kRelu) y = std::max(0.0, y);
          if (L.activation.kind == Activation::kClip) y = std::clamp(y, -1.0, 1.5);
          double g;
          if (f16_io) {
            uint16_t h;
            std::memcpy(&h, got.outputs[0].data() + 2 * (m * L.N + n), 2);
            g = HalfToFloat(h);
          } else {
            float f;
            std::memcpy(&f, got.outputs[0].data() + 4 * (m * L.N + n), 4);
            g = f;
          }
          ASSERT_LE(std::fabs(g - y), Fp16Bound(L.K, mag, std::fabs(L.bias_f[n]), y, f16_io, f16_io))
              << "m=" << m << " n=" << n << " K=" << L.K;
        }
      }
    }
  }
}

TEST(Tiler, ConvInt8BitExactIncludingGroupsAndDepthwise) {
  std::mt19937 rng(23);
  for (int iter = 0; iter < 60; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7);
    Conv2dLayer L = RandomConv(rng);
    L.dtype = L.weights_dtype = TSR_DTYPE_I8;
    const int64_t Cg = L.in_channels / L.groups;
    const int64_t K = Cg * L.kernel_h * L.kernel_w;
    L.weights = RandomI8(rng, L.out_channels * K);
    L.bias_q.resize(L.out_channels);
    for (auto& b : L.bias_q) b = static_cast<int32_t>(rng() % 4001) - 2000;
    L.input_q = {0.05f, static_cast<int32_t>(rng() % 256) - 128};
    L.output_q = {static_cast<float>(0.15 * std::sqrt(static_cast<double>(K)) * (0.5 + (rng() % 100) / 100.0)),
                  static_cast<int32_t>(rng() % 101) - 50};
    L.weight_scales = RandomF(rng, L.out_channels, 0.005f, 0.02f);
    L.activation = {static_cast<Activation>(rng() % 3), -2.0f, 3.0f};
    const auto x = RandomI8(rng, L.batch * L.in_channels * L.in_h * L.in_w);
    // Reference: int32 accumulate with padding contributing nothing, then
    // reference_requant.h's requantization (independent of quant.h).
    const int64_t OH = L.out_h(), OW = L.out_w(), OCg = L.out_channels / L.groups;
    const RefRange range = RefActivationRange(L.activation.kind, L.activation.clip_min, L.activation.clip_max,
                                              L.output_q.scale, L.output_q.zero_point);
    std::vector<int8_t> want(L.batch * L.out_channels * OH * OW);
    for (int64_t b = 0; b < L.batch; ++b)
      for (int64_t oc = 0; oc < L.out_channels; ++oc) {
        const RefMultiplier qm =
            RefQuantizeMultiplier(static_cast<double>(L.input_q.scale) * L.weight_scales[oc] / L.output_q.scale);
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t g = oc / OCg;
            int32_t acc = L.bias_q[oc];
            for (int64_t c = 0; c < Cg; ++c)
              for (int64_t kh = 0; kh < L.kernel_h; ++kh)
                for (int64_t kw = 0; kw < L.kernel_w; ++kw) {
                  const int64_t ih = oh * L.stride_h + kh * L.dilation_h - L.pad_top;
                  const int64_t iw = ow * L.stride_w + kw * L.dilation_w - L.pad_left;
                  if (ih < 0 || iw < 0 || ih >= L.in_h || iw >= L.in_w) continue;
                  const int32_t xv =
                      static_cast<int8_t>(x[((b * L.in_channels + g * Cg + c) * L.in_h + ih) * L.in_w + iw]);
                  const int32_t wv =
                      static_cast<int8_t>(L.weights[((oc * Cg + c) * L.kernel_h + kh) * L.kernel_w + kw]);
                  acc += (xv - L.input_q.zero_point) * wv;
                }
            want[((b * L.out_channels + oc) * OH + oh) * OW + ow] =
                RefRequantize(acc, qm, L.output_q.zero_point, range.min, range.max);
          }
      }
    for (Dataflow df : kAllDataflows) {
      auto p = CompileConv2dProgram(L, npu, TilerOptions{df});
      ASSERT_TRUE(p.ok()) << p.status();
      const auto got = RunEntry(*p, npu, {x}, ExecOptions{});
      ASSERT_EQ(got.outputs[0].size(), want.size());
      EXPECT_EQ(0, std::memcmp(got.outputs[0].data(), want.data(), want.size()))
          << "groups=" << L.groups << " C=" << L.in_channels << " OC=" << L.out_channels;
    }
  }
}

TEST(Tiler, ConvFp32WithinErrorBound) {
  std::mt19937 rng(24);
  for (int iter = 0; iter < 40; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7);
    Conv2dLayer L = RandomConv(rng);
    L.dtype = L.weights_dtype = TSR_DTYPE_F32;
    const int64_t K = (L.in_channels / L.groups) * L.kernel_h * L.kernel_w;
    const auto wf = RandomF(rng, L.out_channels * K);
    L.weights = FloatBytes(wf);
    L.bias_f = RandomF(rng, L.out_channels);
    const auto xf = RandomF(rng, L.batch * L.in_channels * L.in_h * L.in_w);
    std::vector<double> mag;
    const auto want = ConvRefFloat(L, xf, wf, &mag);
    auto p = CompileConv2dProgram(L, npu, TilerOptions{});
    ASSERT_TRUE(p.ok()) << p.status();
    const auto got = AsFloats(RunEntry(*p, npu, {FloatBytes(xf)}, ExecOptions{}).outputs[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_LE(std::fabs(got[i] - want[i]), Fp16Bound(K, mag[i], 2.0, want[i], false, false)) << i;
  }
}

TEST(Tiler, ElementwiseOps) {
  std::mt19937 rng(25);
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 1, 1);  // forces many chunks
  const int64_t n = 3000;
  const auto af = RandomF(rng, n), bf = RandomF(rng, n);
  for (ElementwiseOp op :
       {ElementwiseOp::kAdd, ElementwiseOp::kSub, ElementwiseOp::kMul, ElementwiseOp::kRelu, ElementwiseOp::kClip}) {
    ElementwiseLayer L{op, n, TSR_DTYPE_F32, -0.5f, 0.5f, {}, {}, {}};
    auto p = CompileElementwiseProgram(L, npu);
    ASSERT_TRUE(p.ok()) << p.status();
    const bool binary = IsBinary(op);
    const auto A = FloatBytes(af), B = FloatBytes(bf);
    std::vector<std::span<const uint8_t>> ins = {A};
    if (binary) ins.push_back(B);
    const auto got = AsFloats(RunEntry(*p, npu, ins, ExecOptions{}).outputs[0]);
    for (int64_t i = 0; i < n; ++i) {
      float want = 0;
      switch (op) {
        case ElementwiseOp::kAdd:
          want = af[i] + bf[i];
          break;
        case ElementwiseOp::kSub:
          want = af[i] - bf[i];
          break;
        case ElementwiseOp::kMul:
          want = af[i] * bf[i];
          break;
        case ElementwiseOp::kRelu:
          want = af[i] < 0 ? 0 : af[i];
          break;
        case ElementwiseOp::kClip:
          want = std::clamp(af[i], -0.5f, 0.5f);
          break;
        default:
          break;  // the table ops are tested in lookup_tables_test / int8_vector_ops_test
      }
      ASSERT_EQ(got[i], want) << i;
    }
  }
  // INT8 ADD / MUL: the f32 reference formulation of docs/ops.md.
  const auto ai = RandomI8(rng, n), bi = RandomI8(rng, n);
  for (ElementwiseOp op : {ElementwiseOp::kAdd, ElementwiseOp::kMul}) {
    ElementwiseLayer L{op, n, TSR_DTYPE_I8, 0, 0, {0.05f, 3}, {0.08f, -7}, {0.1f, 2}};
    auto p = CompileElementwiseProgram(L, npu);
    ASSERT_TRUE(p.ok()) << p.status();
    const auto got = RunEntry(*p, npu, {ai, bi}, ExecOptions{}).outputs[0];
    for (int64_t i = 0; i < n; ++i) {
      const int8_t a = static_cast<int8_t>(ai[i]), b = static_cast<int8_t>(bi[i]);
      const float ra = static_cast<float>(a - 3) * 0.05f, rb = static_cast<float>(b + 7) * 0.08f;
      const float r = op == ElementwiseOp::kAdd ? ra + rb : ra * rb;
      const double want = std::clamp(std::nearbyint(static_cast<double>(r / 0.1f)) + 2, -128.0, 127.0);
      ASSERT_EQ(static_cast<int8_t>(got[i]), static_cast<int8_t>(want)) << i;
    }
  }
  // INT8 RELU / CLIP act on the stored integers.
  for (ElementwiseOp op : {ElementwiseOp::kRelu, ElementwiseOp::kClip}) {
    ElementwiseLayer L{op, n, TSR_DTYPE_I8, -3.5f, 20.7f, {}, {}, {}};
    auto p = CompileElementwiseProgram(L, npu);
    ASSERT_TRUE(p.ok()) << p.status();
    const auto got = RunEntry(*p, npu, {ai}, ExecOptions{}).outputs[0];
    for (int64_t i = 0; i < n; ++i) {
      const int a = static_cast<int8_t>(ai[i]);
      const int want = op == ElementwiseOp::kRelu ? std::max(a, 0) : std::clamp(a, -3, 20);
      ASSERT_EQ(static_cast<int8_t>(got[i]), want);
    }
  }
}

// Per-channel ADD / SUB / MUL: b holds one value per channel of a tensor
// viewed as [outer, C, plane] (b [C, 1, 1] against NCHW). F32 is one fp32
// operation per element, F16 within the declared tolerance of the exact
// result of the F16 inputs, INT8 ADD / MUL bit exact with docs/ops.md's
// formula. 512-byte bank halves cut planes into columns and channels into
// runs.
TEST(Tiler, PerChannelBroadcast) {
  std::mt19937 rng(27);
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 1, 1);
  struct Shape {
    int64_t outer, channels, plane;
  };
  for (const Shape s : {Shape{2, 3, 225}, Shape{1, 200, 4}, Shape{3, 5, 1}, Shape{1, 7, 130}}) {
    const int64_t n = s.outer * s.channels * s.plane;
    auto ch = [&](int64_t i) { return (i / s.plane) % s.channels; };
    const auto af = RandomF(rng, n), bf = RandomF(rng, s.channels);
    const auto ai = RandomI8(rng, n), bi = RandomI8(rng, s.channels);
    for (ElementwiseOp op : {ElementwiseOp::kAdd, ElementwiseOp::kSub, ElementwiseOp::kMul}) {
      auto f = [&](double a, double b) {
        return op == ElementwiseOp::kAdd ? a + b : (op == ElementwiseOp::kSub ? a - b : a * b);
      };
      ElementwiseLayer L{op, n, TSR_DTYPE_F32, 0, 0, {}, {}, {}};
      L.b_channels = s.channels;
      L.plane = s.plane;
      auto p = CompileElementwiseProgram(L, npu);
      ASSERT_TRUE(p.ok()) << p.status();
      const auto got = AsFloats(RunEntry(*p, npu, {FloatBytes(af), FloatBytes(bf)}, {}).outputs[0]);
      for (int64_t i = 0; i < n; ++i) {
        const float a = af[i], b = bf[ch(i)];
        const float want = op == ElementwiseOp::kAdd ? a + b : (op == ElementwiseOp::kSub ? a - b : a * b);
        ASSERT_EQ(got[i], want) << i;
      }
      L.dtype = TSR_DTYPE_F16;
      p = CompileElementwiseProgram(L, npu);
      ASSERT_TRUE(p.ok()) << p.status();
      const auto gh = RunEntry(*p, npu, {FloatsAs(af, L.dtype), FloatsAs(bf, L.dtype)}, {}).outputs[0];
      for (int64_t i = 0; i < n; ++i) {
        const double y = f(RoundToHalf(af[i]), RoundToHalf(bf[ch(i)]));
        ASSERT_LE(std::fabs(OutputValue(gh, TSR_DTYPE_F16, i) - y),
                  kFp16AbsoluteTolerance + kFp16RelativeTolerance * std::fabs(y))
            << i;
      }
      L.dtype = TSR_DTYPE_I8;
      L.a_q = {0.05f, 3};
      L.b_q = {0.08f, -7};
      L.out_q = {0.1f, 2};
      p = CompileElementwiseProgram(L, npu);
      ASSERT_TRUE(p.ok()) << p.status();
      const auto gi = RunEntry(*p, npu, {ai, bi}, {}).outputs[0];
      for (int64_t i = 0; i < n; ++i) {
        const float ra = static_cast<float>(static_cast<int8_t>(ai[i]) - 3) * 0.05f;
        const float rb = static_cast<float>(static_cast<int8_t>(bi[ch(i)]) + 7) * 0.08f;
        const float r = op == ElementwiseOp::kAdd ? ra + rb : op == ElementwiseOp::kSub ? ra - rb : ra * rb;
        const double want = std::clamp(std::nearbyint(static_cast<double>(r / 0.1f)) + 2, -128.0, 127.0);
        ASSERT_EQ(static_cast<int8_t>(gi[i]), static_cast<int8_t>(want)) << i;
      }
    }
  }
}

TEST(Tiler, PoolOps) {
  std::mt19937 rng(26);
  const SystolicNpuConfig npu = SmallNpu(4, 4, 2, 2, 2);
  for (int iter = 0; iter < 40; ++iter) {
    Pool2dLayer L;
    L.kind = rng() % 2 ? PoolKind::kMax : PoolKind::kAvg;
    L.batch = 1 + rng() % 2;
    L.channels = 1 + rng() % 6;
    L.in_h = 2 + rng() % 10;
    L.in_w = 2 + rng() % 10;
    L.kernel_h = 1 + rng() % 3;
    L.kernel_w = 1 + rng() % 3;
    L.stride_h = 1 + rng() % 2;
    L.stride_w = 1 + rng() % 2;
    L.pad_top = L.kernel_h > 1 ? rng() % 2 : 0;
    L.pad_left = L.kernel_w > 1 ? rng() % 2 : 0;
    L.pad_bottom = L.pad_top;
    L.pad_right = L.pad_left;
    L.ceil_mode = rng() % 2;
    L.count_include_pad = rng() % 2;
    const bool q = rng() % 2;
    L.dtype = q ? TSR_DTYPE_I8 : TSR_DTYPE_F32;
    const int64_t xn = L.batch * L.channels * L.in_h * L.in_w;
    const auto xi = RandomI8(rng, xn);
    const auto xf = RandomF(rng, xn);
    auto p = CompilePool2dProgram(L, npu);
    ASSERT_TRUE(p.ok()) << p.status();
    const auto out = RunEntry(*p, npu, {q ? xi : FloatBytes(xf)}, ExecOptions{}).outputs[0];
    const int64_t OH = L.out_h(), OW = L.out_w();
    for (int64_t c = 0; c < L.batch * L.channels; ++c)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double mx = -1e30, sum = 0;
          int64_t isum = 0, cnt = 0, padded = 0;
          for (int64_t kh = 0; kh < L.kernel_h; ++kh)
            for (int64_t kw = 0; kw < L.kernel_w; ++kw) {
              const int64_t ih = oh * L.stride_h + kh - L.pad_top, iw = ow * L.stride_w + kw - L.pad_left;
              if (ih < L.in_h + L.pad_bottom && iw < L.in_w + L.pad_right) ++padded;
              if (ih < 0 || iw < 0 || ih >= L.in_h || iw >= L.in_w) continue;
              const size_t i = (c * L.in_h + ih) * L.in_w + iw;
              const double v = q ? static_cast<int8_t>(xi[i]) : xf[i];
              mx = std::max(mx, v);
              sum += v;
              isum += q ? static_cast<int8_t>(xi[i]) : 0;
              ++cnt;
            }
          const int64_t div = L.count_include_pad ? padded : cnt;
          const size_t o = (c * OH + oh) * OW + ow;
          if (q) {
            const int64_t want = L.kind == PoolKind::kMax
                                     ? static_cast<int64_t>(mx)
                                     : (isum > 0 ? (isum + div / 2) / div : (isum - div / 2) / div);
            ASSERT_EQ(static_cast<int8_t>(out[o]), want);
          } else {
            float g;
            std::memcpy(&g, out.data() + 4 * o, 4);
            const double want = L.kind == PoolKind::kMax ? mx : sum / div;
            ASSERT_NEAR(g, want, 1e-5);
          }
        }
  }
}

TEST(Tiler, RejectsBadLayersAndOversizedTiles) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  GemmLayer L;
  L.M = 2;
  L.K = 3;
  L.N = 4;
  L.dtype = TSR_DTYPE_F32;
  L.weights_dtype = TSR_DTYPE_F32;
  L.weights.resize(5);  // wrong size
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
  L.weights.resize(L.K * L.N * 4);
  L.dtype = TSR_DTYPE_I32;
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
  L.dtype = TSR_DTYPE_I8;  // i8 layer with f32 weights
  EXPECT_EQ(CompileGemmProgram(L, npu, {}).status().code(), absl::StatusCode::kInvalidArgument);
  Pool2dLayer P;
  P.channels = 1;
  P.in_h = P.in_w = 200;  // one plane larger than half the input bank
  P.kernel_h = P.kernel_w = 2;
  EXPECT_EQ(CompilePool2dProgram(P, npu).status().code(), absl::StatusCode::kResourceExhausted);
}

// IS cuts K like WS (kt = min(K, R)) and sums each tile in k order from +0
// (ISA doc section 3), so its FP16 results are WS's bits, not merely within
// the bound; also with the A panel not resident (a 1 KiB input bank).
TEST(Tiler, InputStationaryGivesWeightStationaryBits) {
  std::mt19937 rng(25);
  for (int iter = 0; iter < 40; ++iter) {
    const SystolicNpuConfig npu = SmallNpu(2 + rng() % 7, 2 + rng() % 7, iter % 2 ? 1 : 4, 4, 4);
    GemmLayer L;
    L.M = 1 + rng() % 40;
    L.K = 1 + rng() % 120;
    L.N = 1 + rng() % 30;
    L.dtype = TSR_DTYPE_F32;
    L.weights_dtype = TSR_DTYPE_F32;
    L.weights = FloatBytes(RandomF(rng, L.K * L.N));
    L.bias_f = RandomF(rng, L.N);
    const auto x = FloatBytes(RandomF(rng, L.M * L.K));
    auto ws = CompileGemmProgram(L, npu, TilerOptions{Dataflow::kWeightStationary});
    auto is = CompileGemmProgram(L, npu, TilerOptions{Dataflow::kInputStationary});
    ASSERT_TRUE(ws.ok()) << ws.status();
    ASSERT_TRUE(is.ok()) << is.status();
    EXPECT_EQ(RunEntry(*is, npu, {x}, ExecOptions{}).outputs, RunEntry(*ws, npu, {x}, ExecOptions{}).outputs)
        << "M=" << L.M << " K=" << L.K << " N=" << L.N;
  }
}

}  // namespace
}  // namespace tessera::systolic
