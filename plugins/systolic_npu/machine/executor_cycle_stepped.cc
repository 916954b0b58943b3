// Cycle-stepped mode of the matrix unit: a register-level simulation of the
// R x C PE grid. Every cycle each PE latches new register values computed
// from its neighbours' values of the previous cycle (synchronous update).
//
// Weight stationary (WS):
//   cycles [0, K):   weight rows shift down the shadow weight chain; after
//                    K shifts row k holds W[k][:] (fill).
//   cycle K + t:     row k's left edge receives A[t - k][k] (skewed) while
//                    0 <= t - k < M (stream: M cycles at PE(0,0)).
//   each cycle:      a moves one PE right; PE(k,n) computes
//                    p_out = p_in + a * w (rows k >= K pass p through);
//                    p moves one PE down; the bottom row's psum is
//                    written to the accumulator one cycle later.
// Input stationary (IS): the WS grid on the transposed problem
//   out^T = B^T x A^T: A^T (K x M) shifts into the shadow chain (fill = K),
//   the N columns of B stream in skewed (stream = N), results leave the
//   bottom row as out^T[n][m] (drain = M + R - 1).
// Output stationary (OS):
//   cycle t:         row i's left edge receives A[i][t - i] and column j's
//                    top edge W[t - j][j] (skewed). Each PE multiplies the
//                    pair it holds into its own accumulator register.
//   after the last MAC (PE(M-1,N-1), cycle K+M+N-3) the results are copied
//   into an R-deep drain chain that shifts one row per cycle into the
//   accumulator SRAM.
// Timing is measured from the simulation: fill = cycles before the first
// operand enters PE(0,0), stream = cycles PE(0,0) receives operands, drain
// = the rest until the last accumulator write.
#include <cstring>
#include <utility>
#include <vector>

#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/systolic_npu/machine/fp16.h"

namespace tessera::systolic {
namespace {

// One operand slot in the grid: a value and whether it carries data.
template <typename V>
struct Slot {
  V v{};
  int32_t tag = -1;  // row (WS: m) or k index carried; -1 = bubble
};

template <typename V>
class Grid {
 public:
  // V = float (F16 operands decoded, fp32 sums) or uint32_t (I8 operands,
  // wrapping int32 sums).
  MatmulTiming Run(const MatmulArgs& x) {
    M_ = x.M;
    K_ = x.K;
    N_ = x.N;
    R_ = x.R;
    C_ = x.C;
    acc_ = x.acc;
    accumulate_ = x.accumulate;
    transposed_ = x.dataflow == Dataflow::kInputStationary;
    if (transposed_) std::swap(M_, N_);  // the grid's rows stream B^T: N x K
    a_.assign(size_t{M_} * K_, V{});
    w_.assign(size_t{K_} * N_, V{});
    if (transposed_) {
      // IS is the WS grid computing out^T = B^T x A^T: A^T (K x M) is the
      // stationary operand, the N columns of B stream in from the left.
      for (uint32_t m = 0; m < x.M; ++m)
        for (uint32_t k = 0; k < K_; ++k) w_[size_t{k} * x.M + m] = Load(x.input, size_t{m} * K_ + k, x.dtype);
      for (uint32_t k = 0; k < K_; ++k)
        for (uint32_t n = 0; n < x.N; ++n) a_[size_t{n} * K_ + k] = Load(x.weight, size_t{k} * x.N + n, x.dtype);
      return RunWs();
    }
    for (size_t i = 0; i < a_.size(); ++i) a_[i] = Load(x.input, i, x.dtype);
    for (size_t i = 0; i < w_.size(); ++i) w_[i] = Load(x.weight, i, x.dtype);
    return x.dataflow == Dataflow::kWeightStationary ? RunWs() : RunOs();
  }

 private:
  static V Load(const uint8_t* p, size_t i, int32_t dtype) {
    if constexpr (std::is_same_v<V, float>) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return HalfToFloat(h);
    } else {
      return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(p[i])));
    }
  }

  // Result (m, n) of the grid's GEMM; for IS the grid's (n, m) of the tile.
  void Capture(uint32_t m, uint32_t n, V psum) {
    uint8_t* dst = acc_ + (transposed_ ? size_t{n} * M_ + m : size_t{m} * N_ + n) * 4;
    if (accumulate_) {
      V old;
      std::memcpy(&old, dst, 4);
      psum = old + psum;
    }
    std::memcpy(dst, &psum, 4);
    ++captured_;
  }

  size_t Idx(uint32_t r, uint32_t c) const { return size_t{r} * C_ + c; }

  MatmulTiming RunWs() {
    const size_t cells = size_t{R_} * C_;
    std::vector<V> shadow(cells, V{}), weight(cells, V{});
    std::vector<Slot<V>> a(cells), a_next(cells), p(cells), p_next(cells);
    captured_ = 0;
    uint64_t cycle = 0;
    MatmulTiming t;
    // Fill: K cycles of shifting weight rows down the shadow chain.
    for (uint32_t step = 0; step < K_; ++step, ++cycle) {
      for (uint32_t r = R_ - 1; r > 0; --r)
        for (uint32_t c = 0; c < C_; ++c) shadow[Idx(r, c)] = shadow[Idx(r - 1, c)];
      for (uint32_t c = 0; c < C_; ++c) shadow[Idx(0, c)] = c < N_ ? w_[size_t{K_ - 1 - step} * N_ + c] : V{};
    }
    t.fill = cycle;
    weight = shadow;  // latch the shadow weights as the first input arrives
    const uint64_t stream_start = cycle;
    uint64_t last_entry = stream_start;
    const uint64_t total_results = uint64_t{M_} * N_;
    // Psums leaving the bottom row are written one cycle later.
    std::vector<Slot<V>> leaving(C_);
    while (captured_ < total_results) {
      const uint64_t tt = cycle - stream_start;
      for (uint32_t c = 0; c < C_; ++c)
        if (leaving[c].tag >= 0 && c < N_) Capture(static_cast<uint32_t>(leaving[c].tag), c, leaving[c].v);
      for (uint32_t r = 0; r < R_; ++r) {
        for (uint32_t c = 0; c < C_; ++c) {
          Slot<V> in;
          if (c == 0) {
            if (r < K_ && tt >= r && tt - r < M_) {
              const uint32_t m = static_cast<uint32_t>(tt - r);
              in.v = a_[size_t{m} * K_ + r];
              in.tag = static_cast<int32_t>(m);
              if (r == 0) last_entry = cycle;
            }
          } else {
            in = a[Idx(r, c - 1)];
          }
          a_next[Idx(r, c)] = in;
          Slot<V> ps = r == 0 ? Slot<V>{} : p[Idx(r - 1, c)];
          if (r == 0) ps.tag = in.tag;  // a new psum starts with its row
          if (r < K_) {
            if (in.tag >= 0) ps.v = ps.v + in.v * weight[Idx(r, c)];
          }
          p_next[Idx(r, c)] = ps;
        }
      }
      for (uint32_t c = 0; c < C_; ++c) leaving[c] = p_next[Idx(R_ - 1, c)];
      a.swap(a_next);
      p.swap(p_next);
      ++cycle;
    }
    t.stream = last_entry - stream_start + 1;
    t.drain = cycle - t.fill - t.stream;
    return t;
  }

  MatmulTiming RunOs() {
    const size_t cells = size_t{R_} * C_;
    std::vector<Slot<V>> a(cells), a_next(cells), w(cells), w_next(cells);
    std::vector<V> acc(cells, V{});
    std::vector<uint32_t> macs(cells, 0);
    captured_ = 0;
    uint64_t cycle = 0, first_entry = 0, last_entry = 0;
    bool entered = false;
    const uint64_t all_macs = uint64_t{M_} * N_ * K_;
    uint64_t done_macs = 0;
    while (done_macs < all_macs) {
      for (uint32_t r = 0; r < R_; ++r) {
        for (uint32_t c = 0; c < C_; ++c) {
          Slot<V> ain, win;
          if (c == 0) {
            if (r < M_ && cycle >= r && cycle - r < K_) {
              const uint32_t k = static_cast<uint32_t>(cycle - r);
              ain.v = a_[size_t{r} * K_ + k];
              ain.tag = static_cast<int32_t>(k);
            }
          } else {
            ain = a[Idx(r, c - 1)];
          }
          if (r == 0) {
            if (c < N_ && cycle >= c && cycle - c < K_) {
              const uint32_t k = static_cast<uint32_t>(cycle - c);
              win.v = w_[size_t{k} * N_ + c];
              win.tag = static_cast<int32_t>(k);
            }
          } else {
            win = w[Idx(r - 1, c)];
          }
          if (r == 0 && c == 0 && ain.tag >= 0) {
            if (!entered) first_entry = cycle;
            entered = true;
            last_entry = cycle;
          }
          a_next[Idx(r, c)] = ain;
          w_next[Idx(r, c)] = win;
          if (ain.tag >= 0 && win.tag >= 0) {  // tags always agree (k)
            acc[Idx(r, c)] = acc[Idx(r, c)] + ain.v * win.v;
            ++macs[Idx(r, c)];
            ++done_macs;
          }
        }
      }
      a.swap(a_next);
      w.swap(w_next);
      ++cycle;
    }
    // Drain: copy into the chain, then R shifts into the accumulator SRAM.
    std::vector<Slot<V>> chain(cells);
    for (uint32_t r = 0; r < R_; ++r)
      for (uint32_t c = 0; c < C_; ++c)
        if (r < M_ && c < N_) chain[Idx(r, c)] = Slot<V>{acc[Idx(r, c)], static_cast<int32_t>(r)};
    ++cycle;  // the copy cycle
    for (uint32_t step = 0; step < R_; ++step, ++cycle) {
      for (uint32_t c = 0; c < C_; ++c) {
        const Slot<V>& out = chain[Idx(R_ - 1, c)];
        if (out.tag >= 0) Capture(static_cast<uint32_t>(out.tag), c, out.v);
      }
      for (uint32_t r = R_ - 1; r > 0; --r)
        for (uint32_t c = 0; c < C_; ++c) chain[Idx(r, c)] = chain[Idx(r - 1, c)];
      for (uint32_t c = 0; c < C_; ++c) chain[Idx(0, c)] = Slot<V>{};
    }
    MatmulTiming t;
    t.fill = first_entry;
    t.stream = last_entry - first_entry + 1;
    t.drain = cycle - t.fill - t.stream;
    return t;
  }

  uint32_t M_ = 0, K_ = 0, N_ = 0, R_ = 0, C_ = 0;
  std::vector<V> a_, w_;
  uint8_t* acc_ = nullptr;
  bool accumulate_ = false;
  bool transposed_ = false;  // IS: M_ / N_ are the tile's N / M
  uint64_t captured_ = 0;
};

class CycleSteppedMatmul final : public MatmulEngine {
 public:
  MatmulTiming Run(const MatmulArgs& x) override {
    if (x.dtype == TSR_DTYPE_F16) return f_.Run(x);
    return i_.Run(x);
  }

 private:
  Grid<float> f_;
  Grid<uint32_t> i_;
};

}  // namespace

std::unique_ptr<MatmulEngine> MakeCycleSteppedMatmulEngine() { return std::make_unique<CycleSteppedMatmul>(); }

}  // namespace tessera::systolic
