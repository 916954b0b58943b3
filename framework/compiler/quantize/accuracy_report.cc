#include "framework/compiler/quantize/accuracy_report.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/core/base/dtype.h"
#include "support/reference_kernels/half.h"
#include "tessera/common.h"

namespace tessera::quantize {
namespace {

// Output dtypes compared as numbers (bool as 0/1).
bool IsNumeric(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
    case TSR_DTYPE_F16:
    case TSR_DTYPE_I8:
    case TSR_DTYPE_U8:
    case TSR_DTYPE_I32:
    case TSR_DTYPE_I64:
    case TSR_DTYPE_BOOL:
      return true;
    default:
      return false;
  }
}

// Element i of a tensor of an IsNumeric dtype, as a double.
double Element(const HostTensor& t, size_t i) {
  auto load = [&]<typename T>(T v) {
    std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
    return v;
  };
  switch (t.dtype) {
    case TSR_DTYPE_F32:
      return load(float{});
    case TSR_DTYPE_F16:
      return cpu::HalfToFloat(load(uint16_t{}));
    case TSR_DTYPE_I8:
      return load(int8_t{});
    case TSR_DTYPE_U8:
      return load(uint8_t{});
    case TSR_DTYPE_I32:
      return load(int32_t{});
    case TSR_DTYPE_I64:
      return static_cast<double>(load(int64_t{}));
    case TSR_DTYPE_BOOL:
      return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    default:
      return 0;
  }
}

}  // namespace

absl::Status AccuracyAccumulator::Add(const std::vector<HostTensor>& reference,
                                      const std::vector<HostTensor>& quantized) {
  if (reference.size() != quantized.size())
    return absl::InvalidArgumentError(
        absl::StrCat("accuracy: ", reference.size(), " reference outputs, ", quantized.size(), " quantized"));
  if (sums_.empty())
    for (const HostTensor& r : reference) sums_.push_back({r.name});
  if (sums_.size() != reference.size()) return absl::InvalidArgumentError("accuracy: output count changed");
  for (size_t o = 0; o < reference.size(); ++o) {
    const HostTensor& r = reference[o];
    const HostTensor& q = quantized[o];
    const size_t esize = DTypeSize(r.dtype);
    if (r.dtype != q.dtype || !IsNumeric(r.dtype) || r.shape != q.shape || r.data.size() != q.data.size() ||
        r.data.size() % esize != 0)
      return absl::InvalidArgumentError(
          absl::StrCat("accuracy: output '", r.name, "' differs in dtype or shape between the models"));
    Sums& s = sums_[o];
    for (size_t i = 0; i < r.data.size() / esize; ++i) {
      const double a = Element(r, i), b = Element(q, i);
      const double d = a - b;
      s.signal += a * a;
      s.noise += d * d;
      // NaN on either side must not hide: it makes the error NaN.
      s.max_abs = std::isnan(d) ? d : std::max(s.max_abs, std::fabs(d));
    }
  }
  return absl::OkStatus();
}

std::vector<OutputAccuracy> AccuracyAccumulator::Result() const {
  std::vector<OutputAccuracy> out;
  for (const Sums& s : sums_) {
    OutputAccuracy a{s.name, s.max_abs, 0};
    if (s.noise == 0)
      a.snr_db = std::numeric_limits<double>::infinity();
    else
      a.snr_db = 10.0 * std::log10(s.signal / s.noise);
    out.push_back(a);
  }
  return out;
}

std::string FormatQuantizationReport(const QuantizationReport& r) {
  std::string s = absl::StrFormat(
      "quantization: %s, %d calibration samples (%.1f ms), %d ops quantized, %d left in float, %d activations fused\n",
      r.scheme, r.samples, r.calibration_ms, r.quantized_ops, r.float_ops, r.fused_activations);
  for (const OutputAccuracy& o : r.outputs)
    absl::StrAppendFormat(
        &s, "  output '%s' vs fp32: max |err| %.6g, SNR %s dB\n", o.name, o.max_abs_error,
        std::isinf(o.snr_db) ? std::string(o.snr_db > 0 ? "inf" : "-inf") : absl::StrFormat("%.2f", o.snr_db));
  return s;
}

void WriteQuantizationReportJson(const QuantizationReport& r, JsonWriter& j) {
  j.BeginObject()
      .Field("scheme", r.scheme)
      .Field("samples", r.samples)
      .Field("quantized_ops", r.quantized_ops)
      .Field("float_ops", r.float_ops)
      .Field("fused_activations", r.fused_activations)
      .Field("calibration_ms", r.calibration_ms)
      .Key("outputs")
      .BeginArray();
  for (const OutputAccuracy& o : r.outputs)
    j.BeginObject().Field("name", o.name).Field("max_abs_error", o.max_abs_error).Field("snr_db", o.snr_db).EndObject();
  j.EndArray().EndObject();
}

}  // namespace tessera::quantize
