// Helpers shared by the core tests: small SoCs, random layers, naive
// reference implementations and a one-call runner.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TEST_UTIL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/reference_requant.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic::snpu_test {

inline SystolicNpuConfig SmallNpu(int64_t r, int64_t c, int64_t in_kib = 4, int64_t w_kib = 4, int64_t acc_kib = 4) {
  SystolicNpuConfig n;
  n.array_rows = r;
  n.array_cols = c;
  n.clock_mhz = 500;
  n.sram_input_kib = in_kib;
  n.sram_weight_kib = w_kib;
  n.sram_accum_kib = acc_kib;
  n.dram_bandwidth_gbps = 4;
  n.dram_latency_cycles = 20;
  n.vector_width = c;
  return n;
}

template <typename T>
std::span<const uint8_t> Bytes(const std::vector<T>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

struct RunResult {
  std::vector<std::vector<uint8_t>> outputs;
  RunMetrics metrics;
};

// Runs entry 0 with the given inputs; output sizes come from the regions.
inline RunResult RunEntry(const Program& p, const SystolicNpuConfig& npu,
                          const std::vector<std::span<const uint8_t>>& inputs, ExecOptions opts) {
  RunResult r;
  const absl::Status v = VerifyProgram(p, npu);
  EXPECT_TRUE(v.ok()) << v;
  const EntryPoint& e = p.entries.at(0);
  r.outputs.resize(e.CountRegions(RegionKind::kOutput));
  for (const Region& rg : e.regions)
    if (rg.kind == RegionKind::kOutput) r.outputs[rg.io_index].assign(rg.size_bytes, 0xCD);
  std::vector<std::span<uint8_t>> outs;
  for (auto& o : r.outputs) outs.emplace_back(o.data(), o.size());
  auto m = Execute(p, e, npu, inputs, outs, opts);
  EXPECT_TRUE(m.ok()) << m.status();
  if (m.ok()) r.metrics = *m;
  return r;
}

inline std::vector<uint8_t> RandomI8(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

inline std::vector<float> RandomF(std::mt19937& rng, size_t n, float lo = -2, float hi = 2) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

inline std::vector<uint16_t> ToHalf(const std::vector<float>& v) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = FloatToHalf(v[i]);
  return h;
}

inline std::vector<uint8_t> FloatBytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());  // data() may be null
  return b;
}

inline std::vector<float> AsFloats(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

inline constexpr double kU16 = 1.0 / 2048;      // fp16 unit roundoff 2^-11
inline constexpr double kU32 = 1.0 / 16777216;  // fp32 unit roundoff 2^-24

// Documented bound: |y^ - y| <= (2 u16 + u16^2 + (K+1) u32 (1+u16)^2 / (1-(K+1)u32))
//                               * sum |x||w| + u32 |b| (+ u16 |y^| for f16 output).
inline double Fp16Bound(int64_t K, double abs_dot, double abs_bias, double y, bool f16_out, bool x_is_f16) {
  const double in_err = x_is_f16 ? kU16 : 2 * kU16 + kU16 * kU16;
  const double g = (K + 1) * kU32 / (1 - (K + 1) * kU32) * (1 + kU16) * (1 + kU16);
  double b = (in_err + g) * abs_dot + kU32 * abs_bias;
  if (f16_out) b += kU16 * (std::fabs(y) + b);
  return b + 1e-30;
}

// Naive NCHW float convolution in f64; *mag receives sum |x||w| per output.
inline std::vector<double> ConvRefFloat(const Conv2dLayer& L, const std::vector<float>& x, const std::vector<float>& w,
                                        std::vector<double>* mag) {
  const int64_t OH = L.out_h(), OW = L.out_w(), Cg = L.in_channels / L.groups, OCg = L.out_channels / L.groups;
  std::vector<double> y(L.batch * L.out_channels * OH * OW);
  mag->assign(y.size(), 0);
  for (int64_t b = 0; b < L.batch; ++b)
    for (int64_t oc = 0; oc < L.out_channels; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t g = oc / OCg;
          double s = L.bias_f.empty() ? 0 : L.bias_f[oc], a = 0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < L.kernel_h; ++kh)
              for (int64_t kw = 0; kw < L.kernel_w; ++kw) {
                const int64_t ih = oh * L.stride_h + kh * L.dilation_h - L.pad_top;
                const int64_t iw = ow * L.stride_w + kw * L.dilation_w - L.pad_left;
                if (ih < 0 || iw < 0 || ih >= L.in_h || iw >= L.in_w) continue;
                const double xv = x[((b * L.in_channels + g * Cg + c) * L.in_h + ih) * L.in_w + iw];
                const double wv = w[((oc * Cg + c) * L.kernel_h + kh) * L.kernel_w + kw];
                s += xv * wv;
                a += std::fabs(xv * wv);
              }
          const size_t i = ((b * L.out_channels + oc) * OH + oh) * OW + ow;
          y[i] = s;
          (*mag)[i] = a;
        }
  return y;
}

inline Conv2dLayer RandomConv(std::mt19937& rng) {
  Conv2dLayer L;
  L.batch = 1 + rng() % 2;
  const int kind = rng() % 3;  // plain, grouped, depthwise
  const int64_t cg = 1 + rng() % 4;
  L.groups = kind == 0 ? 1 : (kind == 1 ? 2 : 3 + rng() % 3);
  L.in_channels = kind == 2 ? L.groups : L.groups * cg;
  L.out_channels = L.groups * (1 + rng() % (kind == 2 ? 2 : 5));
  L.in_h = 2 + rng() % 9;
  L.in_w = 2 + rng() % 9;
  L.kernel_h = 1 + rng() % 3;
  L.kernel_w = 1 + rng() % 3;
  L.stride_h = 1 + rng() % 2;
  L.stride_w = 1 + rng() % 2;
  L.dilation_h = 1 + rng() % 2;
  L.dilation_w = 1;
  L.pad_top = rng() % 2;
  L.pad_left = rng() % 2;
  L.pad_bottom = rng() % 3;
  L.pad_right = rng() % 2;
  if (L.out_h() < 1 || L.out_w() < 1) {
    L.dilation_h = 1;
    L.pad_bottom = L.pad_right = L.pad_top = L.pad_left = 1;
    L.kernel_h = L.kernel_w = 1;
  }
  return L;
}

// Float values as the bytes of a tensor of `dtype` (F32, or F16 rounded).
inline std::vector<uint8_t> FloatsAs(const std::vector<float>& v, int32_t dtype) {
  if (dtype == TSR_DTYPE_F32) return FloatBytes(v);
  const std::vector<uint16_t> h = ToHalf(v);
  std::vector<uint8_t> b(h.size() * 2);
  if (!h.empty()) std::memcpy(b.data(), h.data(), b.size());
  return b;
}

// Output element i of a F32 or F16 tensor as a double.
inline double OutputValue(const std::vector<uint8_t>& out, int32_t dtype, size_t i) {
  if (dtype == TSR_DTYPE_F16) {
    uint16_t h;
    std::memcpy(&h, out.data() + 2 * i, 2);
    return HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, out.data() + 4 * i, 4);
  return f;
}

// Reference int8 GEMM: int32 accumulate of (a - za) * w + bias, then the
// requantization and fused activation range of docs/systolic_npu_isa.md
// §9, from reference_requant.h (not quant.h: the reference must not share
// the requantizer under test).
inline std::vector<int8_t> ReferenceGemmI8(const GemmLayer& L, const std::vector<uint8_t>& x) {
  std::vector<int8_t> y(static_cast<size_t>(L.M * L.N));
  const RefRange r = RefActivationRange(L.activation.kind, L.activation.clip_min, L.activation.clip_max,
                                        L.output_q.scale, L.output_q.zero_point);
  for (int64_t n = 0; n < L.N; ++n) {
    const float ws = L.weight_scales.size() == 1 ? L.weight_scales[0] : L.weight_scales[n];
    const RefMultiplier q = RefQuantizeMultiplier(static_cast<double>(L.input_q.scale) * ws / L.output_q.scale);
    for (int64_t m = 0; m < L.M; ++m) {
      int32_t acc = L.bias_q.empty() ? 0 : L.bias_q[n];
      for (int64_t k = 0; k < L.K; ++k) {
        const int8_t w =
            static_cast<int8_t>(L.weights[L.weight_layout == WeightLayout::kNK ? n * L.K + k : k * L.N + n]);
        acc += (static_cast<int8_t>(x[m * L.K + k]) - L.input_q.zero_point) * w;
      }
      y[m * L.N + n] = RefRequantize(acc, q, L.output_q.zero_point, r.min, r.max);
    }
  }
  return y;
}

}  // namespace tessera::systolic::snpu_test

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TEST_UTIL_H_
