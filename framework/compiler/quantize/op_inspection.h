// Small read-only questions the quantization passes ask about ops and
// constant tensors, kept in one place so fusion and the rewrite agree.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_OP_INSPECTION_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_OP_INSPECTION_H_

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "framework/core/graph/graph.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::quantize {

// The ops with weights and a fused activation (TSR_ATTR_ACTIVATION).
inline bool IsMatrixOp(int32_t type) {
  return type == TSR_OP_FULLY_CONNECTED || type == TSR_OP_CONV_2D || type == TSR_OP_MATMUL;
}

// A float attribute; an integer one is accepted (docs/ops.md, Conventions).
inline float FloatAttr(const Op& op, int32_t key, float def) {
  const Attribute* a = op.FindAttr(key);
  if (a == nullptr) return def;
  if (!a->floats.empty()) return a->floats[0];
  if (!a->ints.empty()) return static_cast<float>(a->ints[0]);
  return def;
}

// The values of an f32 tensor's constant bytes.
inline std::vector<float> FloatData(const Tensor& t) {
  std::vector<float> v(t.data.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(float));
  return v;
}

// CLIP's real bounds {lo, hi}: attributes, overridden by constant f32
// scalar inputs 1 and 2 (ONNX style). nullopt when a bound is a runtime
// tensor or of another dtype: it cannot be moved into an attribute. A NaN
// bound means no bound (docs/ops.md, CLIP) and is returned as -inf / +inf:
// the fused activation refuses NaN bounds.
inline std::optional<std::pair<float, float>> ClipBounds(const Graph& g, const Op& clip) {
  float lo = FloatAttr(clip, TSR_ATTR_CLIP_MIN, -std::numeric_limits<float>::infinity());
  float hi = FloatAttr(clip, TSR_ATTR_CLIP_MAX, std::numeric_limits<float>::infinity());
  for (size_t i = 1; i < clip.inputs.size() && i < 3; ++i) {
    const int32_t t = clip.inputs[i];
    if (t < 0) continue;
    const Tensor& bound = g.tensors[t];
    if (!bound.is_constant || bound.dtype != TSR_DTYPE_F32 || bound.element_count() != 1 ||
        bound.data.size() != sizeof(float))
      return std::nullopt;
    (i == 1 ? lo : hi) = FloatData(bound)[0];
  }
  if (clip.inputs.size() > 3) return std::nullopt;
  if (std::isnan(lo)) lo = -std::numeric_limits<float>::infinity();
  if (std::isnan(hi)) hi = std::numeric_limits<float>::infinity();
  return std::make_pair(lo, hi);
}

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_OP_INSPECTION_H_
