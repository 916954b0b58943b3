// Reductions, softmax and layer norm. Lanes compute in f32; sums go into
// the vector unit's wide accumulator (modelled as f64), so long rows lose
// no more than the f32 rounding of each term.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/kernels/dsp_kernels.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

// [outer, axis, inner] view of `shape` around the dims [first, last).
struct RowView {
  int64_t outer = 1, length = 1, inner = 1;
};

RowView Rows(std::span<const int64_t> shape, size_t first, size_t last) {
  RowView v;
  for (size_t i = 0; i < shape.size(); ++i) (i < first ? v.outer : i < last ? v.length : v.inner) *= shape[i];
  return v;
}

}  // namespace

absl::Status RunReduction(int32_t op, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  const char* name = OpName(op);
  const DspTensor& x = in[0];
  const size_t rank = x.shape.size();
  std::vector<int64_t> axes = IntsAttr(attrs, TSR_ATTR_AXES);
  if (in.size() > 1 && in[1].data != nullptr && in[1].dtype != 0) axes = LoadInts(in[1]);  // opset-18 axes input
  std::vector<bool> reduced(rank, axes.empty());
  if (axes.empty() && IntAttr(attrs, TSR_ATTR_NOOP_WITH_EMPTY_AXES, 0) == 1) reduced.assign(rank, false);
  for (int64_t a : axes) {
    absl::StatusOr<int64_t> axis = NormalizeAxis(name, a, rank);
    if (!axis.ok()) return axis.status();
    if (reduced[*axis]) return absl::InvalidArgumentError(absl::StrCat(name, ": axis ", a, " is repeated"));
    reduced[*axis] = true;
  }
  const bool keep = IntAttr(attrs, TSR_ATTR_KEEP_DIMS, 1) != 0;
  std::vector<int64_t> out_shape, kept_shape;
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    kept_shape.push_back(reduced[i] ? 1 : x.shape[i]);
    if (reduced[i]) count *= x.shape[i];
    if (!reduced[i] || keep) out_shape.push_back(reduced[i] ? 1 : x.shape[i]);
  }
  if (absl::Status s = CheckShape(name, out.shape, out_shape); !s.ok()) return s;
  // Each input element adds into the output element it broadcasts from.
  const std::vector<float> v = LoadFloats(x);
  const size_t n_out = static_cast<size_t>(out.elements());
  std::vector<double> acc(n_out, op == TSR_OP_REDUCE_MAX ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<int64_t> strides = Strides(kept_shape);
  for (size_t i = 0; i < rank; ++i)
    if (reduced[i]) strides[i] = 0;
  std::vector<int64_t> coord(rank, 0);
  int64_t pos = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    double& a = acc[static_cast<size_t>(pos)];
    if (op == TSR_OP_REDUCE_MAX) {
      a = std::isnan(a) || std::isnan(v[k]) ? std::numeric_limits<double>::quiet_NaN() : std::max<double>(a, v[k]);
    } else {
      a += v[k];
    }
    for (size_t d = rank; d-- > 0;) {
      pos += strides[d];
      if (++coord[d] < x.shape[d]) break;
      pos -= strides[d] * coord[d];
      coord[d] = 0;
    }
  }
  std::vector<float> y(n_out);
  for (size_t i = 0; i < n_out; ++i)
    y[i] = static_cast<float>(op == TSR_OP_REDUCE_MEAN ? (count > 0 ? acc[i] / static_cast<double>(count)
                                                                    : std::numeric_limits<double>::quiet_NaN())
                                                       : acc[i]);
  StoreFloats(y, out);
  return absl::OkStatus();
}

absl::Status RunSoftmax(const Attrs& attrs, const DspTensor& x, const DspTensor& out) {
  absl::StatusOr<int64_t> axis = NormalizeAxis("SOFTMAX", IntAttr(attrs, TSR_ATTR_AXIS, -1), x.shape.size());
  if (!axis.ok()) return axis.status();
  if (absl::Status s = CheckShape("SOFTMAX", out.shape, x.shape); !s.ok()) return s;
  const RowView r = Rows(x.shape, static_cast<size_t>(*axis), static_cast<size_t>(*axis) + 1);
  std::vector<float> v = LoadFloats(x);
  for (int64_t o = 0; o < r.outer; ++o) {
    for (int64_t i = 0; i < r.inner; ++i) {
      const int64_t base = o * r.length * r.inner + i;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < r.length; ++k) max = std::max(max, v[base + k * r.inner]);
      double sum = 0;
      for (int64_t k = 0; k < r.length; ++k) {
        float& e = v[base + k * r.inner];
        e = std::exp(e - max);
        sum += e;
      }
      const float scale = static_cast<float>(1.0 / sum);
      for (int64_t k = 0; k < r.length; ++k) v[base + k * r.inner] *= scale;
    }
  }
  StoreFloats(v, out);
  return absl::OkStatus();
}

absl::Status RunLayerNorm(const Attrs& attrs, std::span<const DspTensor> in, std::span<const DspTensor> out) {
  if (in.size() < 2 || in[1].data == nullptr) return absl::InvalidArgumentError("LAYER_NORM: needs X and scale");
  const DspTensor& x = in[0];
  absl::StatusOr<int64_t> axis = NormalizeAxis("LAYER_NORM", IntAttr(attrs, TSR_ATTR_AXIS, -1), x.shape.size());
  if (!axis.ok()) return axis.status();
  if (absl::Status s = CheckShape("LAYER_NORM", out[0].shape, x.shape); !s.ok()) return s;
  const float eps = FloatAttr(attrs, TSR_ATTR_EPSILON, 1e-5f);
  const RowView r = Rows(x.shape, static_cast<size_t>(*axis), x.shape.size());
  // scale and bias broadcast one-directionally to the normalized shape.
  const std::vector<int64_t> norm_shape(x.shape.begin() + *axis, x.shape.end());
  std::vector<float> scale, bias;
  std::vector<int64_t> scale_index, bias_index;
  for (size_t i = 1; i < 3 && i < in.size(); ++i) {
    if (in[i].data == nullptr || in[i].dtype == 0) continue;
    const std::vector<std::vector<int64_t>> shapes = {norm_shape, in[i].shape};
    absl::StatusOr<std::vector<int64_t>> b = BroadcastShape(shapes);
    if (!b.ok() || *b != norm_shape)
      return absl::InvalidArgumentError(absl::StrCat("LAYER_NORM: ", i == 1 ? "scale" : "bias",
                                                     " does not broadcast to the normalized shape"));
    (i == 1 ? scale : bias) = LoadFloats(in[i]);
    (i == 1 ? scale_index : bias_index) = BroadcastIndex(in[i].shape, norm_shape);
  }
  const std::vector<float> v = LoadFloats(x);
  std::vector<float> y(v.size()), means(static_cast<size_t>(r.outer)), inv_stds(static_cast<size_t>(r.outer));
  for (int64_t o = 0; o < r.outer; ++o) {
    const float* row = v.data() + o * r.length;
    double sum = 0;
    for (int64_t k = 0; k < r.length; ++k) sum += row[k];
    const float mean = static_cast<float>(sum / static_cast<double>(r.length));
    double sq = 0;
    for (int64_t k = 0; k < r.length; ++k) sq += static_cast<double>(row[k] - mean) * (row[k] - mean);
    const float inv_std = 1.0f / std::sqrt(static_cast<float>(sq / static_cast<double>(r.length)) + eps);
    means[o] = mean;
    inv_stds[o] = inv_std;
    for (int64_t k = 0; k < r.length; ++k) {
      float t = (row[k] - mean) * inv_std * scale[scale_index[k]];
      if (!bias.empty()) t += bias[bias_index[k]];
      y[o * r.length + k] = t;
    }
  }
  StoreFloats(y, out[0]);
  // Optional Mean and InvStdDev outputs, one value per row.
  for (size_t i = 1; i < 3 && i < out.size(); ++i) {
    if (out[i].data == nullptr || out[i].dtype == 0) continue;
    if (out[i].elements() != r.outer)
      return absl::InvalidArgumentError(absl::StrCat("LAYER_NORM: output ", i, " must hold one value per row"));
    StoreFloats(i == 1 ? means : inv_stds, out[i]);
  }
  return absl::OkStatus();
}

}  // namespace tessera::mock_dsp
