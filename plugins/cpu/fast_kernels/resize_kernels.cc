// RESIZE, nearest mode only: every output element is one input element, and
// the source index of each axis depends on that axis alone. The index maps
// are built once, at prepare time, from the reference's own tap code
// (TapsAt in kernels/resize_taps.cc: the tap nearest mode gives weight 1),
// so the fast path selects exactly what the oracle selects; the run is a
// byte gather. Linear mode goes to resize_linear_kernels.cc; cubic,
// tf_crop_and_resize (extrapolation) and EXCLUDE_OUTSIDE (whose weights
// may both drop to 0, an output of 0 that no gather gives) stay on the
// reference kernel.
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/resize_taps.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// Axis sizes the fast path takes, input and output alike. Each output
// axis gets a map of 4 bytes per position, built at load before the host
// has allocated (or budgeted) any output (fuzz finding 6): 2^24 bounds it
// at 64 MB per axis. Building it costs a few arithmetic operations per
// position and nothing else: fuzz finding 7, a 622-byte bytecode resizing
// [1,1,2,4] to [1,16777216,1,2], took 2 s and 730 MB to load (52 s under
// ASan) when the maps came from running the reference kernel over an
// iota, with its 32-byte-per-position tap tables and a heap vector per
// position.
constexpr int64_t kMaxAxis = int64_t{1} << 24;

// Source index of every output position along one axis.
std::vector<int32_t> AxisMap(const ResizeParams& params, const ResizeAxis& a) {
  std::vector<int32_t> map(static_cast<size_t>(a.out));
  for (int64_t o = 0; o < a.out; ++o) {
    const PositionTaps t = TapsAt(params, a, o);
    map[o] = static_cast<int32_t>(t.weight[0] != 0 ? t.index[0] : t.index[1]);
  }
  return map;
}

// One output row: dst[j] = src[map[j]], as element bits (f32 or f16).
template <typename Bits>
void GatherRow(const Bits* src, const int32_t* map, int64_t n, Bits* dst) {
  for (int64_t j = 0; j < n; ++j) dst[j] = src[map[j]];
}

// The identity map of an axis the reference leaves alone.
std::vector<int32_t> IdentityMap(int64_t n) {
  std::vector<int32_t> map(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) map[i] = static_cast<int32_t>(i);
  return map;
}

}  // namespace

std::unique_ptr<FastOp> PrepareResize(const Attributes& attrs, Ins ins, Outs outs) {
  if (ins.size() != 1 || outs.size() != 1) Refuse("RESIZE: arity");
  const TensorRef &x = ins[0], &y = outs[0];
  if (!IsFloatDType(x.dtype) || y.dtype != x.dtype) Refuse("RESIZE: dtype");
  if (!x.quant.scales.empty() || !y.quant.scales.empty()) Refuse("RESIZE: quantized");
  const int64_t mode = attrs.GetInt(TSR_ATTR_RESIZE_MODE, TSR_RESIZE_NEAREST);
  if (mode == TSR_RESIZE_LINEAR) return PrepareLinearResize(attrs, ins, outs);
  if (mode != TSR_RESIZE_NEAREST) Refuse("RESIZE: not nearest or linear");
  if (attrs.GetInt(TSR_ATTR_COORD_TRANSFORM, TSR_COORD_HALF_PIXEL) == TSR_COORD_TF_CROP_AND_RESIZE)
    Refuse("RESIZE: tf_crop_and_resize extrapolates");
  const size_t rank = x.shape.size();
  if (rank == 0 || y.shape.size() != rank) Refuse("RESIZE: rank");
  for (size_t d = 0; d < rank; ++d)
    if (x.shape[d] < 1 || y.shape[d] < 1 || x.shape[d] > kMaxAxis || y.shape[d] > kMaxAxis) Refuse("RESIZE: axis size");
  auto params = ParseResizeParams(TSR_OP_RESIZE, attrs, x.shape, y.shape);
  if (!params.ok()) Refuse(std::string(params.status().message()));  // the reference reports it
  if (params->exclude_outside) Refuse("RESIZE: nearest with EXCLUDE_OUTSIDE");
  std::vector<std::vector<int32_t>> maps(rank);
  for (size_t d = 0; d < rank; ++d) maps[d] = IdentityMap(x.shape[d]);
  for (const ResizeAxis& a : ResampledAxes(*params, x.shape, y.shape)) maps[a.axis] = AxisMap(*params, a);
  const std::vector<int64_t> in_strides = tessera::cpu::RowMajorStrides(x.shape);
  const std::vector<int64_t> out_shape = y.shape;
  const size_t esize = DTypeSize(x.dtype);
  const int64_t inner = y.shape[rank - 1];
  const int64_t rows = y.element_count() / inner;
  // The maps move into the kernel: a copy would double the load's peak.
  return std::make_unique<LoopOp>("RESIZE", 1, 1, [=, maps = std::move(maps)](auto in, auto out_ptrs) {
    const auto* src = static_cast<const char*>(in[0]);
    auto* dst = static_cast<char*>(out_ptrs[0]);
    // The outer position's counters (rank <= 8, the snapshot's bound):
    // on the stack, so a run allocates nothing.
    absl::InlinedVector<int64_t, 8> idx(rank - 1, 0);
    const int32_t* last = maps[rank - 1].data();
    for (int64_t r = 0; r < rows; ++r) {
      int64_t base = 0;
      for (size_t d = 0; d + 1 < rank; ++d) base += int64_t{maps[d][idx[d]]} * in_strides[d];
      if (esize == 4) {
        GatherRow(reinterpret_cast<const uint32_t*>(src) + base, last, inner,
                  reinterpret_cast<uint32_t*>(dst) + r * inner);
      } else {
        GatherRow(reinterpret_cast<const uint16_t*>(src) + base, last, inner,
                  reinterpret_cast<uint16_t*>(dst) + r * inner);
      }
      for (size_t d = rank - 1; d-- > 0;) {
        if (++idx[d] < out_shape[d]) break;
        idx[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
