#include "plugins/kit/claims.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tessera::kit {

absl::Status ReportClaims(const ClaimSet& claims, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  if (!TSR_ABI_HAS(sink_api, tsr_claim_sink_api, report_op))
    return absl::InvalidArgumentError("claim_ops: the host's claim sink has no report_op");
  for (size_t i = 0; i < claims.ops.size(); ++i) {
    const OpVerdict& v = claims.ops[i];
    tsr_op_claim c{};
    c.header = {sizeof(c), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    c.supported = v.supported ? 1 : 0;
    c.reason = v.supported ? TSR_REFUSAL_NONE : v.reason;
    c.reason_detail = v.supported || v.detail.empty() ? nullptr : v.detail.c_str();
    c.estimated_time_us = v.estimated_time_us;
    c.estimated_cycles = v.estimated_cycles;
    c.flags = v.flags;
    const tsr_status s = sink_api->report_op(sink, i, &c);
    if (s != TSR_OK) return absl::InternalError(absl::StrCat("claim sink refused the report for op ", i, " (status ", s, ")"));
  }
  if (claims.groups.empty()) return absl::OkStatus();
  if (!TSR_ABI_HAS(sink_api, tsr_claim_sink_api, add_group))
    return absl::InvalidArgumentError("claim_ops: the host's claim sink has no add_group");
  for (const std::vector<size_t>& g : claims.groups) {
    const tsr_status s = sink_api->add_group(sink, g.data(), g.size());
    if (s != TSR_OK) return absl::InternalError(absl::StrCat("claim sink refused a group of ", g.size(), " ops (status ", s, ")"));
  }
  return absl::OkStatus();
}

absl::Status WriteLegacySupport(const ClaimSet& claims, tsr_op_support* out, std::vector<std::string>* texts) {
  if (out == nullptr) return absl::InvalidArgumentError("partition: out_support is NULL");
  texts->assign(claims.ops.size(), std::string());
  for (size_t i = 0; i < claims.ops.size(); ++i) {
    const OpVerdict& v = claims.ops[i];
    (*texts)[i] = v.supported ? "" : v.detail;
    // The stride is exactly 40 bytes for every plugin that speaks 1.0/1.1:
    // that is the frozen tsr_op_support. Members are written only where
    // the host's struct_size covers them.
    tsr_op_support& s = out[i];
    const uint32_t size = s.header.struct_size;
    if (size >= offsetof(tsr_op_support, supported) + sizeof(s.supported)) s.supported = v.supported ? 1 : 0;
    if (size >= offsetof(tsr_op_support, reason) + sizeof(s.reason)) s.reason = v.supported ? TSR_REFUSAL_NONE : v.reason;
    if (size >= offsetof(tsr_op_support, reason_detail) + sizeof(s.reason_detail))
      s.reason_detail = v.supported || (*texts)[i].empty() ? nullptr : (*texts)[i].c_str();
    if (size >= offsetof(tsr_op_support, estimated_time_us) + sizeof(s.estimated_time_us))
      s.estimated_time_us = v.estimated_time_us;
    if (size >= offsetof(tsr_op_support, estimated_cycles) + sizeof(s.estimated_cycles))
      s.estimated_cycles = v.estimated_cycles;
  }
  return absl::OkStatus();
}

bool HasUnknownAttribute(const tsr_graph_view_api* view, tsr_graph graph, size_t op,
                         const std::vector<int32_t>& known, int32_t* out_key) {
  if (!TSR_ABI_HAS(view, tsr_graph_view_api, op_attr_count) || !TSR_ABI_HAS(view, tsr_graph_view_api, op_attr_key))
    return false;
  const size_t n = view->op_attr_count(graph, op);
  for (size_t i = 0; i < n; ++i) {
    const int32_t key = view->op_attr_key(graph, op, i);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      if (out_key != nullptr) *out_key = key;
      return true;
    }
  }
  return false;
}

}  // namespace tessera::kit
