#include "cli/measured_latency.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_format.h"
#include "partition/plan_cost.h"
#include "partition/soc_cost_model.h"

namespace tessera::cli {

std::optional<MeasuredLatency> MeasureModeledLatency(const CompiledModel& model, const RunProfile& profile) {
  const Graph& source = model.source;
  if (model.summary.policy.empty() || model.plan.op_partition.size() != source.ops.size()) return std::nullopt;
  absl::StatusOr<SocCostModel> parsed = SocCostModel::Parse(model.soc.description);
  const SocCostModel soc = parsed.ok() ? *std::move(parsed) : SocCostModel::Defaults("unreadable SoC description");
  const PlanCostModel costs(source, soc, model.summary.accelerators);
  std::map<uint32_t, size_t> op_index;
  for (size_t o = 0; o < source.ops.size(); ++o) op_index[source.ops[o].id] = o;

  MeasuredLatency m;
  m.estimated_us = model.summary.cost.total_us();
  // Which memory each tensor of the executed graph lives in: its producing
  // step's vendor's (graph inputs: host).
  const Graph& ran = model.graph;
  std::map<int32_t, std::string> memory_of;
  std::map<uint32_t, const StepProfile*> step_of;
  for (const StepProfile& s : profile.steps) step_of[s.op_id] = &s;
  for (const Op& op : ran.ops) {
    if (!op.dispatch) continue;
    const kit::DispatchModel d = soc.Dispatch(op.dispatch->vendor);
    for (int32_t t : op.outputs) memory_of[t] = d.memory;
    auto it = step_of.find(op.id);
    if (it == step_of.end()) continue;  // did not run
    const StepProfile& step = *it->second;
    ++m.steps;
    m.dispatch_us += d.overhead_us;
    auto time = std::find_if(step.metrics.begin(), step.metrics.end(),
                             [](const StepProfile::Metric& x) { return x.name == "time_us"; });
    if (time != step.metrics.end()) {
      m.device_us += time->value;
      ++m.steps_with_device_time;
    } else {
      for (uint32_t id : step.source_op_ids)
        if (auto o = op_index.find(id); o != op_index.end()) m.device_us += costs.cpu_us(o->second);
    }
  }
  // Every tensor the executed graph passed between memory kinds, once per
  // destination kind.
  std::map<int32_t, std::vector<std::string>> readers;
  for (const Op& op : ran.ops) {
    if (!op.dispatch) continue;
    const std::string memory = soc.Dispatch(op.dispatch->vendor).memory;
    for (int32_t t : op.inputs)
      if (t >= 0 && !ran.tensors[t].is_constant) readers[t].push_back(memory);
  }
  for (int32_t t : ran.outputs) readers[t].push_back("host");
  for (auto& [t, to] : readers) {
    std::sort(to.begin(), to.end());
    to.erase(std::unique(to.begin(), to.end()), to.end());
    auto from = memory_of.find(t);
    const std::string& src = from == memory_of.end() ? std::string("host") : from->second;
    for (const std::string& dst : to) m.transfer_us += soc.TransferUs(src, dst, ran.tensors[t].byte_size());
  }
  return m;
}

void WriteMeasuredLatencyJson(const MeasuredLatency& m, JsonWriter& j) {
  j.BeginObject().Field("estimated_us", m.estimated_us).Field("measured_us", m.measured_us());
  j.Field("device_us", m.device_us).Field("dispatch_us", m.dispatch_us).Field("transfer_us", m.transfer_us);
  j.Field("measured_over_estimated", m.estimated_us > 0 ? m.measured_us() / m.estimated_us : 0.0);
  j.Field("steps", static_cast<uint64_t>(m.steps));
  j.Field("steps_with_device_time", static_cast<uint64_t>(m.steps_with_device_time)).EndObject();
}

std::string FormatMeasuredLatency(const MeasuredLatency& m) {
  return absl::StrFormat(
      "modelled latency of this run: estimated %.2f us, measured %.2f us (device %.2f + dispatch %.2f + transfer "
      "%.2f; device time from the plugin's metrics on %d of %d steps, the cpu model for the rest)\n",
      m.estimated_us, m.measured_us(), m.device_us, m.dispatch_us, m.transfer_us, m.steps_with_device_time, m.steps);
}

}  // namespace tessera::cli
