#include "framework/cli/build_stamp_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/terminal_text.h"

namespace tessera::cli {

void WriteBuildStampJson(const app::ModelSummary::BuildStamp& s, JsonWriter& j) {
  if (!s.present) {
    j.Null();
    return;
  }
  j.BeginObject().Field("sdk_version", s.sdk_version).Field("soc", s.soc)
      .Field("soc_description_sha256", s.soc_description_sha256).Field("mode", s.mode).Key("accelerators").BeginArray();
  for (const std::string& a : s.accelerators) j.String(a);
  j.EndArray().Key("options").BeginObject();
  for (const auto& [k, v] : s.options) j.Field(k, v);
  j.EndObject().Field("partition_policy", s.partition_policy).Field("min_ops", s.min_ops)
      .Field("max_partitions", s.max_partitions).Key("vendors").BeginArray();
  for (const app::ModelSummary::BuildStamp::Vendor& v : s.vendors)
    j.BeginObject().Field("vendor", v.vendor).Field("plugin_version", v.plugin_version).Field("build_id", v.build_id)
        .Field("abi_version", v.abi_version).Field("compatibility", v.compatibility).EndObject();
  j.EndArray();
  // Only when ops were left for JIT, so the stamp of an all-AOT model
  // reads as it always did.
  if (!s.left_for_jit.empty()) {
    j.Key("left_for_jit").BeginArray();
    for (const app::ModelSummary::BuildStamp::LeftForJit& l : s.left_for_jit) {
      j.BeginObject().Field("vendor", l.vendor).Key("op_ids").BeginArray();
      for (uint32_t id : l.op_ids) j.Int(id);
      j.EndArray().EndObject();
    }
    j.EndArray();
  }
  j.EndObject();
}

std::string FormatBuildStamp(const app::ModelSummary::BuildStamp& s) {
  if (!s.present) return "";
  std::vector<std::string> options;
  for (const auto& [k, v] : s.options) options.push_back(absl::StrCat(k, "=", v));
  std::string out = absl::StrCat(
      "  build stamp: tessera ", s.sdk_version, ", ", s.mode, ", SoC ", s.soc.empty() ? "(none)" : s.soc,
      " (description sha256 ", s.soc_description_sha256.empty() ? "(none)" : s.soc_description_sha256, ")\n",
      "    accelerators ", absl::StrJoin(s.accelerators, ","), ", policy ", s.partition_policy, " (min-ops ", s.min_ops,
      ", max-partitions ", s.max_partitions, "), options ", options.empty() ? "(none)" : absl::StrJoin(options, " "),
      "\n");
  for (const app::ModelSummary::BuildStamp::Vendor& v : s.vendors)
    absl::StrAppend(&out, "    vendor ", v.vendor, ": plugin ", v.plugin_version, ", build ",
                    v.build_id.empty() ? "(none)" : v.build_id, ", ABI ", v.abi_version, "\n      compatibility ",
                    v.compatibility.empty() ? "(none)" : v.compatibility, "\n");
  for (const app::ModelSummary::BuildStamp::LeftForJit& l : s.left_for_jit)
    absl::StrAppend(&out, "    left for JIT: ", l.vendor, " ops ", absl::StrJoin(l.op_ids, ","),
                    " (plain ops: a load JIT-compiles them)\n");
  return TerminalSafe(out, TerminalLayout::kText);
}

}  // namespace tessera::cli
