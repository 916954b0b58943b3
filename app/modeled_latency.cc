#include "modeled_latency.h"

#include <algorithm>
#include <map>

#include "partition/plan_cost.h"
#include "partition/soc_cost_model.h"

namespace tessera::app {

RunProfile::ModeledLatency ModeledLatencyOf(const tessera::CompiledModel& model, const tessera::RunProfile& profile) {
  const Graph& source = model.source;
  if (model.summary.policy.empty() || model.plan.op_partition.size() != source.ops.size()) return {};
  absl::StatusOr<SocCostModel> parsed = SocCostModel::Parse(model.soc.description);
  const SocCostModel soc = parsed.ok() ? *std::move(parsed) : SocCostModel::Defaults("unreadable SoC description");
  const PlanCostModel costs(source, soc, model.summary.accelerators);
  std::map<uint32_t, size_t> op_index;
  for (size_t o = 0; o < source.ops.size(); ++o) op_index[source.ops[o].id] = o;

  RunProfile::ModeledLatency m;
  m.available = true;
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

}  // namespace tessera::app
