#include "framework/cli/run_report.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/element_value.h"
#include "tessera/common.h"

namespace tessera::cli {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) { return absl::StrJoin(shape, ","); }

}  // namespace

TensorSummary Summarize(const app::Tensor& t) {
  TensorSummary s;
  const size_t size = DTypeSize(t.info().dtype);
  s.elements = size == 0 ? 0 : static_cast<int64_t>(t.info().byte_size() / size);
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

void WriteOutputsJson(const std::vector<app::Tensor>& outputs, JsonWriter& j, size_t max_values) {
  j.BeginArray();
  for (const app::Tensor& t : outputs) {
    const TensorSummary s = Summarize(t);
    j.BeginObject().Field("name", t.info().name).Field("dtype", DTypeName(t.info().dtype)).Key("shape").BeginArray();
    for (int64_t d : t.info().shape) j.Int(d);
    j.EndArray().Field("elements", s.elements).Field("min", s.min).Field("max", s.max).Field("mean", s.mean)
        .Field("has_nan", s.has_nan);
    j.Key("values").BeginArray();
    for (int64_t i = 0; i < s.elements && static_cast<size_t>(i) < max_values; ++i) j.Number(ElementAsDouble(t, i));
    j.EndArray().Field("truncated", static_cast<size_t>(s.elements) > max_values).EndObject();
  }
  j.EndArray();
}

void WriteProfileJson(const app::RunProfile& p, JsonWriter& j) {
  j.Field("total_us", p.total_us);
  uint64_t conversion_bytes = 0;
  double conversion_us = 0;
  for (const app::RunProfile::Conversion& c : p.conversions) {
    conversion_bytes += c.bytes;
    conversion_us += c.host_time_us;
  }
  j.Field("conversion_bytes", conversion_bytes).Field("conversion_us", conversion_us);
  j.Key("partitions").BeginArray();
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const app::RunProfile::Step& s = p.steps[i];
    j.BeginObject().Field("index", static_cast<uint64_t>(i)).Field("op_id", s.op_id).Field("vendor", s.vendor)
        .Field("entry_point", s.entry_point).Field("host_time_us", s.host_time_us).Field("start_us", s.start_us)
        .Key("source_op_ids").BeginArray();
    for (uint32_t id : s.source_op_ids) j.Int(id);
    j.EndArray().Key("metrics").BeginObject();
    for (const app::RunProfile::Metric& m : s.metrics) j.Field(m.name, m.value);
    j.EndObject().Key("metric_units").BeginObject();
    for (const app::RunProfile::Metric& m : s.metrics) j.Field(m.name, m.unit);
    j.EndObject().Key("numerics").BeginObject().Field("precision", s.numerics.precision)
        .Field("rtol", s.numerics.rtol).Field("atol", s.numerics.atol)
        .Field("description", s.numerics.description).Field("declared", s.numerics.declared).EndObject();
    // Appended last: "aot" ran from bytecode, "jit" from an in-memory handle.
    j.Field("mode", s.mode).EndObject();
  }
  j.EndArray().Key("conversions").BeginArray();
  for (const app::RunProfile::Conversion& c : p.conversions)
    j.BeginObject().Field("tensor", c.tensor).Field("from", c.from_name).Field("to", c.to_name).Field("bytes", c.bytes)
        .Field("consumer", c.to_vendor).Field("host_time_us", c.host_time_us).Field("start_us", c.start_us)
        .Field("kind", c.kind).Field("from_layout", c.from_layout).Field("to_layout", c.to_layout).Field("via", c.via)
        .EndObject();
  j.EndArray().Key("fallbacks").BeginArray();
  for (const app::RunProfile::Fallback& f : p.fallbacks)
    j.BeginObject().Field("partition", static_cast<uint64_t>(f.partition)).Field("op_id", f.op_id).Field("vendor", f.from)
        .Field("from", f.from).Field("to", f.to).Field("failure", f.failure).Field("reason", f.reason)
        .Field("attempts", f.attempts).EndObject();
  j.EndArray();
}

std::string FormatOutputs(const std::vector<app::Tensor>& outputs, size_t max_values) {
  std::string out;
  for (const app::Tensor& t : outputs) {
    const TensorSummary s = Summarize(t);
    absl::StrAppendFormat(&out, "output '%s' %s [%s]  min %.6g  max %.6g  mean %.6g%s\n", t.info().name,
                          DTypeName(t.info().dtype), ShapeText(t.info().shape), s.min, s.max, s.mean,
                          s.has_nan ? "  (contains NaN)" : "");
    std::vector<std::string> values;
    for (int64_t i = 0; i < s.elements && static_cast<size_t>(i) < max_values; ++i)
      values.push_back(absl::StrFormat("%.6g", ElementAsDouble(t, i)));
    absl::StrAppend(&out, "  [", absl::StrJoin(values, ", "), static_cast<size_t>(s.elements) > max_values ? ", ..." : "", "]\n");
  }
  return out;
}

std::string FormatProfile(const app::RunProfile& p) {
  std::string out = absl::StrFormat("run: %.1f us total\n", p.total_us);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const app::RunProfile::Step& s = p.steps[i];
    std::vector<std::string> metrics;
    for (const app::RunProfile::Metric& m : s.metrics)
      metrics.push_back(absl::StrFormat("%s=%.6g%s%s", m.name, m.value, m.unit.empty() ? "" : " ", m.unit));
    if (s.numerics.reduced)
      metrics.insert(metrics.begin(), absl::StrFormat("[%s, declared rtol %.3g atol %.3g]", s.numerics.precision,
                                                      s.numerics.rtol, s.numerics.atol));
    absl::StrAppendFormat(&out, "  partition #%-3d %-13s %4d ops  %10.1f us  %s\n", i, s.vendor, s.source_op_ids.size(),
                          s.host_time_us, absl::StrJoin(metrics, " "));
  }
  for (const app::RunProfile::Conversion& c : p.conversions)
    absl::StrAppendFormat(&out, "  conversion '%s' %s -> %s  %d bytes for %s  %.1f us%s\n", c.tensor, c.from_name,
                          c.to_name, c.bytes, c.to_vendor, c.host_time_us,
                          c.kind == "copy" ? "" : absl::StrCat("  ", c.kind, " ", c.from_layout, " -> ", c.to_layout,
                                                               c.via == "host" ? "" : " by " + c.via));
  if (p.conversions.empty()) absl::StrAppend(&out, "  no buffer conversions: every path is zero-copy\n");
  for (const app::RunProfile::Fallback& f : p.fallbacks)
    absl::StrAppendFormat(&out, "  %s: partition #%d (op id %d) %s -> %s after %d attempt%s (%s): %s\n",
                          f.to == f.from ? "retried" : "fallback", f.partition, f.op_id, f.from, f.to, f.attempts,
                          f.attempts == 1 ? "" : "s", f.failure, f.reason);
  return out;
}

void WriteProfileSummaryJson(const app::ProfileSummary& s, JsonWriter& j) {
  j.BeginObject().Field("total_us", s.total_us).Key("devices").BeginArray();
  for (const app::ProfileSummary::Device& d : s.devices)
    j.BeginObject().Field("vendor", d.vendor).Field("steps", static_cast<uint64_t>(d.steps)).Field("host_us", d.host_us)
        .Field("modeled_us", d.modeled_us).Field("cycles", d.cycles).EndObject();
  j.EndArray().Field("conversions", static_cast<uint64_t>(s.conversions)).Field("conversion_bytes", s.conversion_bytes);
  j.Field("conversion_us", s.conversion_us).Field("runtime_us", s.runtime_us);
  j.Field("modeled_transfer_share", s.modeled_transfer_share).Field("modeled_dispatch_share", s.modeled_dispatch_share);
  j.Key("top").BeginArray();
  for (const app::ProfileSummary::Step& t : s.top)
    j.BeginObject().Field("partition", static_cast<uint64_t>(t.partition)).Field("vendor", t.vendor).Field("ops", t.ops)
        .Field("host_us", t.host_us).Field("share", t.share).EndObject();
  j.EndArray().Field("verdict", s.verdict).EndObject();
}

void WriteModeledLatencyJson(const app::RunProfile::ModeledLatency& m, JsonWriter& j) {
  j.BeginObject().Field("estimated_us", m.estimated_us).Field("measured_us", m.measured_us());
  j.Field("device_us", m.device_us).Field("dispatch_us", m.dispatch_us).Field("transfer_us", m.transfer_us);
  j.Field("measured_over_estimated", m.estimated_us > 0 ? m.measured_us() / m.estimated_us : 0.0);
  j.Field("steps", static_cast<uint64_t>(m.steps));
  j.Field("steps_with_device_time", static_cast<uint64_t>(m.steps_with_device_time)).EndObject();
}

std::string FormatModeledLatency(const app::RunProfile::ModeledLatency& m) {
  return absl::StrFormat(
      "modelled latency of this run: estimated %.2f us, measured %.2f us (device %.2f + dispatch %.2f + transfer "
      "%.2f; device time from the plugin's metrics on %d of %d steps, the cpu model for the rest)\n",
      m.estimated_us, m.measured_us(), m.device_us, m.dispatch_us, m.transfer_us, m.steps_with_device_time, m.steps);
}

void WriteNonFiniteJson(const app::RunProfile& p, JsonWriter& j) {
  j.Key("nonfinite").BeginObject().Field("checked", p.nonfinite_checked).Field("inputs_finite", p.inputs_finite);
  j.Field("from_finite_inputs", p.nonfinite_from_finite_inputs()).Key("outputs").BeginArray();
  for (const app::RunProfile::NonFinite& n : p.nonfinite_outputs)
    j.BeginObject()
        .Field("index", static_cast<uint64_t>(n.output))
        .Field("name", n.name)
        .Field("nan", n.nan_count)
        .Field("inf", n.inf_count)
        .EndObject();
  j.EndArray().EndObject();
}

namespace {

std::string NonFiniteList(const app::RunProfile& p) {
  std::vector<std::string> what;
  for (const app::RunProfile::NonFinite& n : p.nonfinite_outputs)
    what.push_back(absl::StrFormat("'%s' holds %d NaN and %d Inf", n.name, n.nan_count, n.inf_count));
  return absl::StrJoin(what, "; ");
}

}  // namespace

std::string FormatNonFinite(const app::RunProfile& p) {
  if (p.nonfinite_outputs.empty()) return "";
  return absl::StrCat("non-finite outputs: ", NonFiniteList(p),
                      p.inputs_finite ? " (every input was finite: the model or an accelerator made them)"
                                      : " (some input was not finite)",
                      "\n");
}

absl::Status CheckNonFinite(const app::RunProfile& p, const char* flag) {
  if (!p.nonfinite_from_finite_inputs()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(flag, ": non-finite outputs from finite inputs: ", NonFiniteList(p)));
}

}  // namespace tessera::cli
