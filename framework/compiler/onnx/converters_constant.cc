// Ops whose result is known at import time: Constant, ConstantOfShape,
// Shape, Size, Range, EyeLike (shapes are static, so Shape and Size always
// fold; Range needs constant inputs).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/constant_folding.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

HostTensor Ints64(std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  HostTensor h{"", TSR_DTYPE_I64, std::move(shape), std::vector<uint8_t>(values.size() * 8)};
  if (!values.empty()) std::memcpy(h.data.data(), values.data(), h.data.size());
  return h;
}

HostTensor Floats32(std::vector<int64_t> shape, const std::vector<float>& values) {
  HostTensor h{"", TSR_DTYPE_F32, std::move(shape), std::vector<uint8_t>(values.size() * 4)};
  if (!values.empty()) std::memcpy(h.data.data(), values.data(), h.data.size());
  return h;
}

Outputs Constant(ImportContext& ctx, const Node& n) {
  HostTensor h;
  if (n.Has("value")) {
    // A large value stays where it is in the model's bytes.
    ASSIGN_OR_RETURN(ConvertedTensor value, n.TensorAttrView("value"));
    value.host.name.clear();
    return std::vector<int32_t>{ctx.AddConstant(std::move(value))};
  } else if (n.Has("value_float")) {
    h = Floats32({}, {n.Float("value_float", 0)});
  } else if (n.Has("value_floats")) {
    const std::vector<float> v = n.Floats("value_floats");
    h = Floats32({static_cast<int64_t>(v.size())}, v);
  } else if (n.Has("value_int")) {
    h = Ints64({}, {n.Int("value_int", 0)});
  } else if (n.Has("value_ints")) {
    const std::vector<int64_t> v = n.Ints("value_ints");
    h = Ints64({static_cast<int64_t>(v.size())}, v);
  } else if (n.Has("sparse_value") || n.Has("value_string") || n.Has("value_strings")) {
    return Unsupported("Constant with sparse or string value unsupported");
  } else {
    return absl::InvalidArgumentError("Constant has no value attribute");
  }
  h.name.clear();
  return std::vector<int32_t>{ctx.AddConstant(std::move(h))};
}

Outputs ConstantOfShape(ImportContext& ctx, const Node& n) {
  std::vector<int64_t> shape;
  if (n.has_input(0)) {
    ASSIGN_OR_RETURN(shape, ctx.ConstInts(n.input(0), "ConstantOfShape shape"));
  }
  for (int64_t d : shape)
    if (d < 0) return absl::InvalidArgumentError("negative dimension");
  int32_t dtype = TSR_DTYPE_F32;
  double value = 0;
  if (n.Has("value")) {
    ASSIGN_OR_RETURN(HostTensor v, n.TensorAttr("value"));
    if (v.data.size() != DTypeSize(v.dtype)) return absl::InvalidArgumentError("value must hold one element");
    dtype = v.dtype;
    value = LoadElement(v.dtype, v.data.data(), 0);
    if (dtype == TSR_DTYPE_I64) {  // exact for every int64
      ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(dtype, shape, "ConstantOfShape"));
      HostTensor h{"", dtype, shape, std::vector<uint8_t>(bytes)};
      for (size_t i = 0; i < bytes / 8; ++i) std::memcpy(h.data.data() + 8 * i, v.data.data(), 8);
      return std::vector<int32_t>{ctx.AddConstant(std::move(h))};
    }
  }
  ASSIGN_OR_RETURN(const int32_t filled, ctx.Filled(dtype, shape, value, "ConstantOfShape"));
  return std::vector<int32_t>{filled};
}

Outputs Shape(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  const std::vector<int64_t>& s = ctx.shape(x);
  const int64_t rank = ctx.rank(x);
  int64_t start = n.Int("start", 0), end = n.Int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(s[i]);
  return std::vector<int32_t>{ctx.AddConstant(Ints64({static_cast<int64_t>(v.size())}, v))};
}

Outputs Size(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  return std::vector<int32_t>{ctx.AddConstant(Ints64({}, {ctx.tensor(x).element_count()}))};
}

Outputs Range(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t s, Required(n, 0));
  ASSIGN_OR_RETURN(int32_t l, Required(n, 1));
  ASSIGN_OR_RETURN(int32_t d, Required(n, 2));
  const int32_t dt = ctx.dtype(s);
  if (ctx.dtype(l) != dt || ctx.dtype(d) != dt) return absl::InvalidArgumentError("Range inputs differ in dtype");
  if (!ctx.RequireConstant(s) || !ctx.RequireConstant(l) || !ctx.RequireConstant(d))
    return Unsupported("Range with non-constant inputs unsupported (dynamic output shape)");
  int64_t count = 0;
  HostTensor h;
  h.dtype = dt;
  if (dt == TSR_DTYPE_I64 || dt == TSR_DTYPE_I32) {
    ASSIGN_OR_RETURN(std::vector<int64_t> sv, ctx.ConstInts(s, "start"));
    ASSIGN_OR_RETURN(std::vector<int64_t> lv, ctx.ConstInts(l, "limit"));
    ASSIGN_OR_RETURN(std::vector<int64_t> dv, ctx.ConstInts(d, "delta"));
    if (sv.size() != 1 || lv.size() != 1 || dv.size() != 1)
      return absl::InvalidArgumentError("Range inputs must be scalars");
    if (dv[0] == 0) return absl::InvalidArgumentError("Range delta is 0");
    // limit - start and start + i * delta overflow for extreme inputs;
    // the count is exact integer arithmetic (ceil of a quotient).
    const std::optional<int64_t> span = checked::Sub(lv[0], sv[0]);
    if (!span) return absl::InvalidArgumentError("Range limit - start overflows");
    if ((*span > 0) == (dv[0] > 0) && *span != 0) {
      const int64_t q = *span / dv[0], r = *span % dv[0];
      count = r != 0 ? q + 1 : q;
    }
    h.shape = {count};
    ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(dt, h.shape, "Range"));
    h.data.resize(bytes);
    for (int64_t i = 0; i < count; ++i) {
      // start + i * delta stays between start and limit (i < count).
      const int64_t v = sv[0] + i * dv[0];
      if (dt == TSR_DTYPE_I64)
        std::memcpy(h.data.data() + 8 * i, &v, 8);
      else {
        const int32_t v32 = static_cast<int32_t>(v);
        std::memcpy(h.data.data() + 4 * i, &v32, 4);
      }
    }
  } else if (dt == TSR_DTYPE_F32) {
    ASSIGN_OR_RETURN(double sv, ctx.ConstScalar(s, "start"));
    ASSIGN_OR_RETURN(double lv, ctx.ConstScalar(l, "limit"));
    ASSIGN_OR_RETURN(double dv, ctx.ConstScalar(d, "delta"));
    if (dv == 0 || !std::isfinite(sv) || !std::isfinite(lv) || !std::isfinite(dv))
      return absl::InvalidArgumentError("Range needs finite inputs and a non-zero delta");
    const double c = std::ceil((lv - sv) / dv);
    if (c > 0) {  // else empty, however negative
      const std::optional<int64_t> exact = checked::DoubleToInt64(c);
      if (!exact) return absl::InvalidArgumentError("Range element count is not representable");
      count = *exact;
    }
    h.shape = {count};
    ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(dt, h.shape, "Range"));
    h.data.resize(bytes);
    const float start = static_cast<float>(sv), delta = static_cast<float>(dv);
    for (int64_t i = 0; i < count; ++i) {
      const float v = start + static_cast<float>(i) * delta;
      std::memcpy(h.data.data() + 4 * i, &v, 4);
    }
  } else {
    return Unsupported(absl::StrCat("Range on dtype ", DTypeName(dt), " unsupported"));
  }
  return std::vector<int32_t>{ctx.AddConstant(std::move(h))};
}

Outputs EyeLike(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t x, Required(n, 0));
  if (ctx.rank(x) != 2) return absl::InvalidArgumentError("EyeLike needs a 2-D input");
  int32_t dt = ctx.dtype(x);
  if (n.Has("dtype")) {
    ASSIGN_OR_RETURN(dt, DTypeFromOnnx(static_cast<int32_t>(n.Int("dtype", 1))));
  }
  const int64_t rows = ctx.shape(x)[0], cols = ctx.shape(x)[1];
  // rows * cols * size wrapped for a crafted shape, and r + k overflowed
  // for a huge k: the size is checked and budgeted before allocating, and
  // k is clamped to the only range where it selects anything.
  ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(dt, {rows, cols}, "EyeLike"));
  const int64_t k = std::clamp<int64_t>(n.Int("k", 0), -rows - 1, cols + 1);
  HostTensor h{"", dt, {rows, cols}, std::vector<uint8_t>(bytes)};
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r + k;
    if (c >= 0 && c < cols) StoreElement(dt, 1, h.data.data(), r * cols + c);
  }
  return std::vector<int32_t>{ctx.AddConstant(std::move(h))};
}

}  // namespace

void RegisterConstantConverters(ConverterTable& t) {
  t["Constant"] = Constant;
  t["ConstantOfShape"] = ConstantOfShape;
  t["Shape"] = Shape;
  t["Size"] = Size;
  t["Range"] = Range;
  t["EyeLike"] = EyeLike;
}

}  // namespace tessera::onnx_import
