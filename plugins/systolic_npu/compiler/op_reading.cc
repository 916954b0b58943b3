#include "plugins/systolic_npu/compiler/op_reading.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_join.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;

absl::Status CheckStatic(const SnapshotTensor& t, const char* what, Why* why) {
  const int64_t n = kit::ElementCount(t.shape);
  if (n < 0)
    SNPU_REFUSE(TSR_REFUSAL_DYNAMIC_SHAPE, what, " '", t.name, "' has a dynamic shape ",
                ShapeText(t.shape));
  if (n == 0) SNPU_REFUSE(TSR_REFUSAL_OTHER, what, " '", t.name, "' is empty");
  if (n > (int64_t{1} << 31))
    SNPU_REFUSE(TSR_REFUSAL_TOO_LARGE, what, " '", t.name, "' is larger than 2^31 elements");
  return absl::OkStatus();
}

const kit::SnapshotAttr* Attr(const SnapshotOp& op, int32_t key) {
  auto it = op.attrs.find(key);
  return it == op.attrs.end() ? nullptr : &it->second;
}

}  // namespace

const SnapshotTensor* OpTensor(const GraphSnapshot& g, const SnapshotOp& op, size_t i,
                               bool output) {
  const auto& list = output ? op.outputs : op.inputs;
  if (i >= list.size()) return nullptr;
  const int32_t t = list[i];
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return nullptr;
  return &g.tensors[t];
}

std::string ShapeText(const std::vector<int64_t>& s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

const char* DtypeText(int32_t dt) {
  switch (dt) {
    case TSR_DTYPE_F32: return "f32";
    case TSR_DTYPE_F16: return "f16";
    case TSR_DTYPE_I8: return "i8";
    case TSR_DTYPE_U8: return "u8";
    case TSR_DTYPE_I32: return "i32";
    case TSR_DTYPE_I64: return "i64";
    case TSR_DTYPE_BOOL: return "bool";
    default: return "unknown";
  }
}

std::vector<int64_t> IntsAttr(const SnapshotOp& op, int32_t key, std::vector<int64_t> def) {
  const kit::SnapshotAttr* a = Attr(op, key);
  return a && !a->ints.empty() ? a->ints : def;
}

float FloatAttr(const SnapshotOp& op, int32_t key, float def) {
  const kit::SnapshotAttr* a = Attr(op, key);
  if (a == nullptr) return def;
  if (!a->floats.empty()) return a->floats[0];
  if (!a->ints.empty()) return static_cast<float>(a->ints[0]);
  return def;
}

absl::StatusOr<QuantSpec> PerTensorQuant(const SnapshotTensor& t, const char* what, Why* why) {
  if (t.quant.scales.size() != 1)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name,
                "' needs per-tensor quantization parameters (has ", t.quant.scales.size(),
                " scales)");
  const float s = t.quant.scales[0];
  const int64_t zp = t.quant.zero_points.empty() ? 0 : t.quant.zero_points[0];
  if (!(s > 0) || !std::isfinite(s))
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name,
                "' has a non-positive scale");
  if (zp < -128 || zp > 127)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, what, " '", t.name, "' zero point ", zp,
                " is not int8");
  return QuantSpec{s, static_cast<int32_t>(zp)};
}

absl::StatusOr<ActivationSpec> FusedActivation(const SnapshotOp& op, Why* why) {
  ActivationSpec a;
  const int64_t kind = IntsAttr(op, TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_NONE})[0];
  if (kind == TSR_ACTIVATION_NONE) return a;
  if (kind == TSR_ACTIVATION_RELU) {
    a.kind = Activation::kRelu;
    return a;
  }
  if (kind != TSR_ACTIVATION_CLIP)
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "unknown fused activation ", kind);
  a.kind = Activation::kClip;
  a.clip_min = FloatAttr(op, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
  a.clip_max = FloatAttr(op, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
  if (!(a.clip_min <= a.clip_max))
    SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "fused CLIP with min > max (or NaN)");
  return a;
}

absl::Status CheckArity(const GraphSnapshot& g, const SnapshotOp& op, size_t min_in,
                        size_t max_in, Why* why) {
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const SnapshotTensor* t = OpTensor(g, op, i, false);
    if (t == nullptr) {
      if (i < min_in) SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": input ", i, " is missing");
      continue;
    }
    if (i >= max_in) SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": too many inputs");
    if (auto s = CheckStatic(*t, "input", why); !s.ok()) return s;
  }
  if (op.inputs.size() < min_in) SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": missing inputs");
  if (op.outputs.size() != 1 || OpTensor(g, op, 0, true) == nullptr)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, OpName(op.type), ": needs exactly one output");
  return CheckStatic(*OpTensor(g, op, 0, true), "output", why);
}

}  // namespace tessera::systolic
