#include "framework/compiler/quantize/scale_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tessera::quantize {
namespace {

constexpr double kQMin = -128.0;
constexpr double kQMax = 127.0;
// Below this a scale would be subnormal: the requantization multiplier
// x_scale·w_scale/y_scale would lose all precision or overflow.
constexpr double kMinScale = 1e-30;

}  // namespace

absl::StatusOr<ActivationParams> ChooseActivationParams(float min, float max) {
  if (!std::isfinite(min) || !std::isfinite(max))
    return absl::InvalidArgumentError(absl::StrCat("range [", min, ", ", max, "] is not finite"));
  if (min > max) return absl::InvalidArgumentError(absl::StrCat("range [", min, ", ", max, "] is empty"));
  const double lo = std::min<double>(min, 0.0);
  const double hi = std::max<double>(max, 0.0);
  const double scale = (hi - lo) / (kQMax - kQMin);
  ActivationParams p;
  if (!(scale >= kMinScale) || !std::isnormal(static_cast<float>(scale))) {
    p.scale = 1.0f;
    p.zero_point = 0;
    return p;
  }
  p.scale = static_cast<float>(scale);
  const double zp = std::nearbyint(kQMin - lo / static_cast<double>(p.scale));
  p.zero_point = static_cast<int32_t>(std::clamp(zp, kQMin, kQMax));
  return p;
}

int8_t QuantizeValue(float x, const ActivationParams& p) {
  if (std::isnan(x)) return static_cast<int8_t>(std::clamp<int32_t>(p.zero_point, -128, 127));
  const float r = std::nearbyint(x / p.scale);  // f32 division, half to even (QUANTIZE kernel)
  const double q = static_cast<double>(r) + p.zero_point;
  return static_cast<int8_t>(std::clamp(q, kQMin, kQMax));
}

absl::StatusOr<PerChannelWeights> QuantizeWeightsPerChannel(std::span<const float> weights,
                                                            const std::vector<int64_t>& shape, int32_t axis) {
  if (axis < 0 || static_cast<size_t>(axis) >= shape.size())
    return absl::InvalidArgumentError(absl::StrCat("weight axis ", axis, " out of range for rank ", shape.size()));
  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t channels = shape[axis];
  if (outer * channels * inner != static_cast<int64_t>(weights.size()))
    return absl::InvalidArgumentError("weights do not match their shape");
  auto index = [&](int64_t o, int64_t c, int64_t i) { return (o * channels + c) * inner + i; };
  PerChannelWeights out;
  out.axis = axis;
  out.scales.assign(channels, 1.0f);
  out.values.resize(weights.size());
  for (int64_t c = 0; c < channels; ++c) {
    double max_abs = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const float w = weights[index(o, c, i)];
        if (!std::isfinite(w)) return absl::InvalidArgumentError(absl::StrCat("weight channel ", c, " holds ", w));
        max_abs = std::max(max_abs, std::fabs(static_cast<double>(w)));
      }
    const double scale = max_abs / 127.0;
    if (scale >= kMinScale && std::isnormal(static_cast<float>(scale))) out.scales[c] = static_cast<float>(scale);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = index(o, c, i);
        const double q = std::nearbyint(static_cast<double>(weights[k]) / out.scales[c]);
        out.values[k] = static_cast<int8_t>(std::clamp(q, -127.0, 127.0));
      }
  }
  return out;
}

absl::StatusOr<std::vector<int32_t>> QuantizeBias(std::span<const float> bias, float x_scale,
                                                  std::span<const float> w_scales, int64_t limit) {
  if (w_scales.size() != 1 && w_scales.size() != bias.size())
    return absl::InvalidArgumentError(
        absl::StrCat("bias has ", bias.size(), " values, weights ", w_scales.size(), " scales"));
  std::vector<int32_t> out(bias.size(), 0);
  for (size_t c = 0; c < bias.size(); ++c) {
    if (!std::isfinite(bias[c])) return absl::InvalidArgumentError(absl::StrCat("bias ", c, " is ", bias[c]));
    const double s = static_cast<double>(x_scale) * static_cast<double>(w_scales[w_scales.size() == 1 ? 0 : c]);
    if (!(s > 0)) return absl::InvalidArgumentError(absl::StrCat("bias ", c, " has scale ", s));
    const double q = std::nearbyint(static_cast<double>(bias[c]) / s);
    const double max_abs = static_cast<double>(std::clamp<int64_t>(limit, 0, std::numeric_limits<int32_t>::max()));
    if (!(std::fabs(q) <= max_abs))
      return absl::InvalidArgumentError(absl::StrCat("bias ", c, " = ", bias[c], " is ", q, " at scale ", s,
                                                     ", beyond the int32 headroom ", max_abs));
    out[c] = static_cast<int32_t>(q);
  }
  return out;
}

}  // namespace tessera::quantize
