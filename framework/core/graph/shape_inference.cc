#include "framework/core/graph/shape_inference.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using Inputs = std::vector<std::optional<TensorType>>;
using Attrs = std::map<int32_t, Attribute>;

absl::Status Error(int32_t op, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(OpTypeName(op), ": ", what));
}

std::vector<int64_t> Ints(const Attrs& a, int32_t key) {
  auto it = a.find(key);
  return it == a.end() ? std::vector<int64_t>{} : it->second.ints;
}

int64_t Int(const Attrs& a, int32_t key, int64_t def) {
  auto it = a.find(key);
  return it == a.end() || it->second.ints.empty() ? def : it->second.ints[0];
}

absl::StatusOr<int64_t> NormalizeAxis(int32_t op, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return Error(op, absl::StrCat("axis ", axis, " out of range for rank ", rank));
  return axis < 0 ? axis + r : axis;
}

absl::Status Need(int32_t op, const Inputs& in, size_t min_count, size_t max_count) {
  if (in.size() < min_count || in.size() > max_count)
    return Error(op, absl::StrCat("expects ", min_count, "..", max_count, " inputs, got ", in.size()));
  for (size_t i = 0; i < min_count; ++i)
    if (!in[i]) return Error(op, absl::StrCat("required input ", i, " is missing"));
  return absl::OkStatus();
}

// Output spatial size for conv/pool windows (ONNX rules); nullopt when
// the attributes (from the model file) make the arithmetic overflow. All
// arguments are positive or non-negative (checked by the caller).
std::optional<int64_t> WindowOut(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin,
                                 int64_t pad_end, bool ceil_mode) {
  const std::optional<int64_t> spread = checked::Mul<int64_t>(dilation, k - 1);
  const std::optional<int64_t> pad_total = checked::Add(pad_begin, pad_end);
  const std::optional<int64_t> padded = pad_total ? checked::Add(in, *pad_total) : std::nullopt;
  if (!spread || !padded) return std::nullopt;
  const int64_t span = *padded - *spread - 1;  // both non-negative: no overflow
  if (span < 0) return 0;
  // ceil(span / stride) without span + stride - 1 (which can overflow).
  int64_t out = (ceil_mode ? span / stride + (span % stride != 0 ? 1 : 0) : span / stride) + 1;
  // A window that would start entirely in the trailing padding is dropped:
  // (out - 1) * stride >= in + pad_begin, compared as out - 1 >=
  // ceil((in + pad_begin) / stride) so that nothing overflows.
  const int64_t start_limit = in + pad_begin;  // <= *padded
  if (ceil_mode && out - 1 >= start_limit / stride + (start_limit % stride != 0 ? 1 : 0)) --out;
  return out;
}

absl::StatusOr<std::vector<TensorType>> Window2D(int32_t op, const Inputs& in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.shape.size() != 4) return Error(op, "input must be NCHW (rank 4)");
  std::vector<int64_t> kernel = Ints(attrs, TSR_ATTR_KERNEL_SHAPE);
  int64_t out_channels = x.shape[1];
  if (op == TSR_OP_CONV_2D) {
    if (!in[1] || in[1]->shape.size() != 4) return Error(op, "weights must be [M, C/groups, kH, kW]");
    const int64_t groups = Int(attrs, TSR_ATTR_GROUPS, 1);
    if (groups <= 0 || x.shape[1] % groups != 0 || in[1]->shape[1] * groups != x.shape[1] ||
        in[1]->shape[0] % groups != 0)
      return Error(op, absl::StrCat("channels ", x.shape[1], " and weights [", absl::StrJoin(in[1]->shape, ","),
                                    "] do not fit groups=", groups));
    kernel = {in[1]->shape[2], in[1]->shape[3]};
    out_channels = in[1]->shape[0];
    if (in.size() > 2 && in[2] && (in[2]->shape.size() != 1 || in[2]->shape[0] != out_channels))
      return Error(op, "bias must be [M]");
  }
  if (kernel.size() != 2) return Error(op, "kernel_shape must have 2 entries");
  std::vector<int64_t> strides = Ints(attrs, TSR_ATTR_STRIDES), dil = Ints(attrs, TSR_ATTR_DILATIONS),
                       pads = Ints(attrs, TSR_ATTR_PADS);
  if (strides.empty()) strides = {1, 1};
  if (dil.empty()) dil = {1, 1};
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    return Error(op, "strides/dilations need 2 entries, pads 4");
  for (int i = 0; i < 2; ++i)
    if (strides[i] <= 0 || dil[i] <= 0 || kernel[i] <= 0)
      return Error(op, "strides, dilations and kernel must be positive");
  for (int64_t p : pads)
    if (p < 0) return Error(op, "pads must be non-negative");
  const bool ceil_mode = Int(attrs, TSR_ATTR_CEIL_MODE, 0) != 0;
  const std::optional<int64_t> oh = WindowOut(x.shape[2], kernel[0], strides[0], dil[0], pads[0], pads[2], ceil_mode);
  const std::optional<int64_t> ow = WindowOut(x.shape[3], kernel[1], strides[1], dil[1], pads[1], pads[3], ceil_mode);
  if (!oh || !ow) return Error(op, "window arithmetic overflows (kernel, dilations or pads too large)");
  if (*oh <= 0 || *ow <= 0) return Error(op, "window larger than the padded input");
  return std::vector<TensorType>{{x.dtype, {x.shape[0], out_channels, *oh, *ow}}};
}

// RESIZE: the output sizes are the SHAPE attribute (one per axis).
absl::StatusOr<std::vector<TensorType>> Resize(int32_t op, const TensorType& x, const Attrs& attrs) {
  const std::vector<int64_t> out = Ints(attrs, TSR_ATTR_SHAPE);
  if (out.size() != x.shape.size())
    return Error(op, absl::StrCat("SHAPE [", absl::StrJoin(out, ","), "] must give one size per axis of [",
                                  absl::StrJoin(x.shape, ","), "]"));
  for (int64_t d : out)
    if (d <= 0) return Error(op, "output sizes must be positive");
  if (!checked::ElementCount(out)) return Error(op, "output element count overflows");
  return std::vector<TensorType>{{x.dtype, out}};
}

// CONV_TRANSPOSE_2D: OH = sh(H-1) + dh(kH-1) + 1 + oph - pt - pb, likewise W.
absl::StatusOr<std::vector<TensorType>> ConvTranspose(int32_t op, const Inputs& in, const Attrs& attrs) {
  const TensorType &x = *in[0], &w = *in[1];
  if (x.shape.size() != 4 || w.shape.size() != 4)
    return Error(op, "input must be NCHW and weights [C, M/groups, kH, kW]");
  const int64_t groups = Int(attrs, TSR_ATTR_GROUPS, 1);
  if (groups <= 0 || x.shape[1] % groups != 0 || w.shape[0] != x.shape[1])
    return Error(op, absl::StrCat("channels ", x.shape[1], " and weights [", absl::StrJoin(w.shape, ","),
                                  "] do not fit groups=", groups));
  const std::optional<int64_t> m = checked::Mul<int64_t>(w.shape[1], groups);
  if (!m) return Error(op, "output channel count overflows");
  if (in.size() > 2 && in[2] && (in[2]->shape.size() != 1 || in[2]->shape[0] != *m))
    return Error(op, "bias must be [M]");
  std::vector<int64_t> strides = Ints(attrs, TSR_ATTR_STRIDES), dil = Ints(attrs, TSR_ATTR_DILATIONS),
                       pads = Ints(attrs, TSR_ATTR_PADS), opad = Ints(attrs, TSR_ATTR_OUTPUT_PADDING);
  if (strides.empty()) strides = {1, 1};
  if (dil.empty()) dil = {1, 1};
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (opad.empty()) opad = {0, 0};
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4 || opad.size() != 2)
    return Error(op, "strides/dilations/output_padding need 2 entries, pads 4");
  std::vector<int64_t> out = {x.shape[0], *m, 0, 0};
  constexpr int64_t kLimit = int64_t{1} << 31;  // keeps every product below in int64
  for (int i = 0; i < 2; ++i) {
    const int64_t in_size = x.shape[2 + i], k = w.shape[2 + i];
    if (strides[i] <= 0 || dil[i] <= 0 || k <= 0 || in_size <= 0)
      return Error(op, "strides, dilations, kernel and input must be positive");
    if (strides[i] > kLimit || dil[i] > kLimit || k > kLimit || in_size > kLimit || opad[i] < 0 || opad[i] > kLimit ||
        pads[i] < 0 || pads[i] > kLimit || pads[i + 2] < 0 || pads[i + 2] > kLimit)
      return Error(op, "pads, output_padding, strides, dilations and kernel must be in [0, 2^31]");
    out[2 + i] = strides[i] * (in_size - 1) + dil[i] * (k - 1) + 1 + opad[i] - pads[i] - pads[i + 2];
    if (out[2 + i] <= 0) return Error(op, "pads leave an empty output");
  }
  return std::vector<TensorType>{{x.dtype, out}};
}

absl::StatusOr<std::vector<TensorType>> MatMul(int32_t op, const Inputs& in) {
  std::vector<int64_t> a = in[0]->shape, b = in[1]->shape;
  if (a.empty() || b.empty()) return Error(op, "operands must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return Error(op, absl::StrCat("inner dimensions differ: ", a.back(), " vs ", b[b.size() - 2]));
  std::vector<int64_t> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  ASSIGN_OR_RETURN(std::vector<int64_t> batch, BroadcastShapes(batch_a, batch_b));
  if (!a_vec) batch.push_back(a[a.size() - 2]);
  if (!b_vec) batch.push_back(b.back());
  return std::vector<TensorType>{{in[0]->dtype, batch}};
}

absl::StatusOr<std::vector<TensorType>> Reduce(int32_t op, const TensorType& x, const Attrs& attrs) {
  std::vector<int64_t> axes = Ints(attrs, TSR_ATTR_AXES);
  const bool keep = Int(attrs, TSR_ATTR_KEEP_DIMS, 1) != 0;
  std::vector<bool> reduced(x.shape.size(), axes.empty());
  for (int64_t a : axes) {
    ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(op, a, x.shape.size()));
    reduced[n] = true;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!reduced[i])
      out.push_back(x.shape[i]);
    else if (keep)
      out.push_back(1);
  }
  return std::vector<TensorType>{{x.dtype, out}};
}

// ARG_MAX / ARG_MIN (i64, the axis kept as 1 or dropped), TOP_K (values
// and i64 indices, the axis cut to k), CUM_SUM (x's type): all along
// TSR_ATTR_AXIS (default 0).
absl::StatusOr<std::vector<TensorType>> AlongAxis(int32_t op, const TensorType& x, const Attrs& attrs) {
  if (x.shape.empty()) return Error(op, "input must have rank >= 1");
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(op, Int(attrs, TSR_ATTR_AXIS, 0), x.shape.size()));
  std::vector<int64_t> out = x.shape;
  if (op == TSR_OP_CUM_SUM) return std::vector<TensorType>{{x.dtype, out}};
  if (op == TSR_OP_TOP_K) {
    const int64_t k = Int(attrs, TSR_ATTR_K, -1);
    if (k < 0 || (out[axis] >= 0 && k > out[axis]))
      return Error(op, absl::StrCat("k = ", k, " must be in [0, ", out[axis], "] (the axis length)"));
    out[axis] = k;
    return std::vector<TensorType>{{x.dtype, out}, {TSR_DTYPE_I64, out}};
  }
  if (Int(attrs, TSR_ATTR_KEEP_DIMS, 1) != 0)
    out[axis] = 1;
  else
    out.erase(out.begin() + axis);
  return std::vector<TensorType>{{TSR_DTYPE_I64, out}};
}

absl::StatusOr<std::vector<TensorType>> Slice(int32_t op, const TensorType& x, const Attrs& attrs) {
  std::vector<int64_t> starts = Ints(attrs, TSR_ATTR_STARTS), ends = Ints(attrs, TSR_ATTR_ENDS),
                       axes = Ints(attrs, TSR_ATTR_AXES), steps = Ints(attrs, TSR_ATTR_STEPS);
  if (starts.size() != ends.size()) return Error(op, "starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) return Error(op, "axes/steps length mismatch");
  std::vector<int64_t> out = x.shape;
  for (size_t i = 0; i < starts.size(); ++i) {
    ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(op, axes[i], x.shape.size()));
    const int64_t dim = x.shape[axis], step = steps[i];
    if (step == 0) return Error(op, "step must not be 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      // ceil((e - s) / step) without e - s + step - 1, which overflows for
      // a huge step.
      out[axis] = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      // -INT64_MIN does not exist; any step that large takes one element.
      const int64_t magnitude =
          step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -step;
      out[axis] = s > e ? (s - e - 1) / magnitude + 1 : 0;
    }
  }
  return std::vector<TensorType>{{x.dtype, out}};
}

absl::StatusOr<std::vector<TensorType>> Layout(int32_t op, const Inputs& in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  switch (op) {
    case TSR_OP_RESHAPE: {
      std::vector<int64_t> shape = Ints(attrs, TSR_ATTR_SHAPE);
      const int64_t total = ShapeElementCount(x.shape).value_or(-1);
      int64_t known = 1, infer_at = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && i < x.shape.size()) shape[i] = x.shape[i];
        if (shape[i] == -1) {
          if (infer_at >= 0) return Error(op, "more than one -1 in shape");
          infer_at = static_cast<int64_t>(i);
        } else if (shape[i] < 0) {
          return Error(op, "negative dimension in shape");
        } else {
          const std::optional<int64_t> next = checked::Mul(known, shape[i]);
          if (!next) return Error(op, "shape overflows");
          known = *next;
        }
      }
      if (infer_at >= 0) {
        if (known == 0 || total % known != 0) return Error(op, "cannot infer -1 dimension");
        shape[infer_at] = total / known;
      }
      if (ShapeElementCount(shape).value_or(-2) != total)
        return Error(op, absl::StrCat("cannot reshape [", absl::StrJoin(x.shape, ","), "] to [",
                                      absl::StrJoin(shape, ","), "]"));
      return std::vector<TensorType>{{x.dtype, shape}};
    }
    case TSR_OP_TRANSPOSE: {
      std::vector<int64_t> perm = Ints(attrs, TSR_ATTR_PERM);
      if (perm.empty())
        for (size_t i = x.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
      if (perm.size() != x.shape.size()) return Error(op, "perm length differs from rank");
      std::vector<int64_t> out;
      std::vector<bool> seen(perm.size(), false);
      for (int64_t p : perm) {
        ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(op, p, x.shape.size()));
        if (seen[a]) return Error(op, "perm repeats an axis");
        seen[a] = true;
        out.push_back(x.shape[a]);
      }
      return std::vector<TensorType>{{x.dtype, out}};
    }
    case TSR_OP_SLICE:
      return Slice(op, x, attrs);
    case TSR_OP_CONCAT: {
      if (x.shape.empty()) return Error(op, "cannot concatenate scalars");
      ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(op, Int(attrs, TSR_ATTR_AXIS, 0), x.shape.size()));
      std::vector<int64_t> out = x.shape;
      for (size_t i = 1; i < in.size(); ++i) {
        if (!in[i] || in[i]->shape.size() != x.shape.size() || in[i]->dtype != x.dtype)
          return Error(op, absl::StrCat("input ", i, " differs in rank or dtype"));
        for (size_t d = 0; d < out.size(); ++d)
          if (static_cast<int64_t>(d) != axis && in[i]->shape[d] != x.shape[d])
            return Error(op, absl::StrCat("input ", i, " differs in dimension ", d));
        const std::optional<int64_t> sum = checked::Add(out[axis], in[i]->shape[axis]);
        if (!sum) return Error(op, "concatenated dimension overflows");
        out[axis] = *sum;
      }
      return std::vector<TensorType>{{x.dtype, out}};
    }
    case TSR_OP_GATHER: {
      if (!in[1] || (in[1]->dtype != TSR_DTYPE_I32 && in[1]->dtype != TSR_DTYPE_I64))
        return Error(op, "indices must be i32 or i64");
      ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(op, Int(attrs, TSR_ATTR_AXIS, 0), x.shape.size()));
      std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + axis);
      out.insert(out.end(), in[1]->shape.begin(), in[1]->shape.end());
      out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
      return std::vector<TensorType>{{x.dtype, out}};
    }
    case TSR_OP_SQUEEZE: {
      std::vector<int64_t> axes = Ints(attrs, TSR_ATTR_AXES);
      std::vector<bool> drop(x.shape.size(), false);
      if (axes.empty())
        for (size_t i = 0; i < x.shape.size(); ++i) drop[i] = x.shape[i] == 1;
      for (int64_t a : axes) {
        ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(op, a, x.shape.size()));
        if (x.shape[n] != 1) return Error(op, absl::StrCat("axis ", a, " has size ", x.shape[n], ", not 1"));
        drop[n] = true;
      }
      std::vector<int64_t> out;
      for (size_t i = 0; i < x.shape.size(); ++i)
        if (!drop[i]) out.push_back(x.shape[i]);
      return std::vector<TensorType>{{x.dtype, out}};
    }
    case TSR_OP_UNSQUEEZE: {
      std::vector<int64_t> axes = Ints(attrs, TSR_ATTR_AXES);
      const size_t rank = x.shape.size() + axes.size();
      std::vector<bool> inserted(rank, false);
      for (int64_t a : axes) {
        ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(op, a, rank));
        if (inserted[n]) return Error(op, "axes repeat");
        inserted[n] = true;
      }
      std::vector<int64_t> out;
      size_t next = 0;
      for (size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : x.shape[next++]);
      return std::vector<TensorType>{{x.dtype, out}};
    }
    case TSR_OP_PAD: {
      std::vector<int64_t> pads = Ints(attrs, TSR_ATTR_PADS);
      if (pads.size() != 2 * x.shape.size()) return Error(op, "pads must have 2*rank entries");
      std::vector<int64_t> out = x.shape;
      for (size_t i = 0; i < out.size(); ++i) {
        const std::optional<int64_t> padded = checked::Add(pads[i], pads[i + out.size()]);
        const std::optional<int64_t> dim = padded ? checked::Add(out[i], *padded) : std::nullopt;
        if (!dim) return Error(op, "padded dimension overflows");
        out[i] = *dim;
        if (out[i] < 0) return Error(op, "pads crop below zero");
      }
      return std::vector<TensorType>{{x.dtype, out}};
    }
    default:
      return Error(op, "not a layout op");
  }
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return absl::InvalidArgumentError(
          absl::StrCat("shapes [", absl::StrJoin(a, ","), "] and [", absl::StrJoin(b, ","), "] do not broadcast"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<std::vector<TensorType>> InferOutputTypes(int32_t op, const Inputs& in, const Attrs& attrs,
                                                         std::optional<int32_t> output_dtype) {
  switch (op) {
    case TSR_OP_ADD:
    case TSR_OP_SUB:
    case TSR_OP_MUL:
    case TSR_OP_DIV:
    case TSR_OP_POW:
    case TSR_OP_MAXIMUM:
    case TSR_OP_MINIMUM:
    case TSR_OP_EQUAL:
    case TSR_OP_LESS:
    case TSR_OP_GREATER: {
      RETURN_IF_ERROR(Need(op, in, 2, 2));
      if (op != TSR_OP_POW && in[0]->dtype != in[1]->dtype) return Error(op, "operand dtypes differ");
      ASSIGN_OR_RETURN(std::vector<int64_t> shape, BroadcastShapes(in[0]->shape, in[1]->shape));
      const bool compare = op == TSR_OP_EQUAL || op == TSR_OP_LESS || op == TSR_OP_GREATER;
      return std::vector<TensorType>{{compare ? TSR_DTYPE_BOOL : in[0]->dtype, shape}};
    }
    case TSR_OP_NEG:
    case TSR_OP_ABS:
    case TSR_OP_SQRT:
    case TSR_OP_RSQRT:
    case TSR_OP_EXP:
    case TSR_OP_LOG:
    case TSR_OP_SIN:
    case TSR_OP_COS:
    case TSR_OP_TANH:
    case TSR_OP_SIGMOID:
    case TSR_OP_RELU:
    case TSR_OP_CLIP:
    case TSR_OP_ERF:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return std::vector<TensorType>{*in[0]};
    case TSR_OP_SOFTMAX:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      RETURN_IF_ERROR(NormalizeAxis(op, Int(attrs, TSR_ATTR_AXIS, -1), in[0]->shape.size()).status());
      return std::vector<TensorType>{*in[0]};
    case TSR_OP_LAYER_NORM:
      RETURN_IF_ERROR(Need(op, in, 2, 3));
      RETURN_IF_ERROR(NormalizeAxis(op, Int(attrs, TSR_ATTR_AXIS, -1), in[0]->shape.size()).status());
      return std::vector<TensorType>{*in[0]};
    case TSR_OP_SELECT: {
      RETURN_IF_ERROR(Need(op, in, 3, 3));
      if (in[0]->dtype != TSR_DTYPE_BOOL) return Error(op, "condition must be bool");
      if (in[1]->dtype != in[2]->dtype) return Error(op, "branches differ in dtype");
      ASSIGN_OR_RETURN(std::vector<int64_t> s, BroadcastShapes(in[0]->shape, in[1]->shape));
      ASSIGN_OR_RETURN(s, BroadcastShapes(s, in[2]->shape));
      return std::vector<TensorType>{{in[1]->dtype, s}};
    }
    case TSR_OP_REDUCE_MEAN:
    case TSR_OP_REDUCE_SUM:
    case TSR_OP_REDUCE_MAX:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return Reduce(op, *in[0], attrs);
    case TSR_OP_ARG_MAX:
    case TSR_OP_ARG_MIN:
    case TSR_OP_TOP_K:
    case TSR_OP_CUM_SUM:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return AlongAxis(op, *in[0], attrs);
    case TSR_OP_MATMUL:
      RETURN_IF_ERROR(Need(op, in, 2, 2));
      return MatMul(op, in);
    case TSR_OP_FULLY_CONNECTED: {
      RETURN_IF_ERROR(Need(op, in, 2, 3));
      const TensorType &x = *in[0], &w = *in[1];
      if (x.shape.empty() || w.shape.size() != 2 || x.shape.back() != w.shape[1])
        return Error(op, absl::StrCat("x [", absl::StrJoin(x.shape, ","), "] and W [", absl::StrJoin(w.shape, ","),
                                      "] do not fit y = x·Wᵀ (W is [N, K])"));
      if (in.size() > 2 && in[2] && (in[2]->shape.size() != 1 || in[2]->shape[0] != w.shape[0]))
        return Error(op, "bias must be [N]");
      std::vector<int64_t> out = x.shape;
      out.back() = w.shape[0];
      return std::vector<TensorType>{{output_dtype.value_or(x.dtype), out}};
    }
    case TSR_OP_CONV_2D:
      RETURN_IF_ERROR(Need(op, in, 2, 3));
      return Window2D(op, in, attrs);
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return Window2D(op, in, attrs);
    case TSR_OP_CONV_TRANSPOSE_2D:
      RETURN_IF_ERROR(Need(op, in, 2, 3));
      return ConvTranspose(op, in, attrs);
    case TSR_OP_RESIZE:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return Resize(op, *in[0], attrs);
    case TSR_OP_GLOBAL_AVG_POOL: {
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      if (in[0]->shape.size() < 3) return Error(op, "input rank must be >= 3");
      std::vector<int64_t> out = in[0]->shape;
      for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
      return std::vector<TensorType>{{in[0]->dtype, out}};
    }
    case TSR_OP_RESHAPE:
    case TSR_OP_TRANSPOSE:
    case TSR_OP_SLICE:
    case TSR_OP_CONCAT:
    case TSR_OP_GATHER:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_PAD:
      RETURN_IF_ERROR(Need(op, in, 1, op == TSR_OP_CONCAT ? 1u << 16 : (op == TSR_OP_GATHER ? 2 : 1)));
      if (op == TSR_OP_GATHER) RETURN_IF_ERROR(Need(op, in, 2, 2));
      return Layout(op, in, attrs);
    case TSR_OP_CAST:
    case TSR_OP_QUANTIZE:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      if (!output_dtype) return Error(op, "needs an output dtype");
      return std::vector<TensorType>{{*output_dtype, in[0]->shape}};
    case TSR_OP_DEQUANTIZE:
      RETURN_IF_ERROR(Need(op, in, 1, 1));
      return std::vector<TensorType>{{output_dtype.value_or(TSR_DTYPE_F32), in[0]->shape}};
    default:
      return Error(op, "no shape rule (DISPATCH outputs come from the partition)");
  }
}

}  // namespace tessera
