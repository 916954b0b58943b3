// The cpu plugin's upsampling kernels, reference against fast, on
// PaddleOCR-detector-like shapes (docs/benchmarks.md "Upsampling kernels"):
// CONV_TRANSPOSE_2D 64 -> 64 channels, k=2 s=2 on 1x64x80x80 (oneDNN
// deconvolution), and linear RESIZE x2 on 1x64x80x80 and x4 on 1x1x160x160
// (separable taps). Median of several runs each, one thread; the fast
// result is also checked against the reference (max abs difference).
//   build/bench/upsample_kernels_bench [threads]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "support/reference_kernels/kernel_api.h"
#include "support/reference_kernels/kernel_util.h"
#include "tessera/ops.h"

namespace {

using tessera::cpu::Attributes;
using tessera::cpu::TensorRef;
namespace fast = tessera::cpu::fast;

struct Buffer {
  std::vector<float> v;
  TensorRef ref;
  Buffer(std::vector<int64_t> shape, std::mt19937* rng) {
    ref.dtype = TSR_DTYPE_F32;
    ref.shape = std::move(shape);
    v.resize(static_cast<size_t>(ref.element_count()));
    std::uniform_real_distribution<float> u(-1, 1);
    if (rng)
      for (float& x : v) x = u(*rng);
    ref.data = v.data();
  }
};

template <typename Fn>
double MedianMicros(int runs, Fn&& fn) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// inputs[0] is the activation (run-time); the rest are constants.
void Bench(const fast::FastEngine& engine, const char* label, int32_t op_type, const Attributes& attrs,
           std::vector<Buffer*> inputs, std::vector<int64_t> out_shape) {
  std::vector<TensorRef> ins, typed;
  for (Buffer* b : inputs) ins.push_back(b->ref);
  typed = ins;
  typed[0].data = nullptr;
  Buffer want(out_shape, nullptr), got(out_shape, nullptr);
  std::vector<TensorRef> outs = {want.ref};
  TensorRef typed_out = got.ref;
  typed_out.data = nullptr;
  const double ref_us = MedianMicros(3, [&] {
    if (!tessera::cpu::RunReferenceOp(op_type, attrs, ins, outs).ok()) std::abort();
  });
  std::string why;
  auto op = engine.Prepare(op_type, attrs, typed, {&typed_out, 1}, &why);
  if (!op) {
    std::printf("%-44s reference %10.0f us   fast: refused (%s)\n", label, ref_us, why.c_str());
    return;
  }
  auto state = op->NewState();
  if (!state.ok()) std::abort();
  std::vector<void*> in_ptrs;
  for (Buffer* b : inputs) in_ptrs.push_back(b->ref.data);
  void* out_ptrs[] = {got.ref.data};
  fast::ScopedThreads threads(engine.threads());
  if (!op->Run(**state, in_ptrs, out_ptrs).ok()) std::abort();  // warm-up
  const double fast_us = MedianMicros(21, [&] {
    if (!op->Run(**state, in_ptrs, out_ptrs).ok()) std::abort();
  });
  double diff = 0;
  for (size_t i = 0; i < want.v.size(); ++i) diff = std::max(diff, std::fabs(double(want.v[i]) - got.v[i]));
  std::printf("%-44s reference %10.0f us   fast %8.0f us   x%-7.1f max |diff| %.2g\n", label, ref_us, fast_us,
              ref_us / fast_us, diff);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  auto engine = fast::FastEngine::Create(threads);
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", std::string(engine.status().message()).c_str());
    return 1;
  }
  std::printf("%s, %d thread(s)\n", fast::FastLibraryVersion().c_str(), threads);
  std::mt19937 rng(1);
  {
    Buffer x({1, 64, 80, 80}, &rng), w({64, 64, 2, 2}, &rng), b({64}, &rng);
    Attributes a;
    a.SetInts(TSR_ATTR_STRIDES, {2, 2});
    Bench(**engine, "CONV_TRANSPOSE_2D 1x64x80x80 k2 s2 -> 64", TSR_OP_CONV_TRANSPOSE_2D, a, {&x, &w, &b},
          {1, 64, 160, 160});
  }
  for (int64_t coord : {TSR_COORD_HALF_PIXEL, TSR_COORD_ALIGN_CORNERS}) {
    const char* name = coord == TSR_COORD_HALF_PIXEL ? "half_pixel" : "align_corners";
    Attributes a;
    a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_LINEAR});
    a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
    Buffer x2({1, 64, 80, 80}, &rng), x4({1, 1, 160, 160}, &rng);
    Bench(**engine, (std::string("RESIZE linear x2 1x64x80x80 ") + name).c_str(), TSR_OP_RESIZE, a, {&x2},
          {1, 64, 160, 160});
    Bench(**engine, (std::string("RESIZE linear x4 1x1x160x160 ") + name).c_str(), TSR_OP_RESIZE, a, {&x4},
          {1, 1, 640, 640});
  }
  return 0;
}
