// Control flow: If, Loop, Scan. The op set has no control flow, so these
// are resolved at import time: If is inlined when its condition folds to a
// constant (given the input shapes and any frozen inputs); Loop and Scan are
// unrolled when their trip count folds, up to kMaxTrips iterations. The
// subgraph's nodes are imported into the enclosing graph, seeing its names.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/compiler/onnx/import_diagnostics.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// Iterations of one unrolled Loop or Scan.
constexpr int64_t kMaxTrips = 1024;

// Restores the enclosing names and scope when a subgraph is done.
class Scope {
 public:
  Scope(ImportContext& ctx, const std::string& inner) : ctx_(ctx), names_(ctx.SaveNames()), scope_(ctx.scope()) {
    ctx.set_scope(absl::StrCat(scope_, inner, "/"));
  }
  ~Scope() {
    ctx_.RestoreNames(std::move(names_));
    ctx_.set_scope(scope_);
  }

 private:
  ImportContext& ctx_;
  std::map<std::string, int32_t> names_;
  std::string scope_;
};

absl::StatusOr<const onnx::GraphProto*> GraphAttr(const Node& n, const std::string& name) {
  const onnx::AttributeProto* a = n.Find(name);
  if (a == nullptr || !a->has_g())
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be a graph"));
  return &a->g();
}

absl::StatusOr<double> ConstantScalar(ImportContext& ctx, int32_t t, const std::string& what) {
  if (!ctx.RequireConstant(t)) return NotConstantError(ctx, t, what, " does not fold to a constant");
  return ctx.ConstScalar(t, what);
}

// Stacks per-iteration values along a new axis `axis` (reversed first when
// `reverse`).
absl::StatusOr<int32_t> StackValues(ImportContext& ctx, std::vector<int32_t> parts, int64_t axis, bool reverse) {
  if (parts.empty()) return Unsupported("a scan output of zero iterations");
  if (reverse) std::reverse(parts.begin(), parts.end());
  const int64_t rank = ctx.rank(parts[0]) + 1;
  ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
  std::vector<int32_t> in;
  for (int32_t p : parts) {
    if (ctx.shape(p) != ctx.shape(parts[0]) || ctx.dtype(p) != ctx.dtype(parts[0]))
      return Unsupported("a scan output whose shape or dtype changes between iterations");
    std::vector<int64_t> shape = ctx.shape(p);
    shape.insert(shape.begin() + axis, 1);
    ASSIGN_OR_RETURN(int32_t q, ctx.Reshape(p, shape));
    in.push_back(q);
  }
  if (in.size() == 1) return in[0];
  return ctx.Emit(TSR_OP_CONCAT, in, {{TSR_ATTR_AXIS, IntsAttr({axis})}});
}

Outputs If(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(int32_t cond, Required(n, 0));
  ASSIGN_OR_RETURN(double c, ConstantScalar(ctx, cond, "the If condition"));
  ASSIGN_OR_RETURN(const onnx::GraphProto* branch, GraphAttr(n, c != 0 ? "then_branch" : "else_branch"));
  Scope scope(ctx, c != 0 ? "then" : "else");
  ASSIGN_OR_RETURN(std::vector<int32_t> outs, ImportSubgraph(*branch, ctx));
  if (outs.size() != n.output_count())
    return absl::InvalidArgumentError(
        absl::StrCat("the taken branch has ", outs.size(), " outputs; the node has ", n.output_count()));
  return outs;
}

// Loop(M, cond, v_initial...) with body(i, cond_in, v_in...) -> (cond_out,
// v_out..., scan_out...).
Outputs Loop(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(const onnx::GraphProto* body, GraphAttr(n, "body"));
  const int64_t carried = static_cast<int64_t>(n.input_count()) - 2;
  if (carried < 0) return absl::InvalidArgumentError("Loop needs inputs M and cond (either may be empty)");
  if (body->input_size() != carried + 2 || body->output_size() < carried + 1)
    return absl::InvalidArgumentError(absl::StrCat("the body has ", body->input_size(), " inputs and ",
                                                   body->output_size(), " outputs for ", carried,
                                                   " loop-carried values"));
  const int64_t scans = body->output_size() - 1 - carried;
  if (static_cast<int64_t>(n.output_count()) > carried + scans)
    return absl::InvalidArgumentError("Loop has more outputs than the body makes");
  int64_t trips = -1;
  if (n.has_input(0)) {
    ASSIGN_OR_RETURN(double m, ConstantScalar(ctx, n.input(0), "the Loop trip count M"));
    if (std::isnan(m)) return absl::InvalidArgumentError("the Loop trip count M is NaN");
    trips = m < 0 ? 0 : static_cast<int64_t>(std::min<double>(m, 9.0e18));
  }
  bool running = true;
  if (n.has_input(1)) {
    ASSIGN_OR_RETURN(double c, ConstantScalar(ctx, n.input(1), "the Loop condition"));
    running = c != 0;
  } else if (trips < 0) {
    return Unsupported("a Loop with neither trip count nor condition (it never ends)");
  }
  if (trips > kMaxTrips)
    return Unsupported(absl::StrCat("a Loop of ", trips, " iterations (the unrolling limit is ", kMaxTrips, ")"));
  std::vector<int32_t> state;
  for (int64_t k = 0; k < carried; ++k) {
    ASSIGN_OR_RETURN(int32_t v, Required(n, static_cast<size_t>(k + 2)));
    state.push_back(v);
  }
  std::vector<std::vector<int32_t>> scan_parts(scans);
  const int32_t bool_dtype = TSR_DTYPE_BOOL;
  int64_t i = 0;
  for (; running && (trips < 0 || i < trips); ++i) {
    if (i >= kMaxTrips)
      return Unsupported(
          absl::StrCat("a Loop whose condition stays true past ", kMaxTrips, " iterations (the unrolling limit)"));
    Scope scope(ctx, absl::StrCat("iter", i));
    HostTensor iter;
    iter.dtype = TSR_DTYPE_I64;
    iter.data.resize(8);
    std::memcpy(iter.data.data(), &i, 8);
    ctx.Bind(body->input(0).name(), ctx.AddConstant(std::move(iter)));
    ctx.Bind(body->input(1).name(), ctx.Scalar(bool_dtype, running ? 1 : 0));
    for (int64_t k = 0; k < carried; ++k) ctx.Bind(body->input(static_cast<int>(k + 2)).name(), state[k]);
    ASSIGN_OR_RETURN(std::vector<int32_t> outs, ImportSubgraph(*body, ctx));
    ASSIGN_OR_RETURN(double c, ConstantScalar(ctx, outs[0], absl::StrCat("the Loop condition after iteration ", i)));
    running = c != 0;
    for (int64_t k = 0; k < carried; ++k) state[k] = outs[1 + k];
    for (int64_t k = 0; k < scans; ++k) scan_parts[k].push_back(outs[1 + carried + k]);
  }
  std::vector<int32_t> result = state;
  for (int64_t k = 0; k < scans; ++k) {
    if (!n.wants_output(static_cast<size_t>(carried + k))) {
      result.push_back(-1);
      continue;
    }
    ASSIGN_OR_RETURN(int32_t s, StackValues(ctx, scan_parts[k], 0, false));
    result.push_back(s);
  }
  return result;
}

// Unrolls a Scan body over `scan_in` sliced along `in_axes`; returns the
// final states, then the scan outputs stacked along `out_axes` (-1 where
// `wanted` is false).
Outputs Unscan(ImportContext& ctx, const onnx::GraphProto& body, std::vector<int32_t> state,
               const std::vector<int32_t>& scan_in, std::vector<int64_t> in_axes, const std::vector<int64_t>& in_dirs,
               const std::vector<int64_t>& out_axes, const std::vector<int64_t>& out_dirs,
               const std::vector<bool>& wanted) {
  const int64_t states = static_cast<int64_t>(state.size()), m = static_cast<int64_t>(scan_in.size());
  const int64_t scans = body.output_size() - states;
  int64_t trips = -1;
  for (int64_t k = 0; k < m; ++k) {
    ASSIGN_OR_RETURN(in_axes[k], NormalizeAxis(in_axes[k], ctx.rank(scan_in[k])));
    const int64_t len = ctx.shape(scan_in[k])[in_axes[k]];
    if (trips >= 0 && len != trips) return absl::InvalidArgumentError("scan inputs differ in sequence length");
    trips = len;
  }
  if (trips > kMaxTrips)
    return Unsupported(absl::StrCat("a Scan of ", trips, " iterations (the unrolling limit is ", kMaxTrips, ")"));
  std::vector<std::vector<int32_t>> parts(scans);
  for (int64_t i = 0; i < trips; ++i) {
    Scope scope(ctx, absl::StrCat("iter", i));
    for (int64_t k = 0; k < states; ++k) ctx.Bind(body.input(static_cast<int>(k)).name(), state[k]);
    for (int64_t k = 0; k < m; ++k) {
      const int64_t t = in_dirs[k] != 0 ? trips - 1 - i : i;
      ASSIGN_OR_RETURN(int32_t s, SliceOp(ctx, scan_in[k], {t}, {t + 1}, {in_axes[k]}, {1}));
      std::vector<int64_t> shape = ctx.shape(s);
      shape.erase(shape.begin() + in_axes[k]);
      ASSIGN_OR_RETURN(s, ctx.Reshape(s, shape));
      ctx.Bind(body.input(static_cast<int>(states + k)).name(), s);
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> outs, ImportSubgraph(body, ctx));
    for (int64_t k = 0; k < states; ++k) state[k] = outs[k];
    for (int64_t k = 0; k < scans; ++k) parts[k].push_back(outs[states + k]);
  }
  std::vector<int32_t> result = state;
  for (int64_t k = 0; k < scans; ++k) {
    if (!wanted[states + k]) {
      result.push_back(-1);
      continue;
    }
    ASSIGN_OR_RETURN(int32_t s, StackValues(ctx, parts[k], out_axes[k], out_dirs[k] != 0));
    result.push_back(s);
  }
  return result;
}

// Row b of `t` with axis 0 removed.
absl::StatusOr<int32_t> BatchRow(ImportContext& ctx, int32_t t, int64_t b) {
  if (ctx.rank(t) < 1) return absl::InvalidArgumentError("a Scan-8 input without a batch axis");
  ASSIGN_OR_RETURN(int32_t s, SliceOp(ctx, t, {b}, {b + 1}, {0}, {1}));
  return ctx.Reshape(s, std::vector<int64_t>(ctx.shape(t).begin() + 1, ctx.shape(t).end()));
}

// Scan-8: input 0 is sequence_lens, every other input has a leading batch
// axis, scan inputs then their time axis; the body runs per batch entry.
Outputs Scan8(ImportContext& ctx, const Node& n, const onnx::GraphProto& body, int64_t m) {
  const int64_t inputs = static_cast<int64_t>(n.input_count()) - 1;
  const int64_t states = inputs - m;
  const int64_t scans = body.output_size() - states;
  if (states < 0 || body.input_size() != inputs || scans < 0)
    return absl::InvalidArgumentError("the body's inputs and outputs do not match the Scan's");
  std::vector<int64_t> dirs = n.Ints("directions");
  if (dirs.empty()) dirs.assign(m, 0);
  if (static_cast<int64_t>(dirs.size()) != m)
    return absl::InvalidArgumentError("directions must have num_scan_inputs entries");
  std::vector<int32_t> all;
  for (int64_t k = 0; k < inputs; ++k) {
    ASSIGN_OR_RETURN(int32_t v, Required(n, static_cast<size_t>(k + 1)));
    if (ctx.rank(v) < (k < states ? 1 : 2))
      return absl::InvalidArgumentError("a Scan-8 input without batch (and time) axes");
    all.push_back(v);
  }
  if (all.empty()) return absl::InvalidArgumentError("Scan has no inputs");
  const int64_t batch = ctx.shape(all[0])[0];
  const int64_t steps = m > 0 ? ctx.shape(all[states])[1] : 0;
  if (n.has_input(0)) {
    ASSIGN_OR_RETURN(std::vector<int64_t> lens, ctx.ConstInts(n.input(0), "Scan sequence_lens"));
    for (int64_t l : lens)
      if (l != steps) return Unsupported("Scan-8 sequence_lens shorter than the sequence");
  }
  if (batch * std::max<int64_t>(steps, 1) > kMaxTrips)
    return Unsupported(
        absl::StrCat("a Scan of ", batch, " x ", steps, " iterations (the unrolling limit is ", kMaxTrips, ")"));
  std::vector<std::vector<int32_t>> per_output(states + scans);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int32_t> state, scan_in;
    for (int64_t k = 0; k < inputs; ++k) {
      if (ctx.shape(all[k])[0] != batch) return absl::InvalidArgumentError("Scan-8 inputs differ in batch size");
      ASSIGN_OR_RETURN(int32_t row, BatchRow(ctx, all[k], b));
      (k < states ? state : scan_in).push_back(row);
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> outs,
                     Unscan(ctx, body, state, scan_in, std::vector<int64_t>(m, 0), dirs, std::vector<int64_t>(scans, 0),
                            std::vector<int64_t>(scans, 0), std::vector<bool>(states + scans, true)));
    for (size_t k = 0; k < outs.size(); ++k) per_output[k].push_back(outs[k]);
  }
  std::vector<int32_t> result;
  for (int64_t k = 0; k < states + scans; ++k) {
    ASSIGN_OR_RETURN(int32_t s, StackValues(ctx, per_output[k], 0, false));
    result.push_back(s);
  }
  return result;
}

// Scan: N state inputs then M scan inputs, sliced along their scan axes;
// the body maps (state..., slice...) -> (state..., element...).
Outputs Scan(ImportContext& ctx, const Node& n) {
  ASSIGN_OR_RETURN(const onnx::GraphProto* body, GraphAttr(n, "body"));
  const int64_t m = n.Int("num_scan_inputs", -1);
  if (ctx.opset() < 9) {
    if (m < 1 || m >= static_cast<int64_t>(n.input_count()))
      return absl::InvalidArgumentError("num_scan_inputs must be in [1, number of inputs - 1]");
    return Scan8(ctx, n, *body, m);
  }
  const int64_t inputs = static_cast<int64_t>(n.input_count());
  if (m < 1 || m > inputs) return absl::InvalidArgumentError("num_scan_inputs must be in [1, number of inputs]");
  const int64_t states = inputs - m;
  const int64_t scans = body->output_size() - states;
  if (body->input_size() != inputs || scans < 0)
    return absl::InvalidArgumentError("the body's inputs and outputs do not match the Scan's");
  auto list = [&](const char* name, int64_t count) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> v = n.Ints(name);
    if (v.empty()) v.assign(count, 0);
    if (static_cast<int64_t>(v.size()) != count)
      return absl::InvalidArgumentError(absl::StrCat(name, " has ", v.size(), " entries, not ", count));
    return v;
  };
  ASSIGN_OR_RETURN(std::vector<int64_t> in_axes, list("scan_input_axes", m));
  ASSIGN_OR_RETURN(std::vector<int64_t> in_dirs, list("scan_input_directions", m));
  ASSIGN_OR_RETURN(std::vector<int64_t> out_axes, list("scan_output_axes", scans));
  ASSIGN_OR_RETURN(std::vector<int64_t> out_dirs, list("scan_output_directions", scans));
  std::vector<int32_t> state, scan_in;
  for (int64_t k = 0; k < inputs; ++k) {
    ASSIGN_OR_RETURN(int32_t v, Required(n, static_cast<size_t>(k)));
    (k < states ? state : scan_in).push_back(v);
  }
  std::vector<bool> wanted;
  for (int64_t k = 0; k < states + scans; ++k) wanted.push_back(n.wants_output(static_cast<size_t>(k)));
  return Unscan(ctx, *body, state, scan_in, in_axes, in_dirs, out_axes, out_dirs, wanted);
}

}  // namespace

void RegisterControlFlowConverters(ConverterTable& t) {
  t["If"] = If;
  t["Loop"] = Loop;
  t["Scan"] = Scan;
}

}  // namespace tessera::onnx_import
