// Elementwise, transcendental, comparison and SELECT kernels: one f32
// operation per lane, numpy broadcasting (docs/ops.md).
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/kernels/dsp_kernels.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

float Unary(int32_t op, float x) {
  switch (op) {
    case TSR_OP_NEG: return -x;
    case TSR_OP_ABS: return std::fabs(x);
    case TSR_OP_RELU: return x < 0 ? 0.0f : x;  // NaN passes through
    case TSR_OP_SQRT: return std::sqrt(x);
    case TSR_OP_RSQRT: return 1.0f / std::sqrt(x);
    case TSR_OP_EXP: return std::exp(x);
    case TSR_OP_LOG: return std::log(x);
    case TSR_OP_SIN: return std::sin(x);
    case TSR_OP_COS: return std::cos(x);
    case TSR_OP_TANH: return std::tanh(x);
    case TSR_OP_ERF: return std::erf(x);
    case TSR_OP_SIGMOID: {  // never overflows: exp of a non-positive value
      const float e = std::exp(-std::fabs(x));
      return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
    }
  }
  return std::numeric_limits<float>::quiet_NaN();
}

float Binary(int32_t op, float a, float b) {
  switch (op) {
    case TSR_OP_ADD: return a + b;
    case TSR_OP_SUB: return a - b;
    case TSR_OP_MUL: return a * b;
    case TSR_OP_DIV: return a / b;
    case TSR_OP_POW: return std::pow(a, b);
    case TSR_OP_MAXIMUM: return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : std::max(a, b);
    case TSR_OP_MINIMUM: return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : std::min(a, b);
    case TSR_OP_EQUAL: return a == b ? 1.0f : 0.0f;
    case TSR_OP_LESS: return a < b ? 1.0f : 0.0f;
    case TSR_OP_GREATER: return a > b ? 1.0f : 0.0f;
  }
  return std::numeric_limits<float>::quiet_NaN();
}

absl::Status Clip(const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  float lo = FloatAttr(attrs, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
  float hi = FloatAttr(attrs, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
  // A bound given as an input overrides the attribute (ONNX style).
  for (size_t i = 1; i < 3 && i < in.size(); ++i) {
    if (!in[i].present()) continue;
    if (in[i].elements() != 1) return absl::InvalidArgumentError("CLIP: a bound input must hold one value");
    (i == 1 ? lo : hi) = LoadFloats(in[i])[0];
  }
  if (absl::Status s = CheckShape("CLIP", out.shape, in[0].shape); !s.ok()) return s;
  std::vector<float> x = LoadFloats(in[0]);
  for (float& v : x)
    if (!std::isnan(v)) v = std::min(std::max(v, lo), hi);
  StoreFloats(x, out);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunElementwise(int32_t op, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  const char* name = OpName(op);
  if (op == TSR_OP_CLIP) return Clip(attrs, in, out);
  const size_t arity = op == TSR_OP_SELECT ? 3 : (op == TSR_OP_NEG || op == TSR_OP_ABS || op == TSR_OP_RELU ||
                                                  (op >= TSR_OP_SQRT && op <= TSR_OP_SIGMOID) || op == TSR_OP_ERF)
                                                     ? 1 : 2;
  if (in.size() != arity)
    return absl::InvalidArgumentError(absl::StrCat(name, ": takes ", arity, " inputs, got ", in.size()));
  for (const DspTensor& t : in)
    if (!t.present()) return absl::InvalidArgumentError(absl::StrCat(name, ": an input is missing"));
  std::vector<std::vector<int64_t>> shapes;
  for (const DspTensor& t : in) shapes.push_back(t.shape);
  absl::StatusOr<std::vector<int64_t>> shape = BroadcastShape(shapes);
  if (!shape.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", shape.status().message()));
  if (absl::Status s = CheckShape(name, out.shape, *shape); !s.ok()) return s;
  const size_t n = static_cast<size_t>(out.elements());
  std::vector<float> y(n);
  if (arity == 1) {
    std::vector<float> x = LoadFloats(in[0]);
    for (size_t i = 0; i < n; ++i) y[i] = Unary(op, x[i]);
    StoreFloats(y, out);
    return absl::OkStatus();
  }
  if (op == TSR_OP_SELECT) {
    // Bytes of the chosen operand are copied; the condition is one byte.
    const std::vector<int64_t> ci = BroadcastIndex(in[0].shape, *shape);
    const std::vector<int64_t> xi = BroadcastIndex(in[1].shape, *shape);
    const std::vector<int64_t> yi = BroadcastIndex(in[2].shape, *shape);
    const size_t width = out.dtype == TSR_DTYPE_F16 ? 2 : 4;
    for (size_t i = 0; i < n; ++i) {
      const bool c = in[0].data[ci[i]] != 0;
      std::memcpy(out.data + i * width, (c ? in[1].data + xi[i] * width : in[2].data + yi[i] * width), width);
    }
    return absl::OkStatus();
  }
  const std::vector<float> a = LoadFloats(in[0]);
  const std::vector<float> b = LoadFloats(in[1]);
  const std::vector<int64_t> ai = BroadcastIndex(in[0].shape, *shape);
  const std::vector<int64_t> bi = BroadcastIndex(in[1].shape, *shape);
  for (size_t i = 0; i < n; ++i) y[i] = Binary(op, a[ai[i]], b[bi[i]]);
  if (op == TSR_OP_EQUAL || op == TSR_OP_LESS || op == TSR_OP_GREATER) {
    for (size_t i = 0; i < n; ++i) out.data[i] = y[i] != 0 ? 1 : 0;
    return absl::OkStatus();
  }
  StoreFloats(y, out);
  return absl::OkStatus();
}

}  // namespace tessera::mock_dsp
