// One GEMM's constant-pool records and instruction stream (see
// tiler_gemm_core.h and docs/systolic_npu_isa.md section 5).
#include "plugins/systolic_npu/machine/tiler_gemm_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic::internal {
namespace {

int32_t FloatBits(float f) {
  int32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Tile sizes of one GEMM: M and K tile, column tile nt, and whether a whole
// K x nt weight panel stays resident in one weight buffer (WS only) or a
// whole mt x K input panel in one input buffer (IS only).
struct GemmTiles {
  int64_t mt = 0, kt = 0, nt = 0;
  bool resident_panel = false;
  bool resident_input = false;
};

absl::StatusOr<GemmTiles> ChooseTiles(const GemmCore& g, const SystolicNpuConfig& npu, const TilerOptions& opt,
                                      const SramMap& sm) {
  const int64_t R = npu.array_rows, C = npu.array_cols;
  const uint64_t es = NpuDtypeSize(g.mdtype);
  GemmTiles t;
  t.nt = std::min<int64_t>(g.N, C);
  if (opt.dataflow == Dataflow::kWeightStationary) {
    t.kt = std::min<int64_t>(g.K, R);
    t.mt = std::min<int64_t>(
        {g.M, static_cast<int64_t>(sm.in_half / (t.kt * es)), static_cast<int64_t>(sm.acc_half / (t.nt * 4))});
    if (static_cast<uint64_t>(t.kt * t.nt) * es > sm.w_half) t.mt = 0;
    t.resident_panel = static_cast<uint64_t>(g.K * t.nt) * es <= sm.w_half;
  } else if (opt.dataflow == Dataflow::kInputStationary) {
    // A^T (kt x mt) sits in the array, B's nt columns stream.
    t.kt = std::min<int64_t>(g.K, R);
    t.mt = std::min<int64_t>(g.M, C);
    if (static_cast<uint64_t>(t.mt * t.kt) * es > sm.in_half || static_cast<uint64_t>(t.kt * t.nt) * es > sm.w_half ||
        static_cast<uint64_t>(t.mt * t.nt) * 4 > sm.acc_half)
      t.mt = 0;
    t.resident_input = static_cast<uint64_t>(t.mt * g.K) * es <= sm.in_half;
  } else {
    t.mt = std::min<int64_t>(g.M, R);
    t.kt = std::min<int64_t>(
        {g.K, static_cast<int64_t>(sm.in_half / (t.mt * es)), static_cast<int64_t>(sm.w_half / (t.nt * es))});
    if (static_cast<uint64_t>(t.mt * t.nt) * 4 > sm.acc_half) t.kt = 0;
  }
  if (opt.free_tile_cap > 0) {
    int64_t& free = opt.dataflow == Dataflow::kOutputStationary ? t.kt : t.mt;
    free = std::min(free, opt.free_tile_cap);
    if (opt.dataflow == Dataflow::kInputStationary)
      t.resident_input = static_cast<uint64_t>(t.mt * g.K) * es <= sm.in_half;
  }
  if (t.mt <= 0 || t.kt <= 0)
    return absl::ResourceExhaustedError(
        absl::StrCat("systolic_npu tiler: a ", g.M, "x", g.K, "x", g.N, " GEMM tile does not fit the SRAM banks"));
  return t;
}

}  // namespace

// DMA_LOAD of B rows [k0, k0 + ki) x columns [n0, n0 + nj) (column tile j)
// into `dst`: a slice of the pre-tiled panel, or a strided gather from the
// DRAM tensor with F32 -> F16 conversion.
absl::StatusOr<Instruction> LoadWeightTile(const GemmCore& g, const Program& p, int64_t j, int64_t n0, uint32_t nj,
                                           int64_t k0, uint32_t ki, uint32_t dst) {
  const WeightTiles& w = g.weights;
  if (w.placement == OperandPlacement::kPretiled) {
    const uint64_t off = p.constants[w.panels[j]].offset + k0 * nj * NpuDtypeSize(g.mdtype);
    if (auto s = CheckOffset(off, "constant pool"); !s.ok()) return s;
    return MakeDmaLoadStrided(dst, 0, static_cast<uint32_t>(off), ki, nj, nj, 1, g.mdtype, g.mdtype);
  }
  const uint64_t off = w.dram.offset + (k0 * w.k_stride + n0 * w.n_stride) * NpuDtypeSize(w.dram_dtype);
  if (auto s = CheckOffset(off, "weights"); !s.ok()) return s;
  if (auto s = CheckOffset(std::max(w.k_stride, w.n_stride), "weight stride"); !s.ok()) return s;
  return MakeDmaLoadStrided(dst, w.dram.region, static_cast<uint32_t>(off), ki, nj, static_cast<uint32_t>(w.k_stride),
                            static_cast<uint32_t>(w.n_stride), w.dram_dtype, g.mdtype);
}

// DMA_LOAD of column tile j's epilogue parameters into the parameter
// buffer `dst`.
absl::StatusOr<Instruction> LoadParams(const GemmCore& g, const Program& p, int64_t j, int64_t n0, uint32_t nj,
                                       uint32_t dst) {
  const ParamTiles& pt = g.params;
  if (pt.placement == OperandPlacement::kPretiled) {
    const bool q = g.mdtype == TSR_DTYPE_I8;
    const Constant& c = p.constants[pt.constants[j]];
    if (auto s = CheckOffset(c.offset, "constant pool"); !s.ok()) return s;
    const int32_t dt = q ? TSR_DTYPE_I32 : TSR_DTYPE_F32;
    return MakeDmaLoadStrided(dst, 0, static_cast<uint32_t>(c.offset), 1, q ? 3 * nj : nj, 0, 1, dt, dt);
  }
  // A runtime bias: F32 as is, F16 widened exactly by the DMA engine.
  const uint64_t off = pt.dram.offset + n0 * NpuDtypeSize(pt.dram_dtype);
  if (auto s = CheckOffset(off, "bias"); !s.ok()) return s;
  return MakeDmaLoadStrided(dst, pt.dram.region, static_cast<uint32_t>(off), 1, nj, 0, 1, pt.dram_dtype, TSR_DTYPE_F32);
}

// VECTOR post-processing of one accumulator tile; returns the dtype the
// tile is stored from.
int32_t EmitEpilogue(const GemmCore& g, uint32_t acc, uint32_t par, uint32_t mi, uint32_t nj, EntryPoint& e) {
  if (g.mdtype == TSR_DTYPE_I8) {
    e.code.push_back(MakeVector(VectorOp::kBiasAdd, TSR_DTYPE_I32, TSR_DTYPE_I32, acc, par, acc, mi, nj));
    e.code.push_back(
        MakeVector(VectorOp::kRequantize, TSR_DTYPE_I32, TSR_DTYPE_I8, acc, par + nj * 4, acc, mi, nj, g.requant_desc));
    return TSR_DTYPE_I8;
  }
  if (g.params.present)
    e.code.push_back(MakeVector(VectorOp::kBiasAdd, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, par, acc, mi, nj));
  if (g.act == Activation::kRelu)
    e.code.push_back(MakeVector(VectorOp::kRelu, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, 0, acc, mi, nj));
  if (g.act == Activation::kClip)
    e.code.push_back(MakeVector(VectorOp::kClip, TSR_DTYPE_F32, TSR_DTYPE_F32, acc, 0, acc, mi, nj, g.clip_desc));
  return TSR_DTYPE_F32;
}

namespace {

// The loop nests of one GEMM over the chosen tiles, with the ping-pong
// buffer of each bank (ISA doc section 5).
struct GemmEmitter {
  const GemmCore& g;
  const SystolicNpuConfig& npu;
  const Program& p;
  EntryPoint& e;
  const SramMap& sm;
  const GemmTiles& t;
  Dataflow df;
  int in_t = 0, w_t = 0, acc_t = 0, par_t = 0;

  uint64_t es() const { return NpuDtypeSize(g.mdtype); }

  // DMA_LOAD of A rows [m0, m0 + mi) x columns [k0, k0 + ki) into `dst`.
  absl::Status LoadInput(int64_t m0, uint32_t mi, int64_t k0, uint32_t ki, uint32_t dst) {
    if (g.im2col) {
      e.code.push_back(MakeDmaLoadIm2col(dst, g.a_region, static_cast<uint32_t>(g.a_offset), mi, ki, g.im2col_desc,
                                         static_cast<uint32_t>(m0), static_cast<uint32_t>(k0), g.io_dtype, g.mdtype));
      return absl::OkStatus();
    }
    const uint64_t off = g.a_offset + (m0 * g.a_row_stride + k0) * NpuDtypeSize(g.io_dtype);
    if (auto s = CheckOffset(off, "input"); !s.ok()) return s;
    e.code.push_back(MakeDmaLoadStrided(dst, g.a_region, static_cast<uint32_t>(off), mi, ki,
                                        static_cast<uint32_t>(g.a_row_stride), 1, g.io_dtype, g.mdtype));
    return absl::OkStatus();
  }

  // Column tile j's parameters into the next parameter buffer.
  absl::StatusOr<uint32_t> LoadParamsOf(int64_t j, int64_t n0, uint32_t nj) {
    const uint32_t par = sm.param(par_t);
    if (!g.params.present) return par;
    par_t ^= 1;
    auto load = LoadParams(g, p, j, n0, nj, par);
    if (!load.ok()) return load.status();
    e.code.push_back(*load);
    return par;
  }

  // B tile (k, j) into the next weight buffer.
  absl::StatusOr<uint32_t> LoadWeightsOf(int64_t j, int64_t n0, uint32_t nj, int64_t k0, uint32_t ki) {
    const uint32_t wt = sm.w(w_t);
    w_t ^= 1;
    auto load = LoadWeightTile(g, p, j, n0, nj, k0, ki, wt);
    if (!load.ok()) return load.status();
    e.code.push_back(*load);
    return wt;
  }

  // Epilogue of accumulator tile (m0, n0) and its store.
  absl::Status Finish(uint32_t acc, uint32_t par, int64_t m0, uint32_t mi, int64_t n0, uint32_t nj) {
    const int32_t store_dtype = EmitEpilogue(g, acc, par, mi, nj, e);
    const uint64_t off = g.out_offset + (m0 * g.out_row_stride + n0 * g.out_col_stride) * NpuDtypeSize(g.io_dtype);
    if (auto s = CheckOffset(off, "output"); !s.ok()) return s;
    e.code.push_back(MakeDmaStore(acc, g.out_region, static_cast<uint32_t>(off), mi, nj,
                                  static_cast<uint32_t>(g.out_row_stride), static_cast<uint32_t>(g.out_col_stride),
                                  store_dtype, g.io_dtype));
    return absl::OkStatus();
  }

  uint32_t NextAcc() {
    const uint32_t acc = sm.acc(acc_t);
    acc_t ^= 1;
    return acc;
  }

  // WS and OS: for each column tile j (its K x nt weight panel resident
  // under WS when it fits), for each M tile, accumulate over K tiles.
  absl::Status ColumnTilesOuter() {
    const int64_t C = npu.array_cols;
    for (int64_t n0 = 0, j = 0; n0 < g.N; n0 += C, ++j) {
      const uint32_t nj = static_cast<uint32_t>(std::min<int64_t>(C, g.N - n0));
      auto par = LoadParamsOf(j, n0, nj);
      if (!par.ok()) return par.status();
      uint32_t panel_buf = 0;
      if (t.resident_panel) {
        auto panel = LoadWeightsOf(j, n0, nj, 0, static_cast<uint32_t>(g.K));
        if (!panel.ok()) return panel.status();
        panel_buf = *panel;
      }
      for (int64_t m0 = 0; m0 < g.M; m0 += t.mt) {
        const uint32_t mi = static_cast<uint32_t>(std::min<int64_t>(t.mt, g.M - m0));
        const uint32_t acc = NextAcc();
        for (int64_t k0 = 0; k0 < g.K; k0 += t.kt) {
          const uint32_t ki = static_cast<uint32_t>(std::min<int64_t>(t.kt, g.K - k0));
          const uint32_t a = sm.in(in_t);
          in_t ^= 1;
          if (auto s = LoadInput(m0, mi, k0, ki, a); !s.ok()) return s;
          uint32_t wt = panel_buf + static_cast<uint32_t>(k0 * nj * es());
          if (!t.resident_panel) {
            auto w = LoadWeightsOf(j, n0, nj, k0, ki);
            if (!w.ok()) return w.status();
            wt = *w;
          }
          e.code.push_back(MakeMatmulTile(static_cast<uint8_t>(df), g.mdtype, k0 > 0, a, wt, acc, mi, ki, nj));
        }
        if (auto s = Finish(acc, *par, m0, mi, n0, nj); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  // IS: for each M tile (its K tiles loaded once into one input buffer
  // when they fit, so the stationary A tiles stay put while every column
  // tile streams past them), for each column tile, accumulate over K tiles.
  absl::Status InputStationary() {
    const int64_t C = npu.array_cols;
    for (int64_t m0 = 0; m0 < g.M; m0 += t.mt) {
      const uint32_t mi = static_cast<uint32_t>(std::min<int64_t>(t.mt, g.M - m0));
      uint32_t panel_buf = 0;
      if (t.resident_input) {
        panel_buf = sm.in(in_t);
        in_t ^= 1;
        for (int64_t k0 = 0; k0 < g.K; k0 += t.kt) {
          const uint32_t ki = static_cast<uint32_t>(std::min<int64_t>(t.kt, g.K - k0));
          const uint32_t dst = panel_buf + static_cast<uint32_t>(mi * k0 * es());
          if (auto s = LoadInput(m0, mi, k0, ki, dst); !s.ok()) return s;
        }
      }
      for (int64_t n0 = 0, j = 0; n0 < g.N; n0 += C, ++j) {
        const uint32_t nj = static_cast<uint32_t>(std::min<int64_t>(C, g.N - n0));
        auto par = LoadParamsOf(j, n0, nj);
        if (!par.ok()) return par.status();
        const uint32_t acc = NextAcc();
        for (int64_t k0 = 0; k0 < g.K; k0 += t.kt) {
          const uint32_t ki = static_cast<uint32_t>(std::min<int64_t>(t.kt, g.K - k0));
          uint32_t a = panel_buf + static_cast<uint32_t>(mi * k0 * es());
          if (!t.resident_input) {
            a = sm.in(in_t);
            in_t ^= 1;
            if (auto s = LoadInput(m0, mi, k0, ki, a); !s.ok()) return s;
          }
          auto w = LoadWeightsOf(j, n0, nj, k0, ki);
          if (!w.ok()) return w.status();
          e.code.push_back(MakeMatmulTile(static_cast<uint8_t>(df), g.mdtype, k0 > 0, a, *w, acc, mi, ki, nj));
        }
        if (auto s = Finish(acc, *par, m0, mi, n0, nj); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::Status InvalidLayer(const std::string& m) { return absl::InvalidArgumentError("systolic_npu tiler: " + m); }

void PrepareConstants(GemmCore& g, const WeightAccessor& w, const Epilogue& ep, const SystolicNpuConfig& npu,
                      Program& p) {
  const int64_t C = npu.array_cols;
  const bool q = g.mdtype == TSR_DTYPE_I8;
  const bool pretiled = g.weights.placement == OperandPlacement::kPretiled;
  for (int64_t n0 = 0; n0 < g.N; n0 += C) {
    const int64_t nj = std::min(C, g.N - n0);
    if (q) {  // INT8 weights are always pretiled (CheckLayerOperands)
      std::vector<int8_t> panel(static_cast<size_t>(g.K * nj));
      std::vector<int32_t> params(static_cast<size_t>(3 * nj));
      for (int64_t n = 0; n < nj; ++n) {
        int64_t colsum = 0;
        for (int64_t k = 0; k < g.K; ++k) {
          const int8_t v = w.q(k, n0 + n);
          panel[k * nj + n] = v;
          colsum += v;
        }
        const int64_t ch = ep.n_base + n0 + n;
        const int64_t bias = ep.bias_q && !ep.bias_q->empty() ? (*ep.bias_q)[ch] : 0;
        // Fold the input zero point: sum (a - za) w = sum a w - za sum w.
        params[n] =
            static_cast<int32_t>(static_cast<uint32_t>(bias) - static_cast<uint32_t>(ep.in_q.zero_point * colsum));
        const float ws = ep.weight_scales->size() == 1 ? (*ep.weight_scales)[0] : (*ep.weight_scales)[ch];
        const QuantizedMultiplier qm = QuantizeMultiplier(static_cast<double>(ep.in_q.scale) * ws / ep.out_q.scale);
        params[nj + n] = qm.multiplier;
        params[2 * nj + n] = qm.shift;
      }
      g.weights.panels.push_back(p.AddData(panel.data(), panel.size(), TSR_DTYPE_I8));
      g.params.constants.push_back(p.AddData(params.data(), params.size() * 4, TSR_DTYPE_I32));
      g.params.present = true;
      continue;
    }
    if (pretiled) {
      std::vector<uint16_t> panel(static_cast<size_t>(g.K * nj));
      for (int64_t k = 0; k < g.K; ++k)
        for (int64_t n = 0; n < nj; ++n) panel[k * nj + n] = FloatToHalf(w.f(k, n0 + n));
      g.weights.panels.push_back(p.AddData(panel.data(), panel.size() * 2, TSR_DTYPE_F16));
    }
    if (g.params.placement == OperandPlacement::kPretiled && ep.bias_f && !ep.bias_f->empty()) {
      std::vector<float> b(ep.bias_f->begin() + ep.n_base + n0, ep.bias_f->begin() + ep.n_base + n0 + nj);
      g.params.constants.push_back(p.AddData(b.data(), b.size() * 4, TSR_DTYPE_F32));
      g.params.present = true;
    }
  }
  if (q) {
    const QuantRange r =
        QuantizedActivationRange(ep.act.kind, ep.act.clip_min, ep.act.clip_max, ep.out_q.scale, ep.out_q.zero_point);
    g.requant_desc = p.AddDescriptor(ConstantKind::kRequantDesc, RequantDesc{ep.out_q.zero_point, r.min, r.max});
  } else {
    g.act = ep.act.kind;
    if (g.act == Activation::kClip)
      g.clip_desc =
          p.AddDescriptor(ConstantKind::kClipDesc, ClipDesc{FloatBits(ep.act.clip_min), FloatBits(ep.act.clip_max)});
  }
}

absl::Status EmitGemmCore(const GemmCore& g, const SystolicNpuConfig& npu, const TilerOptions& opt, const Program& p,
                          EntryPoint& e) {
  const SramMap sm = MakeSramMap(npu);
  auto tiles = ChooseTiles(g, npu, opt, sm);
  if (!tiles.ok()) return tiles.status();
  GemmEmitter em{g, npu, p, e, sm, *tiles, opt.dataflow};
  return opt.dataflow == Dataflow::kInputStationary ? em.InputStationary() : em.ColumnTilesOuter();
}

absl::Status CheckLayerOperands(const LayerOperands& l) {
  if (l.dtype != TSR_DTYPE_F32 && l.dtype != TSR_DTYPE_F16 && l.dtype != TSR_DTYPE_I8)
    return InvalidLayer("dtype must be f32, f16 or i8");
  const bool q = l.dtype == TSR_DTYPE_I8;
  const bool dram_w = l.weights_placement == OperandPlacement::kDram;
  const bool dram_b = l.bias_placement == OperandPlacement::kDram;
  if (q && (dram_w || dram_b))
    return InvalidLayer(
        "INT8 layers need compile-time weights and bias (the input zero point is folded into "
        "the bias with the weights' column sums)");
  if (dram_w) {
    if (l.weights_bytes != 0) return InvalidLayer("weights placed in DRAM carry no compile-time bytes");
  } else {
    if (q ? l.weights_dtype != TSR_DTYPE_I8 : (l.weights_dtype != TSR_DTYPE_F32 && l.weights_dtype != TSR_DTYPE_F16))
      return InvalidLayer("weights dtype does not match the layer dtype");
    if (l.weights_bytes != static_cast<size_t>(l.weight_elems) * NpuDtypeSize(l.weights_dtype))
      return InvalidLayer(absl::StrCat("weights have ", l.weights_bytes, " bytes, want ",
                                       l.weight_elems * NpuDtypeSize(l.weights_dtype)));
  }
  if (q) {
    if (!l.bias_f.empty()) return InvalidLayer("quantized layers take an int32 bias");
    if (!l.bias_q.empty() && static_cast<int64_t>(l.bias_q.size()) != l.channels)
      return InvalidLayer("bias size does not match the output channels");
    if (l.weight_scales.size() != 1 && static_cast<int64_t>(l.weight_scales.size()) != l.channels)
      return InvalidLayer("weight scales must be per-tensor or per-channel");
    for (float s : l.weight_scales)
      if (!(s > 0) || !std::isfinite(s)) return InvalidLayer("weight scales must be positive");
    if (!(l.in_q.scale > 0) || !(l.out_q.scale > 0) || !std::isfinite(l.in_q.scale) || !std::isfinite(l.out_q.scale))
      return InvalidLayer("activation scales must be positive");
    if (l.in_q.zero_point < -128 || l.in_q.zero_point > 127 || l.out_q.zero_point < -128 || l.out_q.zero_point > 127)
      return InvalidLayer("zero points must be int8");
  } else {
    if (!l.bias_q.empty()) return InvalidLayer("float layers take a float bias");
    if (dram_b && !l.bias_f.empty()) return InvalidLayer("a bias placed in DRAM carries no compile-time values");
    if (!l.bias_f.empty() && static_cast<int64_t>(l.bias_f.size()) != l.channels)
      return InvalidLayer("bias size does not match the output channels");
  }
  if (l.act.kind == Activation::kClip && !(l.act.clip_min <= l.act.clip_max))
    return InvalidLayer("clip_min > clip_max");
  return absl::OkStatus();
}

float LoadWeight(const std::vector<uint8_t>& w, int32_t dtype, size_t i) {
  if (dtype == TSR_DTYPE_F16) {
    uint16_t h;
    std::memcpy(&h, w.data() + 2 * i, 2);
    return HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, w.data() + 4 * i, 4);
  return f;
}

}  // namespace tessera::systolic::internal
