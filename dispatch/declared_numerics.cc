#include "dispatch/declared_numerics.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/status_macros.h"

namespace tessera {

const char* PrecisionName(int32_t precision) {
  switch (precision) {
    case TSR_PRECISION_FP32:
      return "fp32";
    case TSR_PRECISION_FP16:
      return "fp16";
    case TSR_PRECISION_BF16:
      return "bf16";
    default:
      return "unknown";
  }
}

absl::StatusOr<DeclaredNumerics> QueryNumerics(const DeviceSession& session, tsr_executable executable) {
  DeclaredNumerics n;
  n.vendor = session.library().vendor;
  // A 1.0 library lacks it; the negotiated version decides, the table size
  // confirms.
  if (tsr_version_compare(session.library().version, tsr_version{1, 1}) < 0 ||
      !TSR_ABI_HAS(session.api(), tsr_dispatch_api, executable_numerics))
    return n;
  tsr_numerics out{};
  out.header = HostFilledHeader(sizeof(out), session.library().version);
  RETURN_IF_ERROR(session.Check(session.api()->executable_numerics(executable, &out), "executable_numerics"));
  // A declaration the runner cannot act on is the library's bug; say so
  // rather than silently comparing with a meaningless tolerance.
  if (!(out.relative_tolerance >= 0) || !(out.absolute_tolerance >= 0) || out.relative_tolerance > 1)
    return absl::FailedPreconditionError(absl::StrCat(n.vendor, ": executable_numerics declared tolerances rtol ",
                                                      out.relative_tolerance, ", atol ", out.absolute_tolerance,
                                                      " (need 0 <= rtol <= 1, atol >= 0)"));
  n.precision = out.float_precision;
  n.relative_tolerance = out.relative_tolerance;
  n.absolute_tolerance = out.absolute_tolerance;
  n.description = out.description != nullptr ? out.description : "";
  n.declared = true;
  return n;
}

std::string OutputTolerance::Describe() const {
  std::vector<std::string> parts;
  for (const DeclaredNumerics& n : reduced_by)
    parts.push_back(absl::StrFormat("%s ran %s: declared rtol %.3g, atol %.3g", n.vendor,
                                    absl::AsciiStrToUpper(PrecisionName(n.precision)), n.relative_tolerance,
                                    n.absolute_tolerance));
  return absl::StrJoin(parts, "; ");
}

OutputTolerance ToleranceFor(const Graph& compiled, const std::vector<DeclaredNumerics>& per_op, int32_t tensor,
                             double own_relative, double own_absolute) {
  OutputTolerance t{own_relative, own_absolute, {}, 0};
  // Longest path, forward: ops are topologically ordered.
  std::vector<int64_t> depth_of(compiled.tensors.size(), 0);
  for (const Op& op : compiled.ops) {
    int64_t in = 0;
    for (int32_t x : op.inputs)
      if (x >= 0 && static_cast<size_t>(x) < depth_of.size()) in = std::max(in, depth_of[x]);
    const int64_t own = op.dispatch && !op.dispatch->source_op_ids.empty()
                            ? static_cast<int64_t>(op.dispatch->source_op_ids.size())
                            : 1;
    for (int32_t x : op.outputs)
      if (x >= 0 && static_cast<size_t>(x) < depth_of.size()) depth_of[x] = in + own;
  }
  if (tensor >= 0 && static_cast<size_t>(tensor) < depth_of.size()) t.depth = depth_of[tensor];
  // Ops are topologically ordered: one backward sweep marks every op the
  // tensor depends on.
  std::vector<bool> needed(compiled.tensors.size(), false);
  if (tensor >= 0 && static_cast<size_t>(tensor) < needed.size()) needed[tensor] = true;
  std::set<std::string> seen;
  for (size_t o = compiled.ops.size(); o-- > 0;) {
    const Op& op = compiled.ops[o];
    if (std::none_of(op.outputs.begin(), op.outputs.end(), [&](int32_t x) { return x >= 0 && needed[x]; })) continue;
    for (int32_t in : op.inputs)
      if (in >= 0) needed[in] = true;
    if (o >= per_op.size() || !per_op[o].reduced()) continue;
    const DeclaredNumerics& n = per_op[o];
    t.relative = std::max(t.relative, n.relative_tolerance);
    t.absolute = std::max(t.absolute, n.absolute_tolerance);
    if (seen.insert(absl::StrCat(n.vendor, "/", n.precision)).second) t.reduced_by.push_back(n);
  }
  return t;
}

}  // namespace tessera
