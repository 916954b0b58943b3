#include "plugins/mock_dsp/kernels/dsp_kernels.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/shared/op_support.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {

std::vector<int64_t> IntsAttr(const Attrs& attrs, int32_t key, std::vector<int64_t> fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end() || it->second.ints.empty()) return fallback;
  return it->second.ints;
}

int64_t IntAttr(const Attrs& attrs, int32_t key, int64_t fallback) {
  std::vector<int64_t> v = IntsAttr(attrs, key);
  return v.empty() ? fallback : v[0];
}

float FloatAttr(const Attrs& attrs, int32_t key, float fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (!it->second.floats.empty()) return it->second.floats[0];
  if (!it->second.ints.empty()) return static_cast<float>(it->second.ints[0]);  // docs/ops.md: ints are accepted
  return fallback;
}

absl::Status CheckShape(const char* op, std::span<const int64_t> shape, std::span<const int64_t> expected) {
  if (std::equal(shape.begin(), shape.end(), expected.begin(), expected.end())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, ": output 0 shape [", absl::StrJoin(shape, ","),
                                                 "] but the op produces [", absl::StrJoin(expected, ","), "]"));
}

absl::StatusOr<int64_t> NormalizeAxis(const char* op, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    return absl::InvalidArgumentError(absl::StrCat(op, ": axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + r : axis;
}

absl::Status RunDspOp(int32_t op_type, const Attrs& attrs, std::span<const DspTensor> inputs,
                      std::span<const DspTensor> outputs) {
  if (inputs.empty() || outputs.empty())
    return absl::InvalidArgumentError(absl::StrCat(OpName(op_type), ": needs an input and an output"));
  switch (ClassOf(op_type)) {
    case OpClass::kSimple:
    case OpClass::kTranscendental:
    case OpClass::kCompare:
    case OpClass::kSelect: return RunElementwise(op_type, attrs, inputs, outputs[0]);
    case OpClass::kReduce: return RunReduction(op_type, attrs, inputs, outputs[0]);
    case OpClass::kSoftmax: return RunSoftmax(attrs, inputs[0], outputs[0]);
    case OpClass::kLayerNorm: return RunLayerNorm(attrs, inputs, outputs);
    case OpClass::kLayout: return RunLayout(op_type, attrs, inputs, outputs[0]);
    case OpClass::kNone: break;
  }
  return absl::UnimplementedError(absl::StrCat("mock_dsp: ", OpName(op_type), " has no DSP kernel"));
}

}  // namespace tessera::mock_dsp
