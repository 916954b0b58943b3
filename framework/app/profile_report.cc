// The profile summary, its verdict, and the Chrome trace.
#include "tessera/app/profile_report.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/json_writer.h"

namespace tessera::app {
namespace {

// A step is called fragmented when more than half of the run goes to
// moving data and dispatching rather than to the ops.
constexpr double kFragmentedShare = 0.5;

double MetricSum(const RunProfile::Step& s, const char* name) {
  double sum = 0;
  for (const RunProfile::Metric& m : s.metrics)
    if (m.name == name) sum += m.value;
  return sum;
}

// Op types by source op id, from the partition report (a precompiled
// model has none: its steps are named by op id).
std::map<uint32_t, std::string> OpTypes(const CompiledModel& model) {
  std::map<uint32_t, std::string> types;
  for (const PartitionReport::Partition& p : model.partition_report().partitions)
    for (size_t i = 0; i < p.op_ids.size() && i < p.op_types.size(); ++i) types[p.op_ids[i]] = p.op_types[i];
  return types;
}

std::string StepOps(const RunProfile::Step& s, const std::map<uint32_t, std::string>& types) {
  std::vector<std::string> names;
  for (uint32_t id : s.source_op_ids) {
    auto it = types.find(id);
    names.push_back(it != types.end() ? it->second : absl::StrCat("op ", id));
  }
  constexpr size_t kShown = 6;
  if (names.size() > kShown) {
    const size_t more = names.size() - kShown;
    names.resize(kShown);
    names.push_back(absl::StrCat("+", more, " more"));
  }
  return names.empty() ? std::string("(no ops)") : absl::StrJoin(names, ", ");
}

std::string Verdict(const ProfileSummary& s, size_t steps) {
  if (steps == 0) return "nothing ran: the model has no steps";
  const double host_overhead = s.total_us > 0 ? (s.conversion_us + s.runtime_us) / s.total_us : 0;
  const double modeled_overhead =
      s.modeled_transfer_share >= 0 ? s.modeled_transfer_share + s.modeled_dispatch_share : -1;
  if (steps > 1 && (modeled_overhead > kFragmentedShare || host_overhead > kFragmentedShare)) {
    std::string why =
        modeled_overhead > kFragmentedShare
            ? absl::StrFormat("transfers and dispatch overhead are %.0f%% of the modelled run", 100 * modeled_overhead)
            : absl::StrFormat("conversions and the runtime's copies are %.0f%% of the host time", 100 * host_overhead);
    return absl::StrFormat(
        "fragmented: %s across %d partitions; try --policy cost, or look at the cuts with `tessera partition MODEL "
        "--html FILE`",
        why, steps);
  }
  const ProfileSummary::Device& top = s.devices.front();
  std::string out = absl::StrFormat("compute-bound on %s: %.0f%% of the host time", top.vendor,
                                    s.total_us > 0 ? 100 * top.host_us / s.total_us : 0);
  if (!s.top.empty())
    absl::StrAppendFormat(&out, "; the largest step is partition #%d (%s), %.0f%%", s.top.front().partition,
                          s.top.front().ops, 100 * s.top.front().share);
  return out;
}

}  // namespace

ProfileSummary SummarizeProfile(const RunProfile& profile, const CompiledModel& model, size_t top_steps) {
  ProfileSummary s;
  s.total_us = profile.total_us;
  const std::map<uint32_t, std::string> types = OpTypes(model);
  double in_steps = 0;
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const RunProfile::Step& step = profile.steps[i];
    auto device = std::find_if(s.devices.begin(), s.devices.end(),
                               [&](const ProfileSummary::Device& d) { return d.vendor == step.vendor; });
    if (device == s.devices.end()) device = s.devices.insert(s.devices.end(), {step.vendor});
    ++device->steps;
    device->host_us += step.host_time_us;
    device->modeled_us += MetricSum(step, "time_us");
    device->cycles += MetricSum(step, "cycles_total");
    in_steps += step.host_time_us;
    s.top.push_back({i, step.vendor, StepOps(step, types), step.host_time_us,
                     profile.total_us > 0 ? step.host_time_us / profile.total_us : 0});
  }
  std::stable_sort(
      s.devices.begin(), s.devices.end(),
      [](const ProfileSummary::Device& a, const ProfileSummary::Device& b) { return a.host_us > b.host_us; });
  std::stable_sort(s.top.begin(), s.top.end(),
                   [](const ProfileSummary::Step& a, const ProfileSummary::Step& b) { return a.host_us > b.host_us; });
  if (s.top.size() > top_steps) s.top.resize(top_steps);
  for (const RunProfile::Conversion& c : profile.conversions) {
    ++s.conversions;
    s.conversion_bytes += c.bytes;
    s.conversion_us += c.host_time_us;
  }
  s.runtime_us = std::max(0.0, profile.total_us - in_steps - s.conversion_us);
  if (profile.modeled.available && profile.modeled.measured_us() > 0) {
    s.modeled_transfer_share = profile.modeled.transfer_us / profile.modeled.measured_us();
    s.modeled_dispatch_share = profile.modeled.dispatch_us / profile.modeled.measured_us();
  }
  s.verdict = Verdict(s, profile.steps.size());
  return s;
}

std::string FormatProfileSummary(const ProfileSummary& s) {
  const auto share = [&](double us) { return s.total_us > 0 ? 100 * us / s.total_us : 0.0; };
  std::string out = absl::StrFormat("profile: %.1f us host time\n", s.total_us);
  absl::StrAppendFormat(&out, "  %-14s %6s %12s %7s %16s %14s\n", "device", "steps", "host us", "share",
                        "modelled dev us", "cycles");
  for (const ProfileSummary::Device& d : s.devices)
    absl::StrAppendFormat(&out, "  %-14s %6d %12.1f %6.1f%% %16s %14s\n", d.vendor, d.steps, d.host_us,
                          share(d.host_us), d.modeled_us > 0 ? absl::StrFormat("%.2f", d.modeled_us) : "-",
                          d.cycles > 0 ? absl::StrFormat("%.0f", d.cycles) : "-");
  absl::StrAppendFormat(&out, "  %-14s %6d %12.1f %6.1f%%   %d bytes\n", "conversions", s.conversions, s.conversion_us,
                        share(s.conversion_us), s.conversion_bytes);
  absl::StrAppendFormat(&out, "  %-14s %6s %12.1f %6.1f%%   inputs in, outputs out, bookkeeping\n", "runtime", "",
                        s.runtime_us, share(s.runtime_us));
  if (s.modeled_transfer_share >= 0)
    absl::StrAppendFormat(&out, "  modelled run: transfers %.1f%%, dispatch overhead %.1f%%\n",
                          100 * s.modeled_transfer_share, 100 * s.modeled_dispatch_share);
  if (!s.top.empty()) absl::StrAppend(&out, "  top steps:\n");
  for (const ProfileSummary::Step& t : s.top)
    absl::StrAppendFormat(&out, "    partition #%-3d %-13s %10.1f us %6.1f%%  %s\n", t.partition, t.vendor, t.host_us,
                          100 * t.share, t.ops);
  absl::StrAppend(&out, "  verdict: ", s.verdict, "\n");
  return out;
}

std::string ChromeTraceJson(const RunProfile& profile, const CompiledModel& model) {
  const std::map<uint32_t, std::string> types = OpTypes(model);
  // One host track per device in order of first appearance; a modelled
  // device-time track beside each device that reports it; conversions last.
  std::vector<std::string> vendors;
  std::vector<bool> modeled;
  for (const RunProfile::Step& s : profile.steps) {
    auto it = std::find(vendors.begin(), vendors.end(), s.vendor);
    if (it == vendors.end()) {
      vendors.push_back(s.vendor);
      modeled.push_back(false);
      it = vendors.end() - 1;
    }
    if (MetricSum(s, "time_us") > 0) modeled[it - vendors.begin()] = true;
  }
  const auto host_tid = [&](const std::string& v) {
    return static_cast<uint64_t>(std::find(vendors.begin(), vendors.end(), v) - vendors.begin()) * 2 + 1;
  };
  const uint64_t conversion_tid = vendors.size() * 2 + 1;
  constexpr uint64_t kPid = 1;

  JsonWriter j;
  j.BeginObject().Key("traceEvents").BeginArray();
  const auto meta = [&](const char* what, uint64_t tid, const std::string& name, uint64_t order) {
    j.BeginObject().Field("name", what).Field("ph", "M").Field("pid", kPid).Field("tid", tid);
    j.Key("args").BeginObject().Field("name", name).EndObject().EndObject();
    j.BeginObject().Field("name", "thread_sort_index").Field("ph", "M").Field("pid", kPid).Field("tid", tid);
    j.Key("args").BeginObject().Field("sort_index", order).EndObject().EndObject();
  };
  j.BeginObject().Field("name", "process_name").Field("ph", "M").Field("pid", kPid).Field("tid", uint64_t{0});
  j.Key("args")
      .BeginObject()
      .Field("name", profile.tag.empty() ? std::string("tessera run") : "tessera run: " + profile.tag)
      .EndObject()
      .EndObject();
  for (size_t v = 0; v < vendors.size(); ++v) {
    meta("thread_name", host_tid(vendors[v]), vendors[v] + " (host time)", 2 * v);
    if (modeled[v]) meta("thread_name", host_tid(vendors[v]) + 1, vendors[v] + " (modelled device time)", 2 * v + 1);
  }
  if (!profile.conversions.empty()) meta("thread_name", conversion_tid, "conversions", conversion_tid);

  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const RunProfile::Step& s = profile.steps[i];
    const std::string name = absl::StrCat("#", i, " ", StepOps(s, types));
    const auto args = [&] {
      j.Key("args").BeginObject().Field("partition", static_cast<uint64_t>(i)).Field("op_id", s.op_id);
      j.Field("entry_point", s.entry_point).Field("ops", static_cast<uint64_t>(s.source_op_ids.size()));
      for (const RunProfile::Metric& m : s.metrics) j.Field(m.name, m.value);
      j.EndObject();
    };
    j.BeginObject().Field("name", name).Field("cat", "partition").Field("ph", "X").Field("ts", s.start_us);
    j.Field("dur", s.host_time_us).Field("pid", kPid).Field("tid", host_tid(s.vendor));
    args();
    j.EndObject();
    if (const double device_us = MetricSum(s, "time_us"); device_us > 0) {
      j.BeginObject().Field("name", name).Field("cat", "modelled").Field("ph", "X").Field("ts", s.start_us);
      j.Field("dur", device_us).Field("pid", kPid).Field("tid", host_tid(s.vendor) + 1);
      args();
      j.EndObject();
    }
  }
  for (const RunProfile::Conversion& c : profile.conversions) {
    j.BeginObject()
        .Field("name", absl::StrCat(c.tensor, ": ", c.from_name, " -> ", c.to_name))
        .Field("cat", "conversion");
    j.Field("ph", "X")
        .Field("ts", c.start_us)
        .Field("dur", c.host_time_us)
        .Field("pid", kPid)
        .Field("tid", conversion_tid);
    j.Key("args")
        .BeginObject()
        .Field("bytes", c.bytes)
        .Field("consumer", c.to_vendor)
        .Field("kind", c.kind)
        .Field("from_layout", c.from_layout)
        .Field("to_layout", c.to_layout)
        .Field("via", c.via)
        .EndObject()
        .EndObject();
  }
  for (const RunProfile::Fallback& f : profile.fallbacks) {
    const double ts = f.partition < profile.steps.size() ? profile.steps[f.partition].start_us : 0;
    j.BeginObject()
        .Field("name", absl::StrCat(f.to == f.from ? "retried on " : "fell back to ", f.to))
        .Field("cat", "fallback")
        .Field("ph", "i")
        .Field("s", "t")
        .Field("ts", ts)
        .Field("pid", kPid)
        .Field("tid", host_tid(f.from));
    j.Key("args").BeginObject().Field("failure", f.failure).Field("reason", f.reason).Field("attempts", f.attempts);
    j.EndObject().EndObject();
  }
  j.EndArray().Field("displayTimeUnit", "ns");
  j.Key("otherData").BeginObject().Field("total_us", profile.total_us).EndObject();
  j.EndObject();
  return j.str();
}

}  // namespace tessera::app
