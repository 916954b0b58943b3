#include "cli/run_report.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "io/output_comparison.h"
#include "tessera/common.h"

namespace tessera::cli {

// One element reader for the reports and the comparison (io/output_comparison).
double ElementAsDouble(const HostTensor& t, int64_t i) { return TensorElementAsDouble(t, i); }

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
    j.BeginObject().Field("tensor", c.tensor_name).Field("from", BufferTypeName(c.from_type))
        .Field("to", BufferTypeName(c.to_type)).Field("bytes", c.bytes).Field("consumer", c.to_vendor)
        .Field("host_time_us", c.host_time_us).EndObject();
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
                          BufferTypeName(c.from_type), BufferTypeName(c.to_type), c.bytes, c.to_vendor, c.host_time_us);
  if (p.conversions.empty()) absl::StrAppend(&out, "  no buffer conversions: every path is zero-copy\n");
  return out;
}

}  // namespace tessera::cli
