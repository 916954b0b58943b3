// FULLY_CONNECTED / MATMUL lowering (see tiler.h): checks, the weight and
// bias sources, batching; the GEMM itself is tiler_gemm_core.cc.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/systolic_npu/machine/tiler.h"
#include "plugins/systolic_npu/machine/tiler_gemm_core.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic {
namespace {

using internal::InvalidLayer;

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Linear index into `src` (right-aligned against `out`, size-1 dims
// broadcast) of the output batch element with linear index `o`.
int64_t BroadcastSourceIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& src, int64_t o) {
  int64_t index = 0, stride = 1;
  for (size_t i = 0; i < src.size(); ++i) {
    const size_t d_out = out.size() - 1 - i, d_src = src.size() - 1 - i;
    int64_t below = 1;
    for (size_t k = d_out + 1; k < out.size(); ++k) below *= out[k];
    const int64_t coord = (o / below) % out[d_out];
    if (src[d_src] != 1) index += coord * stride;
    stride *= src[d_src];
  }
  return index;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> BroadcastBatchDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i + a.size() >= n ? a[i + a.size() - n] : 1;
    const int64_t db = i + b.size() >= n ? b[i + b.size() - n] : 1;
    if (da < 1 || db < 1 || (da != db && da != 1 && db != 1))
      return InvalidLayer(absl::StrCat("batch dims [", absl::StrJoin(a, ", "), "] and [", absl::StrJoin(b, ", "),
                                       "] do not broadcast"));
    out[i] = std::max(da, db);
  }
  return out;
}

absl::Status EmitGemm(const GemmLayer& L, const LayerRefs& refs, const SystolicNpuConfig& npu, const TilerOptions& opt,
                      Program& p, EntryPoint& e) {
  const int64_t lim = int64_t{1} << 30;
  if (L.M < 1 || L.K < 1 || L.N < 1 || L.M > lim || L.K > lim || L.N > lim)
    return InvalidLayer("GEMM dimensions must be in [1, 2^30]");
  // Keeps every offset computation below far from int64 overflow (the
  // verifier then bounds each access by its region).
  if (L.M * L.K > (int64_t{1} << 40) || L.K * L.N > (int64_t{1} << 40) || L.M * L.N > (int64_t{1} << 40))
    return InvalidLayer("GEMM operands beyond 2^40 elements");
  if (auto s = internal::CheckLayerOperands({L.dtype, L.weights_dtype, L.weights.size(), L.K * L.N, L.N,
                                             L.weights_placement, L.bias_placement, L.bias_f, L.bias_q, L.weight_scales,
                                             L.input_q, L.output_q, L.activation});
      !s.ok())
    return s;
  const bool dram_w = L.weights_placement == OperandPlacement::kDram;
  const bool batched = !L.a_batch.empty() || !L.b_batch.empty();
  if (batched && (L.weight_layout != WeightLayout::kKN || !dram_w))
    return InvalidLayer("a batched GEMM needs a MATMUL right operand placed in DRAM");
  for (const auto* dims : {&L.a_batch, &L.b_batch})
    for (int64_t d : *dims)
      if (d < 1 || d > lim) return InvalidLayer("batch dims must be in [1, 2^30]");
  auto out_batch = BroadcastBatchDims(L.a_batch, L.b_batch);
  if (!out_batch.ok()) return out_batch.status();
  const int64_t batches = Product(*out_batch);
  if (batches > (int64_t{1} << 20)) return InvalidLayer("more than 2^20 batched GEMMs");

  internal::GemmCore base;
  base.M = L.M;
  base.K = L.K;
  base.N = L.N;
  base.mdtype = L.dtype == TSR_DTYPE_I8 ? TSR_DTYPE_I8 : TSR_DTYPE_F16;
  base.io_dtype = L.dtype;
  base.a_region = refs.input.region;
  base.a_row_stride = static_cast<uint64_t>(L.K);
  base.out_region = refs.output.region;
  base.out_row_stride = static_cast<uint64_t>(L.N);
  base.out_col_stride = 1;
  const bool nk = L.weight_layout == WeightLayout::kNK;
  base.weights.placement = L.weights_placement;
  if (dram_w) {
    base.weights.dram = refs.weights;
    base.weights.dram_dtype = L.dtype;
    base.weights.k_stride = nk ? 1 : static_cast<uint64_t>(L.N);  // W[n][k] read as B[k][n]
    base.weights.n_stride = nk ? static_cast<uint64_t>(L.K) : 1;
  }
  base.params.placement = L.bias_placement;
  if (L.bias_placement == OperandPlacement::kDram) {
    base.params.present = true;
    base.params.dram = refs.bias;
    base.params.dram_dtype = L.dtype;
  }
  auto idx = [&](int64_t k, int64_t n) -> size_t { return static_cast<size_t>(nk ? n * L.K + k : k * L.N + n); };
  internal::WeightAccessor w;
  w.f = [&](int64_t k, int64_t n) { return internal::LoadWeight(L.weights, L.weights_dtype, idx(k, n)); };
  w.q = [&](int64_t k, int64_t n) { return static_cast<int8_t>(L.weights[idx(k, n)]); };
  internal::Epilogue ep{&L.bias_f, &L.bias_q, &L.weight_scales, 0, L.input_q, L.output_q, L.activation};
  internal::PrepareConstants(base, w, ep, npu, p);

  const uint64_t ie = NpuDtypeSize(L.dtype);
  for (int64_t ob = 0; ob < batches; ++ob) {
    internal::GemmCore g = base;
    const int64_t ai = BroadcastSourceIndex(*out_batch, L.a_batch, ob);
    const int64_t bi = BroadcastSourceIndex(*out_batch, L.b_batch, ob);
    g.a_offset = refs.input.offset + static_cast<uint64_t>(ai * L.M * L.K) * ie;
    g.out_offset = refs.output.offset + static_cast<uint64_t>(ob * L.M * L.N) * ie;
    if (dram_w) g.weights.dram.offset += static_cast<uint64_t>(bi * L.K * L.N) * ie;
    if (auto s = internal::CheckOffset(g.a_offset, "input"); !s.ok()) return s;
    if (auto s = internal::EmitGemmCore(g, npu, opt, p, e); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic
