#include "framework/core/io/output_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/element_value.h"
#include "tessera/common.h"
#include "tessera/dispatch.h"

namespace tessera {
double TensorElementAsDouble(const HostTensor& t, int64_t i) { return ElementAsDouble(t.dtype, t.data.data(), i); }

Tolerance OwnTolerance(int32_t dtype) {
  if (dtype == TSR_DTYPE_F16) return Tolerance{1e-3, 1e-3};
  return Tolerance{1e-4, 1e-5};
}

Tolerance DeclaredToleranceCap(int32_t precision) {
  switch (precision) {
    case TSR_PRECISION_FP16:
      return Tolerance{0x1p-8, 0x1p-8};
    case TSR_PRECISION_BF16:
      return Tolerance{0x1p-5, 0x1p-5};
    default:
      return Tolerance{0, 0};  // FP32 or unknown: the runner's own only
  }
}

Tolerance CappedTolerance(const Tolerance& own, int32_t precision, const Tolerance& declared, bool* capped) {
  const Tolerance cap = DeclaredToleranceCap(precision);
  const double relative = std::min(declared.relative, cap.relative);
  const double absolute = std::min(declared.absolute, cap.absolute);
  if (capped != nullptr) *capped = relative < declared.relative || absolute < declared.absolute;
  return Tolerance{std::max(own.relative, relative), std::max(own.absolute, absolute)};
}

double UnitRoundoff(int32_t precision) {
  switch (precision) {
    case TSR_PRECISION_FP16:
      return 0x1p-11;
    case TSR_PRECISION_BF16:
      return 0x1p-8;
    default:
      return 0x1p-24;
  }
}

double DepthAllowance(int32_t precision, int64_t depth) {
  const double cap = precision == TSR_PRECISION_FP16 || precision == TSR_PRECISION_BF16
                         ? DeclaredToleranceCap(precision).relative
                         : 0x1p-12;
  if (depth <= 0) return 0;
  return std::min(cap, kDepthAllowanceUnits * UnitRoundoff(precision) * static_cast<double>(depth));
}

absl::StatusOr<double> JudgeOutput(const HostTensor& actual, const HostTensor& expected, size_t index,
                                   const OutputJudgement& judgement, double* max_abs_error) {
  if (actual.dtype != expected.dtype)
    return absl::InvalidArgumentError(
        absl::StrCat("output ", index, " dtype ", DTypeName(actual.dtype), ", expected ", DTypeName(expected.dtype)));
  if (actual.shape != expected.shape)
    return absl::InvalidArgumentError(absl::StrCat("output ", index, " shape [", absl::StrJoin(actual.shape, ","),
                                                   "], expected [", absl::StrJoin(expected.shape, ","), "]"));
  const size_t bytes = DTypeSize(actual.dtype);
  if (bytes == 0 || actual.data.size() != expected.data.size() || actual.data.size() % bytes != 0)
    return absl::InvalidArgumentError(absl::StrCat("output ", index, ": ", actual.data.size(), " bytes, expected ",
                                                   expected.data.size(), " of dtype ", DTypeName(actual.dtype)));
  const bool is_float = actual.dtype == TSR_DTYPE_F32 || actual.dtype == TSR_DTYPE_F16;
  const int64_t n = static_cast<int64_t>(actual.data.size() / bytes);
  // The output's magnitude scales the depth allowance.
  double magnitude = 0;
  if (is_float)
    for (int64_t i = 0; i < n; ++i)
      if (const double e = TensorElementAsDouble(expected, i); std::isfinite(e))
        magnitude = std::max(magnitude, std::abs(e));
  const double atol = judgement.elementwise.absolute + DepthAllowance(judgement.precision, judgement.depth) * magnitude;
  const double rtol = judgement.elementwise.relative;
  double max_err = 0, signal = 0, noise = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double a = TensorElementAsDouble(actual, i), e = TensorElementAsDouble(expected, i);
    bool ok = true;
    if (is_float && (std::isnan(e) || std::isnan(a))) {
      if (std::isnan(e) != std::isnan(a)) {
        ok = false;
        max_err = INFINITY;
      }
    } else if (is_float && (std::isinf(e) || std::isinf(a))) {
      if (a != e) {
        ok = false;
        max_err = INFINITY;
      }
    } else {
      const double err = std::abs(a - e);
      max_err = std::max(max_err, err);
      signal += e * e;
      noise += err * err;
      if (is_float) {
        if (err > atol + rtol * std::abs(e)) ok = false;
      } else if (a != e) {
        ok = false;
      }
    }
    if (!ok && bad < 0) bad = i;
  }
  if (max_abs_error != nullptr) *max_abs_error = max_err;
  if (bad >= 0)
    return absl::OutOfRangeError(absl::StrCat("output ", index, " element ", bad, ": got ",
                                              TensorElementAsDouble(actual, bad), ", expected ",
                                              TensorElementAsDouble(expected, bad), " (max abs error ", max_err, ")"));
  const bool reduced = judgement.precision == TSR_PRECISION_FP16 || judgement.precision == TSR_PRECISION_BF16;
  if (is_float && reduced && noise > 0 && signal > 0) {
    const double snr_db = 10 * std::log10(signal / noise);
    if (snr_db < kMinReducedPrecisionSnrDb)
      return absl::OutOfRangeError(absl::StrFormat(
          "output %d: signal-to-noise ratio %.1f dB against the reference, below the %.0f dB a reduced-precision "
          "output must keep (max abs error %g)",
          index, snr_db, kMinReducedPrecisionSnrDb, max_err));
  }
  return max_err;
}

absl::StatusOr<double> CompareOutput(const HostTensor& actual, const HostTensor& expected, size_t index,
                                     const Tolerance& tolerance) {
  return JudgeOutput(actual, expected, index, OutputJudgement{tolerance, TSR_PRECISION_FP32, 0});
}

}  // namespace tessera
