#include "framework/app/modeled_latency.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "framework/compiler/partition/plan_cost.h"
#include "framework/compiler/partition/soc_cost_model.h"

namespace tessera::app {

RunLatencyModel::RunLatencyModel(const tessera::CompiledGraph& model) {
  const Graph& source = model.source;
  if (model.summary.policy.empty() || model.plan.op_partition.size() != source.ops.size()) return;
  absl::StatusOr<SocCostModel> parsed = SocCostModel::Parse(model.soc.description);
  const SocCostModel soc = parsed.ok() ? *std::move(parsed) : SocCostModel::Defaults("unreadable SoC description");
  const PlanCostModel costs(source, soc, model.summary.accelerators);
  std::map<uint32_t, size_t> op_index;
  for (size_t o = 0; o < source.ops.size(); ++o) op_index[source.ops[o].id] = o;

  available_ = true;
  estimated_us_ = model.summary.cost.total_us();
  // Which memory each tensor of the executed graph lives in: its producing
  // step's vendor's (graph inputs: host); and what each step costs.
  const Graph& ran = model.graph;
  std::map<int32_t, std::string> memory_of;
  std::map<int32_t, std::vector<std::string>> readers;
  for (const Op& op : ran.ops) {
    if (!op.dispatch) continue;
    const kit::DispatchModel d = soc.Dispatch(op.dispatch->vendor);
    for (int32_t t : op.outputs) memory_of[t] = d.memory;
    for (int32_t t : op.inputs)
      if (t >= 0 && !ran.tensors[t].is_constant) readers[t].push_back(d.memory);
    StepCost& step = steps_[op.id];
    step.overhead_us = d.overhead_us;
    for (uint32_t id : op.dispatch->source_op_ids)
      if (auto o = op_index.find(id); o != op_index.end()) step.cpu_us += costs.cpu_us(o->second);
  }
  // Every tensor the executed graph passes between memory kinds, once per
  // destination kind.
  for (int32_t t : ran.outputs) readers[t].push_back("host");
  for (auto& [t, to] : readers) {
    std::sort(to.begin(), to.end());
    to.erase(std::unique(to.begin(), to.end()), to.end());
    auto from = memory_of.find(t);
    const std::string& src = from == memory_of.end() ? std::string("host") : from->second;
    for (const std::string& dst : to) transfer_us_ += soc.TransferUs(src, dst, ran.tensors[t].byte_size());
  }
}

RunProfile::ModeledLatency RunLatencyModel::Of(const tessera::ExecutionProfile& profile) const {
  if (!available_) return {};
  RunProfile::ModeledLatency m;
  m.available = true;
  m.estimated_us = estimated_us_;
  m.transfer_us = transfer_us_;
  // A step that ran more than once (a retry) is priced once, by its last record.
  std::unordered_map<uint32_t, const StepProfile*> last;
  for (const StepProfile& s : profile.steps) last[s.op_id] = &s;
  for (const auto& [op_id, s] : last) {
    auto cost = steps_.find(op_id);
    if (cost == steps_.end()) continue;  // not a step of this graph
    ++m.steps;
    m.dispatch_us += cost->second.overhead_us;
    auto time = std::find_if(s->metrics.begin(), s->metrics.end(),
                             [](const StepProfile::Metric& x) { return x.name == "time_us"; });
    if (time != s->metrics.end()) {
      m.device_us += time->value;
      ++m.steps_with_device_time;
    } else {
      m.device_us += cost->second.cpu_us;
    }
  }
  return m;
}

}  // namespace tessera::app
