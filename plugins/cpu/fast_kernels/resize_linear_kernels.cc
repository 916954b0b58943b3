// RESIZE, linear mode (n-linear over every axis that changes), f32, every
// coordinate transform but tf_crop_and_resize (extrapolation). Separable,
// like the reference: one pass per resampled axis (shrinking axes first),
// f32 intermediates. Each pass reads two taps per output position from a
// table built once, at prepare time, by the reference's own tap code
// (TapsAt in kernels/resize_taps.cc); the run only blends. Cubic,
// EXCLUDE_OUTSIDE and tf_crop_and_resize stay on the reference kernel.
//
// Against the reference (f64, one rounding): each pass rounds the two f32
// weights, two products and a sum, so it is within 3 ulps of the
// interpolated magnitude Σ w·|x| (the weights are ≥ 0 and sum to 1, so
// errors do not grow through later passes): k passes, ≤ (3k + 1)·2⁻²⁴·Σ w·|x|
// with the reference's final rounding (resize_linear_kernels_test.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "support/math/checked_math.h"
#include "support/reference_kernels/resize_taps.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// Axis sizes the fast path takes, input and output alike. The tap tables
// are sized by the output axis and built at load, before the host has
// allocated (or budgeted) any output (fuzz finding 6: a 25 KB bytecode
// asked for a 17 GB map): a table holds 16 bytes per output position
// (built from TapsAt one position at a time, never from the reference's
// whole-axis tables), so 2^20 bounds it at 16 MB per axis. Images are far
// smaller; longer axes run on the reference.
constexpr int64_t kMaxLinearAxis = int64_t{1} << 20;

// One resampled axis as [outer, in, inner] → [outer, out, inner].
struct Pass {
  int64_t outer = 1, in = 1, out = 1, inner = 1;
  // Per output position: taps i0, i1 with weights w0, w1. A tap the
  // reference gives weight 0 is not read there (an inf beside it must not
  // turn into NaN), so such a position is stored as i0 = the other tap,
  // w0 = 1, w1 = 0, and the blend skips tap 1 when w1 is 0.
  std::vector<int32_t> i0, i1;
  std::vector<float> w0, w1;
};

TSR_VECTOR_CLONES void BlendRow(const float* a, const float* b, float w0, float w1, float* y, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] = w0 * a[j] + w1 * b[j];
}

// The innermost axis: each output reads two elements of the same row.
// Branch-free (a select, not a branch), so that it vectorizes: the loads
// stay scalar inserts, the arithmetic runs 8 wide on AVX2 (about 2x on the
// bench's x2 resize). Where w1 is 0, tap 1 (maybe 0·inf = NaN) becomes 0.
TSR_VECTOR_CLONES void GatherRow(const float* __restrict x, const int32_t* __restrict i0, const int32_t* __restrict i1,
                                 const float* __restrict w0, const float* __restrict w1, float* __restrict y,
                                 int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const float v = w0[j] * x[i0[j]];
    const float u = w1[j] * x[i1[j]];
    y[j] = v + (w1[j] != 0 ? u : 0.0f);
  }
}

void RunPass(const Pass& p, const float* src, float* dst) {
  for (int64_t a = 0; a < p.outer; ++a) {
    const float* s = src + a * p.in * p.inner;
    float* d = dst + a * p.out * p.inner;
    if (p.inner == 1) {
      GatherRow(s, p.i0.data(), p.i1.data(), p.w0.data(), p.w1.data(), d, p.out);
      continue;
    }
    for (int64_t o = 0; o < p.out; ++o) {
      const float* r0 = s + p.i0[o] * p.inner;
      float* row = d + o * p.inner;
      if (p.w1[o] == 0)
        std::memcpy(row, r0, static_cast<size_t>(p.inner) * sizeof(float));
      else
        BlendRow(r0, s + p.i1[o] * p.inner, p.w0[o], p.w1[o], row, p.inner);
    }
  }
}

class LinearResizeState : public FastOpState {
 public:
  std::vector<float> temp[2];  // ping-pong intermediates, sized at NewState
};

class LinearResizeOp : public FastOp {
 public:
  // `slices` independent slices of `in_slice` -> `out_slice` elements
  // each (the axes before the first resampled one); `temp_elements`: the
  // largest intermediate of one slice.
  LinearResizeOp(std::vector<Pass> passes, int64_t slices, int64_t in_slice, int64_t out_slice, int64_t temp_elements)
      : passes_(std::move(passes)),
        slices_(slices),
        in_slice_(in_slice),
        out_slice_(out_slice),
        temp_elements_(temp_elements) {}
  const char* name() const override { return "RESIZE(linear)"; }

  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override {
    auto st = std::make_unique<LinearResizeState>();
    try {
      if (passes_.size() > 1) st->temp[0].resize(static_cast<size_t>(temp_elements_));
      if (passes_.size() > 2) st->temp[1].resize(static_cast<size_t>(temp_elements_));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError("RESIZE(linear): out of memory");
    }
    return std::unique_ptr<FastOpState>(std::move(st));
  }

  absl::Status Run(FastOpState& state, std::span<void* const> inputs, std::span<void* const> outputs) const override {
    if (inputs.empty() || outputs.empty() || inputs[0] == nullptr || outputs[0] == nullptr)
      return absl::InvalidArgumentError("RESIZE(linear): tensor not bound");
    auto& st = static_cast<LinearResizeState&>(state);
    const auto* x = static_cast<const float*>(inputs[0]);
    auto* y = static_cast<float*>(outputs[0]);
    if (passes_.empty()) {  // every axis is the identity
      std::memmove(y, x, static_cast<size_t>(slices_ * out_slice_) * sizeof(float));
      return absl::OkStatus();
    }
    // Slice by slice (one channel plane of NCHW): the intermediates stay
    // in cache between the passes.
    for (int64_t i = 0; i < slices_; ++i) {
      const float* src = x + i * in_slice_;
      for (size_t k = 0; k < passes_.size(); ++k) {
        float* dst = k + 1 == passes_.size() ? y + i * out_slice_ : st.temp[k % 2].data();
        RunPass(passes_[k], src, dst);
        src = dst;
      }
    }
    return absl::OkStatus();
  }

 private:
  std::vector<Pass> passes_;
  int64_t slices_, in_slice_, out_slice_, temp_elements_;
};

// Product of dims [begin, end) of `shape`; refused beyond the tensor size
// limit (the shapes are the model's).
int64_t Elements(const Shape& shape, size_t begin, size_t end) {
  const std::span<const int64_t> dims(shape.data() + begin, end - begin);
  if (!checked::TensorBytes(dims, sizeof(float))) Refuse("RESIZE: an intermediate exceeds the tensor size limit");
  return *checked::ElementCount(dims);
}

}  // namespace

std::unique_ptr<FastOp> PrepareLinearResize(const Attributes& attrs, Ins ins, Outs outs) {
  if (ins.size() != 1 || outs.size() != 1) Refuse("RESIZE: arity");
  RequireF32(TSR_OP_RESIZE, ins);
  RequireF32(TSR_OP_RESIZE, outs);
  const TensorRef &x = ins[0], &y = outs[0];
  auto params = ParseResizeParams(TSR_OP_RESIZE, attrs, x.shape, y.shape);
  if (!params.ok()) Refuse(std::string(params.status().message()));  // the reference reports it
  if (params->mode != TSR_RESIZE_LINEAR) Refuse("RESIZE: not linear");
  if (params->coord == TSR_COORD_TF_CROP_AND_RESIZE) Refuse("RESIZE: tf_crop_and_resize extrapolates");
  // Renormalized taps may both be 0 (the output is 0 there); rare enough
  // to leave to the reference rather than special-case the blend.
  if (params->exclude_outside) Refuse("RESIZE: linear with EXCLUDE_OUTSIDE");
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (x.shape[d] > kMaxLinearAxis || y.shape[d] > kMaxLinearAxis) Refuse("RESIZE: axis size");
  Elements(x.shape, 0, x.shape.size());
  Elements(y.shape, 0, y.shape.size());

  // The reference's order (shrinking axes first), except that the growing
  // axes go innermost first: the innermost axis is the gather pass, the
  // dearest per element, and it then runs before the other axes have grown
  // (x2 on NCHW: half the gathers). The bound above does not depend on the
  // order, and no intermediate exceeds the input or the output either way.
  std::vector<ResizeAxis> axes = ResampledAxes(*params, x.shape, y.shape);
  const auto growing = std::find_if(axes.begin(), axes.end(), [](const ResizeAxis& a) { return a.out > a.in; });
  std::reverse(growing, axes.end());
  // The axes before the first resampled one split the tensor into
  // independent slices; the passes run within one slice at a time.
  size_t first = x.shape.size();
  for (const ResizeAxis& a : axes) first = std::min(first, a.axis);
  const int64_t slices = Elements(x.shape, 0, first);
  std::vector<Pass> passes;
  int64_t temp_elements = 0;
  Shape cur = x.shape;
  for (const ResizeAxis& a : axes) {
    Pass p;
    p.outer = Elements(cur, first, a.axis);
    p.inner = Elements(cur, a.axis + 1, cur.size());
    p.in = a.in;
    p.out = a.out;
    const size_t n = static_cast<size_t>(a.out);
    p.i0.resize(n);
    p.i1.resize(n);
    p.w0.resize(n);
    p.w1.resize(n);
    for (size_t o = 0; o < n; ++o) {
      const PositionTaps taps = TapsAt(*params, a, static_cast<int64_t>(o));  // width 2 in linear mode
      int64_t i0 = taps.index[0], i1 = taps.index[1];
      double w0 = taps.weight[0], w1 = taps.weight[1];
      if (w0 == 0) {  // only tap 1 is read
        i0 = i1;
        w0 = 1;
        w1 = 0;
      }
      p.i0[o] = static_cast<int32_t>(i0);
      p.i1[o] = static_cast<int32_t>(i1);
      p.w0[o] = static_cast<float>(w0);
      p.w1[o] = static_cast<float>(w1);
    }
    // Intermediates are the outputs of every pass but the last; with
    // shrinking axes first none exceeds the input or the output.
    if (!passes.empty()) temp_elements = std::max(temp_elements, Elements(cur, first, cur.size()));
    cur[a.axis] = a.out;
    passes.push_back(std::move(p));
  }
  return std::make_unique<LinearResizeOp>(std::move(passes), slices, Elements(x.shape, first, x.shape.size()),
                                          Elements(y.shape, first, y.shape.size()), temp_elements);
}

}  // namespace tessera::cpu::fast::detail
