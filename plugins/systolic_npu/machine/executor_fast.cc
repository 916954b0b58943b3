// Fast mode of the matrix unit: a blocked host GEMM with the same
// accumulation order as the PE grid (per output: k ascending from +0, then
// one add into the accumulator), so results are bit-identical to the
// cycle-stepped simulation. Timing comes from MatmulFormula.
#include <cstring>
#include <vector>

#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/systolic_npu/machine/fp16.h"

namespace tessera::systolic {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TSR_SNPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TSR_SNPU_CLONES
#endif

// s[r][n] = sum_k a[r][k] * w[k][n] for 4 rows at once, k ascending.
// T is float or int32_t (int32 sums wrap: computed in uint32).
template <typename T>
inline void Kernel4(const T* __restrict a, size_t lda, const T* __restrict w, size_t K, size_t N, T* __restrict s0,
                    T* __restrict s1, T* __restrict s2, T* __restrict s3) {
  for (size_t n = 0; n < N; ++n) s0[n] = s1[n] = s2[n] = s3[n] = T(0);
  for (size_t k = 0; k < K; ++k) {
    const T a0 = a[k], a1 = a[lda + k], a2 = a[2 * lda + k], a3 = a[3 * lda + k];
    const T* __restrict wk = w + k * N;
    for (size_t n = 0; n < N; ++n) {
      s0[n] += a0 * wk[n];
      s1[n] += a1 * wk[n];
      s2[n] += a2 * wk[n];
      s3[n] += a3 * wk[n];
    }
  }
}

template <typename T>
inline void Kernel1(const T* __restrict a, const T* __restrict w, size_t K, size_t N, T* __restrict s0) {
  for (size_t n = 0; n < N; ++n) s0[n] = T(0);
  for (size_t k = 0; k < K; ++k) {
    const T a0 = a[k];
    const T* __restrict wk = w + k * N;
    for (size_t n = 0; n < N; ++n) s0[n] += a0 * wk[n];
  }
}

// Adds (or stores) rows [m, m + rows) of s into the accumulator tile, which
// lives in SRAM at any alignment: acc = accumulate ? acc + s : s.
template <typename T>
inline void Writeback(const T* s, uint8_t* acc, size_t m, size_t rows, size_t N, bool accumulate, T* tmp) {
  uint8_t* dst = acc + m * N * sizeof(T);
  const size_t bytes = rows * N * sizeof(T);
  if (accumulate) {
    std::memcpy(tmp, dst, bytes);
    for (size_t i = 0; i < rows * N; ++i) tmp[i] = tmp[i] + s[m * N + i];
    std::memcpy(dst, tmp, bytes);
  } else {
    std::memcpy(dst, s + m * N, bytes);
  }
}

template <typename T>
inline void Gemm(const T* a, const T* w, T* s, uint8_t* acc, bool accumulate, size_t M, size_t K, size_t N, T* tmp) {
  size_t m = 0;
  for (; m + 4 <= M; m += 4) {
    Kernel4<T>(a + m * K, K, w, K, N, s + m * N, s + (m + 1) * N, s + (m + 2) * N, s + (m + 3) * N);
    Writeback<T>(s, acc, m, 4, N, accumulate, tmp);
  }
  for (; m < M; ++m) {
    Kernel1<T>(a + m * K, w, K, N, s + m * N);
    Writeback<T>(s, acc, m, 1, N, accumulate, tmp);
  }
}

TSR_SNPU_CLONES
void GemmF32(const float* a, const float* w, float* s, uint8_t* acc, bool accumulate, size_t M, size_t K, size_t N,
             float* tmp) {
  Gemm<float>(a, w, s, acc, accumulate, M, K, N, tmp);
}

// Integer products and sums in uint32 (wrapping, no UB).
TSR_SNPU_CLONES
void GemmI32(const uint32_t* a, const uint32_t* w, uint32_t* s, uint8_t* acc, bool accumulate, size_t M, size_t K,
             size_t N, uint32_t* tmp) {
  Gemm<uint32_t>(a, w, s, acc, accumulate, M, K, N, tmp);
}

class FastMatmul final : public MatmulEngine {
 public:
  MatmulTiming Run(const MatmulArgs& x) override {
    const size_t M = x.M, K = x.K, N = x.N;
    if (x.dtype == TSR_DTYPE_F16) {
      af_.resize(M * K);
      wf_.resize(K * N);
      sf_.resize(M * N);
      accf_.resize(4 * N);
      Decode16(x.input, af_.data(), M * K);
      Decode16(x.weight, wf_.data(), K * N);
      GemmF32(af_.data(), wf_.data(), sf_.data(), x.acc, x.accumulate, M, K, N, accf_.data());
    } else {
      ai_.resize(M * K);
      wi_.resize(K * N);
      si_.resize(M * N);
      acci_.resize(4 * N);
      Decode8(x.input, ai_.data(), M * K);
      Decode8(x.weight, wi_.data(), K * N);
      GemmI32(ai_.data(), wi_.data(), si_.data(), x.acc, x.accumulate, M, K, N, acci_.data());
    }
    return MatmulFormula(x.dataflow, M, K, N, x.R, x.C);
  }

 private:
  static void Decode16(const uint8_t* p, float* out, size_t n) {
    static const std::vector<float> table = [] {
      std::vector<float> t(65536);
      for (uint32_t h = 0; h < 65536; ++h) t[h] = HalfToFloat(static_cast<uint16_t>(h));
      return t;
    }();
    const float* tab = table.data();
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      out[i] = tab[h];
    }
  }
  static void Decode8(const uint8_t* p, uint32_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(p[i])));
  }

  std::vector<float> af_, wf_, sf_, accf_;
  std::vector<uint32_t> ai_, wi_, si_, acci_;
};

}  // namespace

std::unique_ptr<MatmulEngine> MakeFastMatmulEngine() { return std::make_unique<FastMatmul>(); }

}  // namespace tessera::systolic
