// LAYER_NORM (ONNX LayerNormalization) on f32 as a loop over rows of the
// normalized dims [axis, rank): mean and variance summed in f64
// (row_math.h), y = (x - mean) * inv_std * scale + bias evaluated in f64
// and rounded once, which is the reference kernel's formula, so the two
// differ only by the order of the sums. Optional outputs Mean and
// InvStdDev are written when present.
//
// oneDNN's layer-normalization primitive computes in f32 and wants scale
// and shift of exactly the normalized size; this loop is memory-bound
// either way and takes the broadcasting scale/bias shapes ONNX allows.
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "plugins/cpu/fast_kernels/row_math.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// scale (and bias, when given) per element of the row, in f64; scale_step
// / bias_step are 0 when that parameter is one value for the whole row.
TSR_VECTOR_CLONES void NormalizeRow(const float* x, int64_t n, double mean, double inv_std, const float* scale,
                                    int64_t scale_step, const float* bias, int64_t bias_step, float* y) {
  if (bias == nullptr) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>((x[i] - mean) * inv_std * static_cast<double>(scale[i * scale_step]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>((x[i] - mean) * inv_std * static_cast<double>(scale[i * scale_step]) +
                                static_cast<double>(bias[i * bias_step]));
  }
}

std::vector<int64_t> WithoutLeadingOnes(std::vector<int64_t> s) {
  while (!s.empty() && s.front() == 1) s.erase(s.begin());
  return s;
}

// 0 when `p` is one value for the whole row, 1 when it has the normalized
// dims (numpy-aligned: leading 1s aside); a partial broadcast is refused.
int64_t ParamStep(const TensorRef& p, const std::vector<int64_t>& norm_dims, const char* role) {
  if (p.element_count() == 1) return 0;
  if (WithoutLeadingOnes(p.shape) == WithoutLeadingOnes(norm_dims)) return 1;
  Refuse(absl::StrCat("LAYER_NORM: ", role, " shape ", ShapeText(p.shape), " broadcasts partially"));
}

}  // namespace

std::unique_ptr<FastOp> PrepareLayerNorm(const Attributes& attrs, Ins ins, Outs outs) {
  const int32_t op = TSR_OP_LAYER_NORM;
  if (ins.size() < 2 || ins.size() > 3 || outs.empty() || outs.size() > 3) Refuse("LAYER_NORM: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) Refuse("LAYER_NORM: rank 0");
  int64_t axis = attrs.GetInt(TSR_ATTR_AXIS, -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) Refuse("LAYER_NORM: axis");
  RequireOutputShape(op, outs[0], x.shape);
  int64_t len = 1;
  for (int64_t d = axis; d < rank; ++d) len *= x.shape[d];
  const int64_t rows = x.element_count() / len;
  const bool has_bias = Present(ins, 2);
  const std::vector<int64_t> norm_dims(x.shape.begin() + axis, x.shape.end());
  const int64_t scale_step = ParamStep(ins[1], norm_dims, "scale");
  const int64_t bias_step = has_bias ? ParamStep(ins[2], norm_dims, "bias") : 0;
  std::vector<int64_t> stat_shape(x.shape.begin(), x.shape.begin() + axis);
  stat_shape.resize(static_cast<size_t>(rank), 1);
  bool stats[3] = {false, false, false};
  for (size_t i = 1; i < outs.size(); ++i) {
    if (outs[i].dtype == TSR_DTYPE_UNKNOWN) continue;
    RequireOutputShape(op, outs[i], stat_shape);
    stats[i] = true;
  }
  const double eps = attrs.GetFloat(TSR_ATTR_EPSILON, 1e-5f);
  return std::make_unique<LoopOp>("LAYER_NORM", 2, 1, [=](auto in, auto out) {
    const auto* px = static_cast<const float*>(in[0]);
    const auto* scale = static_cast<const float*>(in[1]);
    const float* bias = has_bias ? static_cast<const float*>(in[2]) : nullptr;
    if (has_bias && bias == nullptr) return absl::InvalidArgumentError("LAYER_NORM: bias not bound");
    auto* y = static_cast<float*>(out[0]);
    float* mean_out = stats[1] && out.size() > 1 ? static_cast<float*>(out[1]) : nullptr;
    float* inv_out = stats[2] && out.size() > 2 ? static_cast<float*>(out[2]) : nullptr;
    for (int64_t r = 0; r < rows; ++r, px += len, y += len) {
      const double mean = SumRow(px, len) / static_cast<double>(len);
      const double var = SquaredDeviationRow(px, len, mean) / static_cast<double>(len);
      const double inv_std = 1.0 / std::sqrt(var + eps);
      NormalizeRow(px, len, mean, inv_std, scale, scale_step, bias, bias_step, y);
      if (mean_out) mean_out[r] = static_cast<float>(mean);
      if (inv_out) inv_out[r] = static_cast<float>(inv_std);
    }
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
