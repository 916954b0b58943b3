#include "framework/compiler/report/partition_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/partition/partitioner.h"
#include "framework/compiler/partition/precision_policy.h"
#include "framework/core/base/dtype.h"
#include "tessera/ops.h"

namespace tessera {

namespace {

// Why partition `part` computes in `precision` (see ReportedPartition).
std::string PrecisionWhy(const CompiledGraph& model, const PlannedPartition& part, const std::string& precision) {
  const std::string& allowed = model.summary.precision;
  if (precision != "fp32")
    return absl::StrCat(part.vendor, " computes in ", precision, ", allowed by --precision ", allowed,
                        model.summary.precision_samples.empty()
                            ? std::string()
                            : absl::StrCat("; every range proven within FP16 on ", model.summary.precision_samples));
  // The distinct precision refusals of its ops, by the accelerators above it.
  std::vector<std::string> kept_out;
  for (int32_t o : part.ops)
    for (const Refusal& ref : RefusalsOf(model.claims, o, part.accelerator))
      if (ref.claim.reason == kRefusalPrecision &&
          std::find(kept_out.begin(), kept_out.end(), ref.claim.detail.str()) == kept_out.end())
        kept_out.push_back(ref.claim.detail.str());
  if (!kept_out.empty()) return absl::StrJoin(kept_out, "; ");
  return absl::StrCat(part.vendor, " computes in fp32");
}

}  // namespace

PartitionReport BuildPartitionReport(const CompiledGraph& model) {
  const Graph& g = model.source;
  const PartitionPlan& plan = model.plan;
  PartitionReport r;
  r.accelerators = model.accelerators;
  r.mode = CompileModeName(model.mode);
  r.soc = model.soc.name;
  r.op_count = g.ops.size();
  // A model compiled elsewhere was not partitioned here: nothing to report.
  if (plan.op_partition.size() != g.ops.size() || plan.placements.size() != g.ops.size()) return r;
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    ReportedPartition rp;
    rp.index = static_cast<int32_t>(p);
    rp.vendor = plan.partitions[p].vendor;
    const int32_t pa = plan.partitions[p].accelerator;
    rp.mode = CompileModeName(
        pa >= 0 && static_cast<size_t>(pa) < model.accelerator_modes.size() ? model.accelerator_modes[pa] : model.mode);
    for (int32_t o : plan.partitions[p].ops) {
      rp.op_ids.push_back(g.ops[o].id);
      rp.op_types.push_back(OpTypeName(g.ops[o].type));
    }
    const int32_t a = plan.partitions[p].accelerator;
    if (a >= 0 && static_cast<size_t>(a) < model.summary.accelerators.size())
      rp.memory = model.summary.accelerators[a].memory;
    if (p < model.summary.cost.partitions.size()) {
      const PartitionCost& pc = model.summary.cost.partitions[p];
      rp.flops = pc.work_ops;
      rp.compute_us = pc.compute_us;
      rp.dispatch_us = pc.dispatch_us;
      rp.whole_partition_estimate = pc.whole_partition_estimate;
    }
    rp.precision = a >= 0 && static_cast<size_t>(a) < model.claims.size()
                       ? PartitionPrecision(model.claims[a], plan.partitions[p].ops)
                       : "fp32";
    rp.precision_why = PrecisionWhy(model, plan.partitions[p], rp.precision);
    r.partitions.push_back(std::move(rp));
  }
  // Cuts: a tensor produced in one unit and read in another (or by the app).
  const std::vector<int32_t> producer = g.ProducerIndex();
  std::map<std::pair<int32_t, int32_t>, bool> seen;  // (tensor, consumer partition)
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const int32_t to = plan.op_partition[o];
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0 || g.tensors[t].is_constant) continue;
      const int32_t from_op = producer[t];
      const int32_t from = from_op >= 0 ? plan.op_partition[from_op] : -2;  // -2 = app input
      const uint64_t bytes = g.tensors[t].byte_size();
      if (from == to && from_op >= 0) continue;
      if (!seen.emplace(std::make_pair(t, to), true).second) continue;
      if (to >= 0) r.partitions[to].input_bytes += bytes;
      if (from_op < 0) continue;  // app inputs are not cuts
      if (from >= 0) r.partitions[from].output_bytes += bytes;
      ReportedCut cut{g.tensors[t].name,
                      bytes,
                      from,
                      to,
                      from >= 0 ? plan.partitions[from].vendor : "dispatch",
                      to >= 0 ? plan.partitions[to].vendor : "dispatch"};
      r.cut_bytes += bytes;
      r.cuts.push_back(std::move(cut));
    }
  }
  for (int32_t t : g.outputs) {
    const int32_t from_op = producer[t];
    if (from_op >= 0 && plan.op_partition[from_op] >= 0)
      r.partitions[plan.op_partition[from_op]].output_bytes += g.tensors[t].byte_size();
  }
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const OpPlacement& place = plan.placements[o];
    if (place.accelerator <= 0) continue;  // DISPATCH, or the first accelerator took it: no refusal
    ReportedPlacement rp{g.ops[o].id, OpTypeName(g.ops[o].type), model.accelerators[place.accelerator], {}};
    // The claims the plan came from hold them (RefusalsOf).
    for (const Refusal& ref : RefusalsOf(model.claims, o, place.accelerator))
      rp.refused_by.push_back({ref.vendor, RefusalReasonName(ref.claim.reason), ref.claim.detail});
    r.fallbacks.push_back(std::move(rp));
  }
  std::map<std::tuple<std::string, std::string, std::string>, size_t> group_of;
  for (const ReportedPlacement& f : r.fallbacks) {
    std::vector<std::string> why;
    for (const ReportedRefusal& ref : f.refused_by) why.push_back(absl::StrCat(ref.vendor, ": ", ref.reason));
    auto key = std::make_tuple(f.op_type, f.vendor, absl::StrJoin(why, "; "));
    auto [it, fresh] = group_of.emplace(key, r.fallback_groups.size());
    if (fresh) r.fallback_groups.push_back({f.op_type, f.vendor, std::get<2>(key), {}});
    r.fallback_groups[it->second].op_ids.push_back(f.op_id);
  }
  r.compile_fallbacks = model.fallbacks;
  const PlanSummary& s = model.summary;
  r.policy = s.policy;
  r.precision = s.precision;
  r.precision_samples = s.precision_samples;
  r.chosen = s.chosen;
  r.modeled_latency_us = s.cost.total_us();
  r.modeled_latency_us_cpu_only = s.cpu_only_us;
  r.modeled_latency_us_greedy = s.greedy_us;
  r.compute_us = s.cost.compute_us;
  r.dispatch_us = s.cost.dispatch_us;
  r.transfer_us = s.cost.transfer_us;
  for (const ModeledConversion& c : s.cost.conversions)
    r.conversions.push_back(
        {g.tensors[c.tensor].name, s.cost.memories[c.from_memory], s.cost.memories[c.to_memory], c.bytes, c.us});
  r.cost_notes = s.cost_notes;
  r.timings.claims_ms = model.timings.claims_ms;
  r.timings.partition_ms = model.timings.partition_ms;
  r.timings.compile_ms = model.timings.compile_ms;
  return r;
}

size_t PartitionReport::fallback_op_count() const {
  std::set<uint32_t> ops;
  for (const ReportedPlacement& f : fallbacks) ops.insert(f.op_id);
  for (const FallbackNote& f : compile_fallbacks) ops.insert(f.op_ids.begin(), f.op_ids.end());
  return ops.size();
}

void WritePartitionReportJson(const PartitionReport& r, JsonWriter& j) {
  j.BeginObject();
  j.Key("accelerators").BeginArray();
  for (const std::string& a : r.accelerators) j.String(a);
  j.EndArray();
  j.Field("mode", r.mode).Field("soc", r.soc).Field("op_count", static_cast<uint64_t>(r.op_count));
  j.Field("partition_count", static_cast<uint64_t>(r.partitions.size()));
  j.Field("cut_count", static_cast<uint64_t>(r.cuts.size())).Field("cut_bytes", r.cut_bytes);
  j.Key("partitions").BeginArray();
  for (const ReportedPartition& p : r.partitions) {
    j.BeginObject().Field("index", p.index).Field("vendor", p.vendor);
    j.Key("op_ids").BeginArray();
    for (uint32_t id : p.op_ids) j.Int(id);
    j.EndArray().Key("op_types").BeginArray();
    for (const std::string& t : p.op_types) j.String(t);
    j.EndArray().Field("input_bytes", p.input_bytes).Field("output_bytes", p.output_bytes);
    j.Field("memory", p.memory).Field("flops", p.flops).Field("compute_us", p.compute_us);
    j.Field("dispatch_us", p.dispatch_us).Field("whole_partition_estimate", p.whole_partition_estimate);
    j.Field("mode", p.mode);
    j.Field("precision", p.precision).Field("precision_why", p.precision_why).EndObject();  // appended last
  }
  j.EndArray().Key("cuts").BeginArray();
  for (const ReportedCut& c : r.cuts)
    j.BeginObject()
        .Field("tensor", c.tensor)
        .Field("bytes", c.bytes)
        .Field("from_partition", c.from_partition)
        .Field("to_partition", c.to_partition)
        .Field("from_vendor", c.from_vendor)
        .Field("to_vendor", c.to_vendor)
        .EndObject();
  j.EndArray().Key("fallbacks").BeginArray();
  for (const ReportedPlacement& f : r.fallbacks) {
    j.BeginObject().Field("op_id", f.op_id).Field("op_type", f.op_type).Field("vendor", f.vendor);
    j.Key("refused_by").BeginArray();
    for (const ReportedRefusal& ref : f.refused_by)
      j.BeginObject().Field("vendor", ref.vendor).Field("reason", ref.reason).Field("detail", ref.detail).EndObject();
    j.EndArray().EndObject();
  }
  j.EndArray().Key("compile_fallbacks").BeginArray();
  for (const FallbackNote& f : r.compile_fallbacks) {
    j.BeginObject().Field("vendor", f.vendor).Field("reason", f.reason).Key("op_ids").BeginArray();
    for (uint32_t id : f.op_ids) j.Int(id);
    j.EndArray().EndObject();
  }
  j.EndArray().Key("fallback_groups").BeginArray();
  for (const ReportedFallbackGroup& f : r.fallback_groups) {
    j.BeginObject().Field("op_type", f.op_type).Field("vendor", f.vendor).Field("reasons", f.reasons);
    j.Field("count", static_cast<uint64_t>(f.op_ids.size())).Key("op_ids").BeginArray();
    for (uint32_t id : f.op_ids) j.Int(id);
    j.EndArray().EndObject();
  }
  j.EndArray();
  j.Field("precision", r.precision).Field("precision_samples", r.precision_samples);
  j.Field("policy", r.policy).Field("chosen", r.chosen).Field("modeled_latency_us", r.modeled_latency_us);
  j.Field("modeled_latency_us_cpu_only", r.modeled_latency_us_cpu_only);
  j.Field("modeled_latency_us_greedy", r.modeled_latency_us_greedy);
  j.Field("compute_us", r.compute_us).Field("dispatch_us", r.dispatch_us).Field("transfer_us", r.transfer_us);
  j.Key("conversions").BeginArray();
  for (const ReportedConversion& c : r.conversions)
    j.BeginObject()
        .Field("tensor", c.tensor)
        .Field("from_memory", c.from_memory)
        .Field("to_memory", c.to_memory)
        .Field("bytes", c.bytes)
        .Field("us", c.us)
        .EndObject();
  j.EndArray().Key("cost_notes").BeginArray();
  for (const std::string& n : r.cost_notes) j.String(n);
  j.EndArray().Key("timings_ms").BeginObject();
  if (r.timings.load_ms >= 0) j.Field("load", r.timings.load_ms);
  j.Field("claims", r.timings.claims_ms)
      .Field("partition", r.timings.partition_ms)
      .Field("compile", r.timings.compile_ms);
  j.EndObject().EndObject();
}

std::string FormatPartitionReport(const PartitionReport& r) {
  std::string out =
      absl::StrFormat("partitioning: %d ops -> %d partitions, %d cuts (%d bytes cross), mode %s, SoC %s\n", r.op_count,
                      r.partitions.size(), r.cuts.size(), r.cut_bytes, r.mode, r.soc.empty() ? "(default)" : r.soc);
  absl::StrAppend(&out, "accelerators (priority order): ", absl::StrJoin(r.accelerators, ", "), "\n");
  if (!r.precision.empty())
    absl::StrAppend(&out, "precision: ", r.precision,
                    r.precision_samples.empty() ? "" : absl::StrCat(" (ranges from ", r.precision_samples, ")"), "\n");
  for (const ReportedPartition& p : r.partitions) {
    std::map<std::string, int> counts;
    for (const std::string& t : p.op_types) ++counts[t];
    std::vector<std::string> parts;
    for (const auto& [t, n] : counts) parts.push_back(n > 1 ? absl::StrCat(t, "x", n) : t);
    absl::StrAppendFormat(&out, "  #%-3d %-13s %3d ops  in %8d B  out %8d B  [%s]\n", p.index, p.vendor,
                          p.op_ids.size(), p.input_bytes, p.output_bytes, absl::StrJoin(parts, " "));
    // A partition compiled in another mode than the model's (a JIT-only
    // accelerator in an AOT compile) says so.
    if (!p.mode.empty() && p.mode != r.mode) out.insert(out.size() - 1, absl::StrCat("  (", p.mode, ")"));
    if (!p.precision.empty()) absl::StrAppend(&out, "       precision ", p.precision, ": ", p.precision_why, "\n");
  }
  if (!r.fallback_groups.empty()) {
    absl::StrAppend(&out, "ops refused by a higher-priority accelerator (grouped by op type and reason):\n");
    for (const ReportedFallbackGroup& f : r.fallback_groups) {
      std::vector<std::string> ids;
      for (size_t i = 0; i < f.op_ids.size() && i < 6; ++i) ids.push_back(absl::StrCat(f.op_ids[i]));
      if (f.op_ids.size() > 6) ids.push_back("...");
      absl::StrAppendFormat(&out, "  %4dx %-16s -> %-12s %s  (op %s)\n", f.op_ids.size(), f.op_type, f.vendor,
                            f.reasons, absl::StrJoin(ids, ","));
    }
    // Each distinct refusal text once, with the op types that share it;
    // long texts are cut in the text form (the JSON keeps them whole).
    std::vector<std::pair<std::string, std::vector<std::string>>> details;  // "vendor: detail" -> op types
    std::map<std::string, size_t> index_of;
    for (const ReportedPlacement& f : r.fallbacks)
      for (const ReportedRefusal& ref : f.refused_by) {
        if (ref.detail.empty()) continue;
        const std::string key = absl::StrCat(ref.vendor, ": ", ref.detail);
        auto [it, fresh] = index_of.emplace(key, details.size());
        if (fresh) details.push_back({key, {}});
        std::vector<std::string>& types = details[it->second].second;
        if (std::find(types.begin(), types.end(), f.op_type) == types.end()) types.push_back(f.op_type);
      }
    constexpr size_t kMaxDetail = 150;
    for (const auto& [text, types] : details) {
      const std::string shown = text.size() > kMaxDetail ? absl::StrCat(text.substr(0, kMaxDetail), "...") : text;
      absl::StrAppendFormat(&out, "        [%s] %s\n", absl::StrJoin(types, " "), shown);
    }
  }
  for (const FallbackNote& f : r.compile_fallbacks)
    absl::StrAppendFormat(&out, "compile fallback: %s gave up %d ops: %s\n", f.vendor, f.op_ids.size(), f.reason);
  if (!r.policy.empty()) {
    absl::StrAppendFormat(&out,
                          "modelled latency (policy %s%s): %.2f us = compute %.2f + dispatch %.2f + transfer %.2f "
                          "(%d conversions)\n",
                          r.policy, r.policy == "cost" ? absl::StrCat(", kept ", r.chosen) : "", r.modeled_latency_us,
                          r.compute_us, r.dispatch_us, r.transfer_us, r.conversions.size());
    auto baseline = [](double us) { return us < 0 ? std::string("n/a") : absl::StrFormat("%.2f us", us); };
    absl::StrAppendFormat(&out, "  baselines: cpu only %s, greedy %s\n", baseline(r.modeled_latency_us_cpu_only),
                          baseline(r.modeled_latency_us_greedy));
    for (const std::string& n : r.cost_notes) absl::StrAppend(&out, "  note: ", n, "\n");
  }
  return out;
}

}  // namespace tessera
