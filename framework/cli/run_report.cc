#include "cli/run_report.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "tessera/common.h"

namespace tessera::cli {
namespace {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

template <typename T>
T Load(const HostTensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

double ElementAsDouble(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case TSR_DTYPE_F32: return Load<float>(t, i);
    case TSR_DTYPE_F16: return HalfToFloat(Load<uint16_t>(t, i));
    case TSR_DTYPE_I8: return Load<int8_t>(t, i);
    case TSR_DTYPE_U8: return Load<uint8_t>(t, i);
    case TSR_DTYPE_I32: return Load<int32_t>(t, i);
    case TSR_DTYPE_I64: return static_cast<double>(Load<int64_t>(t, i));
    case TSR_DTYPE_BOOL: return Load<uint8_t>(t, i) ? 1 : 0;
    default: return 0;
  }
}

TensorSummary Summarize(const HostTensor& t) {
  TensorSummary s;
  const size_t size = DTypeSize(t.dtype);
  s.elements = size == 0 ? 0 : static_cast<int64_t>(t.data.size() / size);
  double sum = 0;
  for (int64_t i = 0; i < s.elements; ++i) {
    const double v = ElementAsDouble(t, i);
    if (std::isnan(v)) { s.has_nan = true; continue; }
    if (i == 0 || v < s.min) s.min = v;
    if (i == 0 || v > s.max) s.max = v;
    sum += v;
  }
  s.mean = s.elements ? sum / static_cast<double>(s.elements) : 0;
  return s;
}

void WriteOutputsJson(const std::vector<HostTensor>& outputs, JsonWriter& j, size_t max_values) {
  j.BeginArray();
  for (const HostTensor& t : outputs) {
    const TensorSummary s = Summarize(t);
    j.BeginObject().Field("name", t.name).Field("dtype", DTypeName(t.dtype)).Key("shape").BeginArray();
    for (int64_t d : t.shape) j.Int(d);
    j.EndArray().Field("elements", s.elements).Field("min", s.min).Field("max", s.max).Field("mean", s.mean)
        .Field("has_nan", s.has_nan);
    j.Key("values").BeginArray();
    for (int64_t i = 0; i < s.elements && static_cast<size_t>(i) < max_values; ++i) j.Number(ElementAsDouble(t, i));
    j.EndArray().Field("truncated", static_cast<size_t>(s.elements) > max_values).EndObject();
  }
  j.EndArray();
}

void WriteProfileJson(const RunProfile& p, JsonWriter& j) {
  j.Field("total_us", p.total_us);
  j.Key("partitions").BeginArray();
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const StepProfile& s = p.steps[i];
    j.BeginObject().Field("index", static_cast<uint64_t>(i)).Field("op_id", s.op_id).Field("vendor", s.vendor)
        .Field("entry_point", s.entry_point).Field("host_time_us", s.host_time_us).Key("source_op_ids").BeginArray();
    for (uint32_t id : s.source_op_ids) j.Int(id);
    j.EndArray().Key("metrics").BeginObject();
    for (const StepProfile::Metric& m : s.metrics) j.Field(m.name, m.value);
    j.EndObject().Key("metric_units").BeginObject();
    for (const StepProfile::Metric& m : s.metrics) j.Field(m.name, m.unit);
    j.EndObject().Key("numerics").BeginObject().Field("precision", PrecisionName(s.numerics.precision))
        .Field("rtol", s.numerics.relative_tolerance).Field("atol", s.numerics.absolute_tolerance)
        .Field("description", s.numerics.description).Field("declared", s.numerics.declared).EndObject();
    j.EndObject();
  }
  j.EndArray().Key("conversions").BeginArray();
  for (const ConversionRecord& c : p.conversions)
    j.BeginObject().Field("tensor", c.tensor_name).Field("from", c.from_name)
        .Field("to", c.to_name).Field("bytes", c.bytes).Field("consumer", c.to_vendor)
        .Field("host_time_us", c.host_time_us).EndObject();
  j.EndArray().Key("fallbacks").BeginArray();
  for (const FallbackRecord& f : p.fallbacks)
    j.BeginObject().Field("partition", static_cast<uint64_t>(f.step)).Field("op_id", f.op_id).Field("vendor", f.from)
        .Field("from", f.from).Field("to", f.to).Field("failure", f.failure).Field("reason", f.reason)
        .Field("attempts", f.attempts).EndObject();
  j.EndArray();
}

std::string FormatOutputs(const std::vector<HostTensor>& outputs, size_t max_values) {
  std::string out;
  for (const HostTensor& t : outputs) {
    const TensorSummary s = Summarize(t);
    absl::StrAppendFormat(&out, "output '%s' %s [%s]  min %.6g  max %.6g  mean %.6g%s\n", t.name, DTypeName(t.dtype),
                          absl::StrJoin(t.shape, ","), s.min, s.max, s.mean, s.has_nan ? "  (contains NaN)" : "");
    std::vector<std::string> values;
    for (int64_t i = 0; i < s.elements && static_cast<size_t>(i) < max_values; ++i)
      values.push_back(absl::StrFormat("%.6g", ElementAsDouble(t, i)));
    absl::StrAppend(&out, "  [", absl::StrJoin(values, ", "), static_cast<size_t>(s.elements) > max_values ? ", ..." : "", "]\n");
  }
  return out;
}

std::string FormatProfile(const RunProfile& p) {
  std::string out = absl::StrFormat("run: %.1f us total\n", p.total_us);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const StepProfile& s = p.steps[i];
    std::vector<std::string> metrics;
    for (const StepProfile::Metric& m : s.metrics)
      metrics.push_back(absl::StrFormat("%s=%.6g%s%s", m.name, m.value, m.unit.empty() ? "" : " ", m.unit));
    if (s.numerics.reduced())
      metrics.insert(metrics.begin(), absl::StrFormat("[%s, declared rtol %.3g atol %.3g]",
                                                      PrecisionName(s.numerics.precision),
                                                      s.numerics.relative_tolerance, s.numerics.absolute_tolerance));
    absl::StrAppendFormat(&out, "  partition #%-3d %-13s %4d ops  %10.1f us  %s\n", i, s.vendor, s.source_op_ids.size(),
                          s.host_time_us, absl::StrJoin(metrics, " "));
  }
  for (const ConversionRecord& c : p.conversions)
    absl::StrAppendFormat(&out, "  conversion '%s' %s -> %s  %d bytes for %s  %.1f us\n", c.tensor_name,
                          c.from_name, c.to_name, c.bytes, c.to_vendor, c.host_time_us);
  if (p.conversions.empty()) absl::StrAppend(&out, "  no buffer conversions: every path is zero-copy\n");
  for (const FallbackRecord& f : p.fallbacks)
    absl::StrAppendFormat(&out, "  %s: partition #%d (op id %d) %s -> %s after %d attempt%s (%s): %s\n",
                          f.to == f.from ? "retried" : "fallback", f.step, f.op_id, f.from, f.to, f.attempts,
                          f.attempts == 1 ? "" : "s", f.failure, f.reason);
  return out;
}

}  // namespace tessera::cli
