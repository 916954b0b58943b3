// Layout ONNX ops: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat,
// Gather, Slice, Split (-> SLICEs), Pad, Expand (-> SELECT broadcast),
// Tile (-> CONCATs), DepthToSpace / SpaceToDepth (-> RESHAPE + TRANSPOSE).
#include <algorithm>
#include <numeric>
#include <optional>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// Shapes here are already valid tensor shapes, so the product fits; -1
// (refused by RESHAPE's shape inference) if it ever does not.
int64_t Product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  if (begin >= end || begin >= v.size()) return 1;
  const size_t last = std::min(end, v.size());
  return checked::ElementCount(std::span<const int64_t>(v.data() + begin, last - begin)).value_or(-1);
}

Outputs Reshape(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  std::vector<int64_t> shape;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(shape, ctx.ConstInts(n.input(1), "Reshape shape"));
  } else {
    shape = n.Ints("shape");  // opset < 5
  }
  const bool allow_zero = n.Int("allowzero", 0) != 0;
  const std::vector<int64_t>& in = ctx.shape(x);
  const int64_t total = ctx.tensor(x).element_count();
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= in.size()) return absl::InvalidArgumentError("shape copies a dimension (0) beyond the input's rank");
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) return absl::InvalidArgumentError("more than one -1 in shape");
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid dimension ", shape[i], " in shape"));
    } else {
      const std::optional<int64_t> next = checked::Mul(known, shape[i]);
      if (!next) return absl::InvalidArgumentError("Reshape shape overflows");
      known = *next;
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      return absl::InvalidArgumentError(absl::StrCat("cannot infer -1 reshaping [", absl::StrJoin(in, ","), "] to [",
                                                     absl::StrJoin(shape, ","), "]"));
    shape[infer] = total / known;
  }
  // RESHAPE's shape attribute reads 0 as "copy"; an empty result (the only
  // case where allowzero keeps a real 0) is a constant with no elements.
  if (allow_zero && total == 0 && std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    if (checked::ElementCount(shape) != 0)
      return absl::InvalidArgumentError("cannot reshape an empty tensor to a non-empty shape");
    ASSIGN_OR_RETURN(int32_t empty, ctx.Filled(ctx.dtype(x), shape, 0));
    return std::vector<int32_t>{empty};
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_RESHAPE, {x}, {{TSR_ATTR_SHAPE, IntsAttr(shape)}}));
  return std::vector<int32_t>{y};
}

Outputs Flatten(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  const int64_t rank = ctx.rank(x);
  int64_t axis = n.Int("axis", 1);
  if (axis < -rank || axis > rank) return absl::InvalidArgumentError("axis out of range");
  if (axis < 0) axis += rank;
  const std::vector<int64_t>& s = ctx.shape(x);
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_RESHAPE, {x},
                                       {{TSR_ATTR_SHAPE, IntsAttr({Product(s, 0, axis), Product(s, axis, rank)})}}));
  return std::vector<int32_t>{y};
}

Outputs Transpose(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  std::vector<int64_t> perm = n.Ints("perm");
  if (perm.empty())
    for (int64_t i = ctx.rank(x); i-- > 0;) perm.push_back(i);
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_TRANSPOSE, {x}, {{TSR_ATTR_PERM, IntsAttr(perm)}}));
  return std::vector<int32_t>{y};
}

// Axes from input 1 (opset >= 13) or the `axes` attribute.
absl::StatusOr<std::vector<int64_t>> AxesOf(ImportContext& ctx, const Node& n, size_t input) {
  if (n.has_input(input)) return ctx.ConstInts(n.input(input), "axes");
  return n.Ints("axes");
}

Outputs Squeeze(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(ctx, n, 1));
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(a, ctx.rank(x)));
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SQUEEZE, {x}, {{TSR_ATTR_AXES, IntsAttr(axes)}}));
  return std::vector<int32_t>{y};
}

Outputs Unsqueeze(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesOf(ctx, n, 1));
  const int64_t out_rank = ctx.rank(x) + static_cast<int64_t>(axes.size());
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(a, out_rank));
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_UNSQUEEZE, {x}, {{TSR_ATTR_AXES, IntsAttr(axes)}}));
  return std::vector<int32_t>{y};
}

Outputs Concat(ImportContext& ctx, const Node& n) {
  std::vector<int32_t> inputs;
  for (size_t i = 0; i < n.input_count(); ++i) {
    ASSIGN_OR_RETURN(int32_t t, Required(n, i));
    inputs.push_back(t);
  }
  if (inputs.empty()) return absl::InvalidArgumentError("Concat needs inputs");
  if (!n.Has("axis")) return absl::InvalidArgumentError("Concat needs an axis");
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", 0), ctx.rank(inputs[0])));
  // Zero-sized inputs contribute nothing (ONNX allows them).
  std::vector<int32_t> nonempty;
  for (int32_t t : inputs)
    if (ctx.tensor(t).element_count() > 0 || ctx.shape(t)[axis] != 0) nonempty.push_back(t);
  if (nonempty.empty()) nonempty.push_back(inputs[0]);
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_CONCAT, nonempty, {{TSR_ATTR_AXIS, IntsAttr({axis})}}));
  return std::vector<int32_t>{y};
}

Outputs Gather(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t data, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t indices, Required(n, 1));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", 0), ctx.rank(data)));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_GATHER, {data, indices}, {{TSR_ATTR_AXIS, IntsAttr({axis})}}));
  return std::vector<int32_t>{y};
}

Outputs Slice(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.input_count() > 1) {
    ASSIGN_OR_RETURN(starts, ctx.ConstInts(n.input(1), "Slice starts"));
    ASSIGN_OR_RETURN(ends, ctx.ConstInts(n.input(2), "Slice ends"));
    if (n.has_input(3)) {
      ASSIGN_OR_RETURN(axes, ctx.ConstInts(n.input(3), "Slice axes"));
    }
    if (n.has_input(4)) {
      ASSIGN_OR_RETURN(steps, ctx.ConstInts(n.input(4), "Slice steps"));
    }
  } else {
    starts = n.Ints("starts");
    ends = n.Ints("ends");
    axes = n.Ints("axes");
  }
  ASSIGN_OR_RETURN(int32_t y, SliceOp(ctx, x, starts, ends, axes, steps));
  return std::vector<int32_t>{y};
}

Outputs Split(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n.Int("axis", 0), ctx.rank(x)));
  const int64_t dim = ctx.shape(x)[axis];
  const int64_t count = static_cast<int64_t>(n.output_count());
  if (count == 0) return absl::InvalidArgumentError("Split has no outputs");
  // Opset 18: num_outputs, equal parts (the last one smaller), as below.
  if (n.Has("num_outputs") && n.Int("num_outputs", count) != count)
    return absl::InvalidArgumentError(
        absl::StrCat("num_outputs is ", n.Int("num_outputs", count), " but the node has ", count, " outputs"));
  std::vector<int64_t> split;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(split, ctx.ConstInts(n.input(1), "split"));
  } else {
    split = n.Ints("split");
  }
  if (split.empty()) {
    const int64_t part = (dim + count - 1) / count;
    for (int64_t i = 0; i < count; ++i) split.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
  }
  if (static_cast<int64_t>(split.size()) != count)
    return absl::InvalidArgumentError(absl::StrCat("split has ", split.size(), " entries for ", count, " outputs"));
  int64_t sum = 0;
  for (int64_t s : split) {
    if (s < 0) return absl::InvalidArgumentError("negative split size");
    const std::optional<int64_t> next = checked::Add(sum, s);
    if (!next) return absl::InvalidArgumentError("split sizes overflow");
    sum = *next;
  }
  if (sum != dim) return absl::InvalidArgumentError(absl::StrCat("split sizes sum to ", sum, ", not ", dim));
  std::vector<int32_t> outs;
  int64_t begin = 0;
  for (int64_t s : split) {
    ASSIGN_OR_RETURN(int32_t y, SliceOp(ctx, x, {begin}, {begin + s}, {axis}, {1}));
    outs.push_back(y);
    begin += s;
  }
  return outs;
}

Outputs Pad(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  std::vector<int64_t> pads;
  double value = 0;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(pads, ctx.ConstInts(n.input(1), "Pad pads"));
    if (n.has_input(2)) {
      ASSIGN_OR_RETURN(value, ctx.ConstScalar(n.input(2), "Pad constant_value"));
    }
    if (n.has_input(3)) {
      // Opset 18: pads [b(axes)..., e(axes)...] for the listed axes only.
      ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstInts(n.input(3), "Pad axes"));
      const int64_t rank = ctx.rank(x);
      if (pads.size() != 2 * axes.size())
        return absl::InvalidArgumentError(absl::StrCat("Pad has ", pads.size(), " pads for ", axes.size(), " axes"));
      std::vector<int64_t> full(2 * rank, 0);
      std::vector<bool> seen(rank, false);
      for (size_t i = 0; i < axes.size(); ++i) {
        ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(axes[i], rank));
        if (seen[a]) return absl::InvalidArgumentError("Pad axes repeat");
        seen[a] = true;
        full[a] = pads[i];
        full[rank + a] = pads[axes.size() + i];
      }
      pads = std::move(full);
    }
  } else {
    pads = n.Ints("pads");
    value = n.Float("value", 0.0f);
  }
  const std::string mode = n.String("mode", "constant");
  int64_t pad_mode = TSR_PAD_CONSTANT;
  if (mode == "reflect")
    pad_mode = TSR_PAD_REFLECT;
  else if (mode == "edge")
    pad_mode = TSR_PAD_EDGE;
  else if (mode != "constant")
    return Unsupported(absl::StrCat("Pad mode '", mode, "' unsupported"));
  std::map<int32_t, Attribute> attrs{{TSR_ATTR_PADS, IntsAttr(pads)}, {TSR_ATTR_PAD_MODE, IntsAttr({pad_mode})}};
  if (value != 0) {
    const int32_t dt = ctx.dtype(x);
    if (dt != TSR_DTYPE_F32 && dt != TSR_DTYPE_F16 && std::abs(value) > (1 << 24))
      return Unsupported("Pad constant_value not representable as a float attribute");
    attrs[TSR_ATTR_PAD_VALUE] = FloatsAttr({static_cast<float>(value)});
  }
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_PAD, {x}, attrs));
  return std::vector<int32_t>{y};
}

// Expand: numpy broadcast of x against `shape`, as SELECT(true, x, x) with
// a bool condition of that shape (SELECT copies bytes: every dtype).
Outputs Expand(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(n.input(1), "Expand shape"));
  for (int64_t d : shape)
    if (d < 0) return absl::InvalidArgumentError("negative dimension in Expand shape");
  ASSIGN_OR_RETURN(std::vector<int64_t> out, BroadcastShapes(ctx.shape(x), shape));
  if (out == ctx.shape(x)) return std::vector<int32_t>{x};
  // The condition is a constant of the requested shape: the folding
  // budget bounds it before anything is allocated.
  ASSIGN_OR_RETURN(const int32_t cond, ctx.Filled(TSR_DTYPE_BOOL, shape, 1, "Expand condition"));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SELECT, {cond, x, x}));
  return std::vector<int32_t>{y};
}

Outputs Tile(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.ConstInts(n.input(1), "Tile repeats"));
  if (static_cast<int64_t>(repeats.size()) != ctx.rank(x))
    return absl::InvalidArgumentError("repeats must have one entry per input dimension");
  int32_t y = x;
  for (size_t axis = 0; axis < repeats.size(); ++axis) {
    if (repeats[axis] < 0) return absl::InvalidArgumentError("negative repeat");
    if (repeats[axis] == 1) continue;
    if (repeats[axis] == 0 || ctx.tensor(y).element_count() == 0) {
      std::vector<int64_t> s = ctx.shape(y);
      const std::optional<int64_t> tiled = checked::Mul(s[axis], repeats[axis]);
      if (!tiled) return absl::InvalidArgumentError("Tile output dimension overflows");
      s[axis] = *tiled;
      ASSIGN_OR_RETURN(y, ctx.Filled(ctx.dtype(y), s, 0, "Tile of an empty tensor"));
      continue;
    }
    if (repeats[axis] > 4096) return Unsupported("Tile repeat above 4096 unsupported");
    std::vector<int32_t> copies(static_cast<size_t>(repeats[axis]), y);
    ASSIGN_OR_RETURN(y, ctx.Emit(TSR_OP_CONCAT, copies, {{TSR_ATTR_AXIS, IntsAttr({static_cast<int64_t>(axis)})}}));
  }
  return std::vector<int32_t>{y};
}

// DepthToSpace (DCR/CRD) and SpaceToDepth as RESHAPE -> TRANSPOSE -> RESHAPE.
Converter SpaceDepth(bool to_space) {
  return [to_space](ImportContext& ctx, const Node& n) -> Outputs {
    ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
    if (ctx.rank(x) != 4) return absl::InvalidArgumentError("input must be NCHW");
    const int64_t b = n.Int("blocksize", 0);
    if (b <= 0) return absl::InvalidArgumentError("blocksize must be positive");
    const std::vector<int64_t> s = ctx.shape(x);
    const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
    // b comes from the file: b * b and the scaled dims must not wrap.
    const std::optional<int64_t> bb = checked::Mul(b, b);
    const std::optional<int64_t> hb = checked::Mul(H, b), wb = checked::Mul(W, b);
    const std::optional<int64_t> cbb = bb ? checked::Mul(C, *bb) : std::nullopt;
    if (!bb || (to_space ? (!hb || !wb) : !cbb)) return absl::InvalidArgumentError("blocksize too large");
    std::vector<int64_t> tmp, perm, out;
    if (to_space) {
      if (C % *bb != 0) return absl::InvalidArgumentError("channels not divisible by blocksize^2");
      const int64_t c = C / *bb;
      if (n.String("mode", "DCR") == "CRD") {
        tmp = {N, c, b, b, H, W};
        perm = {0, 1, 4, 2, 5, 3};
      } else {
        tmp = {N, b, b, c, H, W};
        perm = {0, 3, 4, 1, 5, 2};
      }
      out = {N, c, *hb, *wb};
    } else {
      if (H % b != 0 || W % b != 0) return absl::InvalidArgumentError("spatial dims not divisible by blocksize");
      tmp = {N, C, H / b, b, W / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      out = {N, *cbb, H / b, W / b};
    }
    ASSIGN_OR_RETURN(int32_t r, ctx.Reshape(x, tmp));
    ASSIGN_OR_RETURN(int32_t t, ctx.Emit(TSR_OP_TRANSPOSE, {r}, {{TSR_ATTR_PERM, IntsAttr(perm)}}));
    ASSIGN_OR_RETURN(int32_t y, ctx.Reshape(t, out));
    return std::vector<int32_t>{y};
  };
}

// Trilu: SELECT(mask, x, 0) with a constant [rows, cols] mask keeping
// j - i >= k (upper) or j - i <= k (lower).
Outputs Trilu(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (ctx.rank(x) < 2) return absl::InvalidArgumentError("Trilu needs rank >= 2");
  const bool upper = n.Int("upper", 1) != 0;
  const int64_t rows = ctx.shape(x)[ctx.rank(x) - 2], cols = ctx.shape(x)[ctx.rank(x) - 1];
  // rows * cols wrapped for a crafted shape (an 84-byte file): the mask
  // is sized by the checked, budgeted product before it is allocated.
  ASSIGN_OR_RETURN(const size_t mask_bytes, ctx.FoldedBytes(TSR_DTYPE_BOOL, {rows, cols}, "Trilu mask"));
  int64_t k = 0;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.ConstInts(n.input(1), "Trilu k"));
    if (kv.size() != 1) return absl::InvalidArgumentError("Trilu k must hold exactly one value");
    // j - i lies in [-rows, cols]: a k beyond that acts like its bound,
    // and the clamp keeps the comparison free of overflow.
    k = std::clamp<int64_t>(kv[0], -rows - 1, cols + 1);
  }
  HostTensor mask{"", TSR_DTYPE_BOOL, {rows, cols}, std::vector<uint8_t>(mask_bytes)};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) mask.data[i * cols + j] = (upper ? j - i >= k : j - i <= k) ? 1 : 0;
  const int32_t m = ctx.AddConstant(std::move(mask));
  ASSIGN_OR_RETURN(int32_t y, ctx.Emit(TSR_OP_SELECT, {m, x, ctx.Scalar(ctx.dtype(x), 0)}));
  return std::vector<int32_t>{y};
}

}  // namespace

absl::StatusOr<int32_t> SliceOp(ImportContext& ctx, int32_t x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                                std::vector<int64_t> axes, std::vector<int64_t> steps) {
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  std::vector<bool> seen(ctx.rank(x), false);
  for (int64_t& a : axes) {
    ASSIGN_OR_RETURN(a, NormalizeAxis(a, ctx.rank(x)));
    if (seen[a]) return absl::InvalidArgumentError("axes repeat");
    seen[a] = true;
  }
  for (int64_t s : steps)
    if (s == 0) return absl::InvalidArgumentError("step must not be 0");
  return ctx.Emit(TSR_OP_SLICE, {x},
                  {{TSR_ATTR_STARTS, IntsAttr(starts)},
                   {TSR_ATTR_ENDS, IntsAttr(ends)},
                   {TSR_ATTR_AXES, IntsAttr(axes)},
                   {TSR_ATTR_STEPS, IntsAttr(steps)}});
}

void RegisterLayoutConverters(ConverterTable& t) {
  t["Reshape"] = Reshape;
  t["Flatten"] = Flatten;
  t["Transpose"] = Transpose;
  t["Squeeze"] = Squeeze;
  t["Unsqueeze"] = Unsqueeze;
  t["Concat"] = Concat;
  t["Gather"] = Gather;
  t["Slice"] = Slice;
  t["Split"] = Split;
  t["Pad"] = Pad;
  t["Expand"] = Expand;
  t["Tile"] = Tile;
  t["Trilu"] = Trilu;
  t["DepthToSpace"] = SpaceDepth(true);
  t["SpaceToDepth"] = SpaceDepth(false);
}

}  // namespace tessera::onnx_import
