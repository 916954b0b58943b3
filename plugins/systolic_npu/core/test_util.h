// Helpers shared by the core tests: small SoCs, random layers, naive
// reference implementations and a one-call runner.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_TEST_UTIL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include "executor.h"
#include "fp16.h"
#include "program.h"
#include "quant.h"
#include "tiler.h"

namespace tessera::systolic::snpu_test {

inline SystolicNpuConfig SmallNpu(int64_t r, int64_t c, int64_t in_kib = 4, int64_t w_kib = 4,
                                  int64_t acc_kib = 4) {
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
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

inline std::vector<float> AsFloats(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

// Reference int8 GEMM: int32 accumulate of (a - za) * w + bias, then the
// TFLite requantization pipeline with the fused activation range.
inline std::vector<int8_t> ReferenceGemmI8(const GemmLayer& L, const std::vector<uint8_t>& x) {
  std::vector<int8_t> y(static_cast<size_t>(L.M * L.N));
  const QuantRange r = QuantizedActivationRange(L.activation.kind, L.activation.clip_min,
                                                L.activation.clip_max, L.output_q.scale,
                                                L.output_q.zero_point);
  for (int64_t n = 0; n < L.N; ++n) {
    const float ws = L.weight_scales.size() == 1 ? L.weight_scales[0] : L.weight_scales[n];
    const QuantizedMultiplier q =
        QuantizeMultiplier(static_cast<double>(L.input_q.scale) * ws / L.output_q.scale);
    for (int64_t m = 0; m < L.M; ++m) {
      int32_t acc = L.bias_q.empty() ? 0 : L.bias_q[n];
      for (int64_t k = 0; k < L.K; ++k) {
        const int8_t w = static_cast<int8_t>(
            L.weights[L.weight_layout == WeightLayout::kNK ? n * L.K + k : k * L.N + n]);
        acc += (static_cast<int8_t>(x[m * L.K + k]) - L.input_q.zero_point) * w;
      }
      y[m * L.N + n] = RequantizeOne(acc, q.multiplier, q.shift, L.output_q.zero_point, r.min, r.max);
    }
  }
  return y;
}

}  // namespace tessera::systolic::snpu_test

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_CORE_TEST_UTIL_H_
