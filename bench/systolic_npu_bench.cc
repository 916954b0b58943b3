// How fast the systolic NPU simulator runs on this machine: GMAC/s of the
// fast mode (the functional result from a host GEMM, cycles from the
// formulas) on one GEMM layer per SoC, INT8 and FP16, side by side with the
// register-level cycle-stepped mode on the same layer as the baseline, and
// the modelled device time for scale. Figures, not assertions: timings on
// a shared machine vary, so each figure is the best of --reps runs of
// thread CPU time (wall time would measure the neighbours).
//
//   build/bin/systolic_npu_bench [--reps N] [--m M --k K --n N] [--stepped-m M]
//
// The cycle-stepped mode costs O(cycles x R x C), so it runs a smaller M
// (--stepped-m, default 16) and its GMAC/s is per useful MAC as well.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/soc_config.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {
namespace {

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Measured {
  double gmacs = 0;       // best over reps
  double modelled_us = 0; // the NPU's own time for the layer
  bool ok = false;
  std::string error;
};

GemmLayer MakeLayer(int64_t m, int64_t k, int64_t n, int32_t dtype, std::mt19937& rng) {
  GemmLayer L;
  L.M = m;
  L.K = k;
  L.N = n;
  L.dtype = dtype;
  std::uniform_int_distribution<int> i8(-127, 127);
  std::uniform_real_distribution<float> f(-1.f, 1.f);
  if (dtype == TSR_DTYPE_I8) {
    L.weights_dtype = TSR_DTYPE_I8;
    L.weights.resize(static_cast<size_t>(k * n));
    for (uint8_t& b : L.weights) b = static_cast<uint8_t>(static_cast<int8_t>(i8(rng)));
    L.weight_scales = {0.01f};
    L.input_q = {0.1f, 0};
    L.output_q = {1.0f, 0};
  } else {
    L.weights_dtype = TSR_DTYPE_F32;
    std::vector<float> w(static_cast<size_t>(k * n));
    for (float& v : w) v = f(rng);
    L.weights.resize(w.size() * 4);
    std::memcpy(L.weights.data(), w.data(), L.weights.size());
  }
  return L;
}

std::vector<uint8_t> MakeInput(const GemmLayer& L, std::mt19937& rng) {
  std::vector<uint8_t> x;
  if (L.dtype == TSR_DTYPE_I8) {
    std::uniform_int_distribution<int> i8(-128, 127);
    x.resize(static_cast<size_t>(L.M * L.K));
    for (uint8_t& b : x) b = static_cast<uint8_t>(static_cast<int8_t>(i8(rng)));
  } else {
    std::uniform_real_distribution<float> f(-1.f, 1.f);
    x.resize(static_cast<size_t>(L.M * L.K) * 2);
    for (size_t i = 0; i < x.size() / 2; ++i) {
      const uint16_t h = FloatToHalf(f(rng));
      std::memcpy(&x[2 * i], &h, 2);
    }
  }
  return x;
}

Measured Run(const GemmLayer& L, const SystolicNpuConfig& npu, ExecMode mode, int reps, std::mt19937& rng) {
  Measured r;
  absl::StatusOr<Program> p = CompileGemmProgram(L, npu, TilerOptions{});
  if (!p.ok()) {
    r.error = std::string(p.status().message());
    return r;
  }
  const absl::Status verified = VerifyProgram(*p, npu);
  if (!verified.ok()) {
    r.error = std::string(verified.message());
    return r;
  }
  const std::vector<uint8_t> x = MakeInput(L, rng);
  std::vector<uint8_t> out(p->entries[0].regions[1].size_bytes);
  std::vector<std::span<const uint8_t>> ins = {x};
  std::vector<std::span<uint8_t>> outs = {out};
  ExecOptions opts;
  opts.mode = mode;
  for (int rep = 0; rep < reps; ++rep) {
    const double t0 = ThreadCpuSeconds();
    absl::StatusOr<RunMetrics> m = Execute(*p, p->entries[0], npu, ins, outs, opts);
    const double s = ThreadCpuSeconds() - t0;
    if (!m.ok()) {
      r.error = std::string(m.status().message());
      return r;
    }
    r.modelled_us = m->time_us;
    r.gmacs = std::max(r.gmacs, static_cast<double>(m->macs) / std::max(s, 1e-9) / 1e9);
  }
  r.ok = true;
  return r;
}

int Main(int argc, char** argv) {
  int reps = 3;
  int64_t m = 256, k = 512, n = 512, stepped_m = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (v <= 0) {
      std::fprintf(stderr, "systolic_npu_bench: %s needs a positive number\n", flag.c_str());
      return 2;
    }
    if (flag == "--reps") reps = static_cast<int>(v);
    else if (flag == "--m") m = v;
    else if (flag == "--k") k = v;
    else if (flag == "--n") n = v;
    else if (flag == "--stepped-m") stepped_m = v;
    else {
      std::fprintf(stderr, "usage: systolic_npu_bench [--reps N] [--m M --k K --n N] [--stepped-m M]\n");
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: systolic_npu_bench [--reps N] [--m M --k K --n N] [--stepped-m M]\n");
    return 2;
  }
  std::mt19937 rng(7);
  std::printf("%-10s %-5s %-16s %12s %12s %16s %14s %10s\n", "soc", "dtype", "layer (MxKxN)", "fast GMAC/s",
              "modelled us", "stepped GMAC/s", "stepped layer", "fast/step");
  int failures = 0;
  for (const char* soc_name : {"ref-edge", "ref-phone", "ref-server"}) {
    absl::StatusOr<SystolicSocConfig> soc = BuiltinSocConfig(soc_name);
    if (!soc.ok()) {
      std::fprintf(stderr, "%s: %s\n", soc_name, std::string(soc.status().message()).c_str());
      return 1;
    }
    for (int32_t dtype : {TSR_DTYPE_I8, TSR_DTYPE_F16}) {
      const GemmLayer big = MakeLayer(m, k, n, dtype, rng);
      const Measured fast = Run(big, soc->npu, ExecMode::kFast, reps, rng);
      // Baseline: the register-level PE-grid simulation, on a smaller M.
      const GemmLayer small = MakeLayer(stepped_m, k, n, dtype, rng);
      const Measured stepped = Run(small, soc->npu, ExecMode::kCycleStepped, 1, rng);
      if (!fast.ok || !stepped.ok) {
        std::fprintf(stderr, "%s %s: %s\n", soc_name, dtype == TSR_DTYPE_I8 ? "int8" : "fp16",
                     (fast.ok ? stepped.error : fast.error).c_str());
        ++failures;
        continue;
      }
      const std::string layer = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      const std::string stepped_layer = std::to_string(stepped_m) + "x" + std::to_string(k) + "x" + std::to_string(n);
      std::printf("%-10s %-5s %-16s %12.2f %12.1f %16.4f %14s %9.0fx\n", soc_name,
                  dtype == TSR_DTYPE_I8 ? "int8" : "fp16", layer.c_str(), fast.gmacs, fast.modelled_us,
                  stepped.gmacs, stepped_layer.c_str(), fast.gmacs / stepped.gmacs);
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tessera::systolic

int main(int argc, char** argv) { return tessera::systolic::Main(argc, argv); }
