// How a plugin reports what it claims, on both claim paths of the ABI:
// claim_ops (1.2: the host's claim sink, op groups, flags) and the frozen
// partition array (1.0/1.1: exactly 40-byte tsr_op_support entries). A
// plugin decides once, into a ClaimSet, and hands it to whichever path the
// host called.
#ifndef TESSERA_PLUGINS_KIT_CLAIMS_H_
#define TESSERA_PLUGINS_KIT_CLAIMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/compiler_plugin.h"

namespace tessera::kit {

struct OpVerdict {
  bool supported = false;
  int32_t reason = TSR_REFUSAL_OTHER;  // NONE when supported
  std::string detail;                  // refusal text
  double estimated_time_us = -1;
  uint64_t estimated_cycles = 0;
  uint32_t flags = 0;                  // TSR_CLAIM_FLAG_*
};

struct ClaimSet {
  std::vector<OpVerdict> ops;               // one per op of the graph
  std::vector<std::vector<size_t>> groups;  // ops claimed as a unit
};

// 1.2: reports every verdict, then every group, through the host's sink.
absl::Status ReportClaims(const ClaimSet& claims, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink);

// 1.0/1.1: writes the frozen 40-byte entries. `texts` keeps the refusal
// texts alive (the ABI: until the next partition call or destroy). Groups
// cannot be expressed there; a member of a group is written as claimed
// only if the plugin would also run it alone (callers decide that).
absl::Status WriteLegacySupport(const ClaimSet& claims, tsr_op_support* out, std::vector<std::string>* texts);

// True when op `op` carries an attribute key that is not in `known`
// (sorted or not); 1.2 plugins refuse such ops instead of guessing. Reads
// through the 1.2 op_attr_count/op_attr_key members; a view without them
// has only 1.0 attributes, which `known` must then cover.
bool HasUnknownAttribute(const tsr_graph_view_api* view, tsr_graph graph, size_t op,
                         const std::vector<int32_t>& known, int32_t* out_key);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_CLAIMS_H_
