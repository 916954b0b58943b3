#include "framework/compiler/partition/policy_planner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <optional>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/partition/boundary_moves.h"
#include "framework/compiler/partition/claim_overlay.h"
#include "framework/compiler/partition/partition_gain.h"
#include "framework/compiler/partition/partitioner.h"
#include "framework/core/base/fixed_decimal.h"
#include "framework/core/base/status_macros.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

constexpr int kMaxRounds = 8;
constexpr size_t kFewPartitions = 16;  // see Evaluate

// What one PlanWithPolicy call shares between its candidates: the caller's
// claims, the vendor names, and the texts of every withdrawal made.

struct Context {
  const PlanCostModel& model;
  const std::vector<AcceleratorClaims>& input;
  std::vector<std::string> vendors;
  WithdrawalReasons reasons;
  ClaimOverlay root;  // the caller's claims, nothing withdrawn
  // The op memories of the candidate being read (MemoriesOf): one buffer
  // for all of them, refilled from its placement (a sequential pass), so
  // no candidate keeps 4 bytes per op of its own and no step allocates.
  mutable std::vector<int32_t> memory;
};

// A candidate plans with its claims' placement but without refusals: only
// the plan the policy keeps shows them, so they are recorded once, at the
// end (see PlanWithPolicy), instead of per candidate.
//
// Its cost holds the totals alone unless `per_partition` was asked for:
// the per-partition and per-conversion lists are the kept plan's report,
// and the search reads only totals (the gains sum their own figures). The
// kept plan's lists are filled at the end (FullCost).
struct Candidate {
  ClaimOverlay claims;
  std::vector<int32_t> accelerators;  // per op; the plan's placements stay empty until it is kept
  PartitionPlan plan;
  PlanCost cost;
  bool per_partition = false;  // cost.partitions and cost.conversions are filled
};

// The memory each op of a candidate runs in, in the context's buffer:
// valid until the next call.
std::span<const int32_t> MemoriesOf(const Context& ctx, std::span<const int32_t> accelerators) {
  ctx.model.OpMemories(accelerators, &ctx.memory);
  return ctx.memory;
}

absl::StatusOr<Candidate> Evaluate(const Context& ctx, ClaimOverlay claims, bool per_partition = false) {
  const Graph& g = ctx.model.graph();
  std::vector<int32_t> accelerators;
  if (!claims.Place(&accelerators)) {
    // An op nobody claims: the error names every refusal, so build it from
    // the full claims (a failing candidate is rare and never kept).
    std::vector<OpPlacement> placements;
    absl::Status placed = PlaceOps(g, claims.Materialize(ctx.reasons), &placements);
    return placed.ok() ? absl::InternalError("claim overlay and claims disagree on a placement") : placed;
  }
  absl::StatusOr<PartitionPlan> plan = GroupPlacedOps(ctx.model.operands(), accelerators, ctx.vendors);
  if (!plan.ok()) return plan.status();
  // Costs read the claims of the accelerators that run each op, which no
  // withdrawal touched: the caller's own.
  // A plan of a handful of partitions keeps its lists: they are short (its
  // conversions cross the few cuts and the graph's edges), and the pass
  // over the tensors that fills them is not then made twice if it is kept.
  // Not a plan with many: the dag's greedy plan has one partition per 17
  // ops but a conversion for most of its cut tensors.
  per_partition = per_partition || plan->partitions.size() <= kFewPartitions;
  PlanCost cost = ctx.model.Cost(*plan, claims.base(), nullptr, MemoriesOf(ctx, accelerators), per_partition);
  return Candidate{std::move(claims), std::move(accelerators), *std::move(plan), std::move(cost), per_partition};
}

// The kept candidate's cost with its per-partition and conversion lists.
PlanCost FullCost(const Context& ctx, Candidate& c) {
  if (c.per_partition) return std::move(c.cost);
  return ctx.model.Cost(c.plan, c.claims.base(), nullptr, MemoriesOf(ctx, c.accelerators), true);
}

// Frees a candidate's plan, placement and costs (its claims are shared).
void Release(Candidate& c) {
  c.accelerators = {};
  c.plan = {};
  c.cost = {};
}

bool IsFallback(const PlanCostModel& model, const PlannedPartition& part) {
  return model.accelerators()[part.accelerator].fallback;
}

// Takes the ops of partition `part` back from its accelerator.
void Withdraw(ClaimOverlay& claims, const PlannedPartition& part, int32_t reason) {
  for (int32_t o : part.ops) claims.Withdraw(static_cast<size_t>(part.accelerator), o, reason);
}

// The detail of an edge op moved to the cpu, as GainDetail for each move.
std::string MoveDetail(const BoundaryMove& m, const std::string& vendor) {
  std::string s;
  s.reserve(160);
  s = "an edge op of its partition: ";
  AppendFixed(&s, m.here_us, 2);
  absl::StrAppend(&s, " us on ", vendor, " (device time and the transfers it causes) against ");
  AppendFixed(&s, m.cpu_us, 2);
  s += " us on the cpu";
  return s;
}

// The partitions --min-ops and --max-partitions send back, least gain first.
std::vector<size_t> OverLimits(const PlanCostModel& model, const PartitionPlan& plan, const std::vector<Gain>& gains,
                               const PolicyOptions& options, std::vector<std::string>* why) {
  std::vector<size_t> out;
  std::vector<size_t> accelerated;
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const PlannedPartition& part = plan.partitions[p];
    if (IsFallback(model, part)) continue;
    if (options.min_ops > 0 && part.ops.size() < static_cast<size_t>(options.min_ops)) {
      out.push_back(p);
      why->push_back(absl::StrCat("partition of ", part.ops.size(), " ops on ", part.vendor, " is below --min-ops ",
                                  options.min_ops));
    } else {
      accelerated.push_back(p);
    }
  }
  // The partition count is judged on the plan without them (the next round).
  if (!out.empty()) return out;
  if (options.max_partitions > 0 && plan.partitions.size() > static_cast<size_t>(options.max_partitions)) {
    std::stable_sort(accelerated.begin(), accelerated.end(),
                     [&](size_t a, size_t b) { return gains[a].gain() < gains[b].gain(); });
    // Each partition given back removes itself and may merge its two cpu
    // neighbours (two fewer): giving back half the excess, rounded up,
    // removes one more than the excess needs at most.
    const size_t excess = plan.partitions.size() - static_cast<size_t>(options.max_partitions);
    const size_t give_back = (excess + 1) / 2;
    for (size_t i = 0; i < accelerated.size() && i < give_back; ++i) {
      out.push_back(accelerated[i]);
      why->push_back(absl::StrFormat("over --max-partitions %d: this partition gains least (%.2f us)",
                                     options.max_partitions, gains[accelerated[i]].gain()));
    }
  }
  return out;
}

bool Constrained(const PolicyOptions& options) { return options.min_ops > 0 || options.max_partitions > 0; }

// Applies --min-ops and --max-partitions to a plan, planning again until
// both hold (everything on the fallback always satisfies them).
absl::StatusOr<Candidate> Constrain(Context& ctx, Candidate c, const PolicyOptions& options) {
  if (!Constrained(options)) return c;
  GainModel gains(ctx.model);
  for (int round = 0; round < 4 * kMaxRounds; ++round) {
    std::vector<std::string> why;
    const std::vector<size_t> drop = OverLimits(
        ctx.model, c.plan, gains.Of(c.plan, MemoriesOf(ctx, c.accelerators), c.claims.base()), options, &why);
    if (drop.empty()) return c;
    ClaimOverlay claims = c.claims;
    for (size_t i = 0; i < drop.size(); ++i)
      Withdraw(claims, c.plan.partitions[drop[i]], ctx.reasons.Add(kRefusalPolicy, std::move(why[i])));
    absl::StatusOr<Candidate> next = Evaluate(ctx, std::move(claims));
    if (!next.ok()) return next.status();
    c = *std::move(next);
  }
  return absl::InternalError("--min-ops/--max-partitions did not converge");
}

// Every claim of an accelerator other than the fallback withdrawn.
ClaimOverlay CpuOnly(Context& ctx, int32_t code, std::string detail) {
  ClaimOverlay claims = ctx.root;
  const int32_t reason = ctx.reasons.Add(code, std::move(detail));
  for (size_t a = 0; a < ctx.input.size(); ++a) {
    if (ctx.model.accelerators()[a].fallback) continue;
    const size_t n = ctx.input[a].claims.size();
    for (size_t o = 0; o < n; ++o)
      if (claims.supported(a, o)) claims.Withdraw(a, static_cast<int32_t>(o), reason);
  }
  return claims;
}

// The cost policy's search, from the greedy plan. Each round tries two
// steps and keeps the one that models faster, if either improves on the
// plan: give back every partition that does not pay for itself (all at
// once; if that models slower, because neighbours interact, only the
// worst), and move every edge op that models cheaper on the cpu (all at
// once, else only the best). It stops when neither step helps. Returns
// nullopt when no round improved on `start` (the plan stays start's, and
// is not copied).
absl::StatusOr<std::optional<Candidate>> Refine(Context& ctx, const Candidate& start, const PolicyOptions& options,
                                                int* rounds) {
  const PlanCostModel& model = ctx.model;
  GainModel gains_of(model);
  GiveBackReasons give_back_reasons(ctx.reasons);
  std::optional<Candidate> current;
  for (*rounds = 0; *rounds < kMaxRounds; ++*rounds) {
    const Candidate& c = current.has_value() ? *current : start;
    const std::vector<Gain> gains = gains_of.Of(c.plan, MemoriesOf(ctx, c.accelerators), c.claims.base());
    std::vector<size_t> losing;
    for (size_t p = 0; p < c.plan.partitions.size(); ++p)
      if (!IsFallback(model, c.plan.partitions[p]) && gains[p].gain() <= 0) losing.push_back(p);
    const std::vector<BoundaryMove> moves =
        ProfitableBoundaryMoves(model, c.plan, c.claims.base(), MemoriesOf(ctx, c.accelerators));
    if (losing.empty() && moves.empty()) break;
    auto give_back = [&](const std::vector<size_t>& drop) -> absl::StatusOr<Candidate> {
      ClaimOverlay claims = c.claims;
      for (size_t p : drop)
        Withdraw(claims, c.plan.partitions[p], give_back_reasons.For(c.plan.partitions[p], gains[p]));
      absl::StatusOr<Candidate> next = Evaluate(ctx, std::move(claims));
      if (!next.ok()) return next.status();
      return Constrain(ctx, *std::move(next), options);
    };
    auto move = [&](size_t count) -> absl::StatusOr<Candidate> {
      ClaimOverlay claims = c.claims;
      for (size_t i = 0; i < count; ++i) {
        const BoundaryMove& m = moves[i];
        const int32_t a = c.plan.partitions[c.plan.op_partition[m.op]].accelerator;
        claims.Withdraw(static_cast<size_t>(a), m.op,
                        ctx.reasons.Add(kRefusalNotProfitable, MoveDetail(m, ctx.vendors[a])));
      }
      absl::StatusOr<Candidate> next = Evaluate(ctx, std::move(claims));
      if (!next.ok()) return next.status();
      return Constrain(ctx, *std::move(next), options);
    };
    std::vector<Candidate> tries;
    auto consider = [&](absl::StatusOr<Candidate> t) -> absl::Status {
      if (!t.ok()) return t.status();
      if (t->cost.total_us() < c.cost.total_us()) tries.push_back(*std::move(t));
      return absl::OkStatus();
    };
    if (!losing.empty()) {
      RETURN_IF_ERROR(consider(give_back(losing)));
      if (tries.empty()) {
        const size_t worst = *std::min_element(losing.begin(), losing.end(),
                                               [&](size_t a, size_t b) { return gains[a].gain() < gains[b].gain(); });
        RETURN_IF_ERROR(consider(give_back({worst})));
      }
    }
    // Edge moves cost another planning round: try them when giving back
    // did not help, or when their local gains promise more than it did.
    double move_gain = 0;
    for (const BoundaryMove& m : moves) move_gain += m.gain_us();
    const double given_back = tries.empty() ? 0 : c.cost.total_us() - tries.front().cost.total_us();
    if (!moves.empty() && (tries.empty() || move_gain > given_back)) {
      const size_t before = tries.size();
      RETURN_IF_ERROR(consider(move(moves.size())));
      if (tries.size() == before && moves.size() > 1) RETURN_IF_ERROR(consider(move(1)));
    }
    if (tries.empty()) break;
    auto best = std::min_element(tries.begin(), tries.end(), [](const Candidate& x, const Candidate& y) {
      return x.cost.total_us() < y.cost.total_us();
    });
    Candidate next = std::move(*best);  // `c` may be *current: move out of tries first
    current = std::move(next);
  }
  return current;
}

// The cost policy's plan of a sub-list of the accelerators: every claim of
// the accelerators left out withdrawn (one reason, whose text is written
// if the plan is kept), then greedy and the search as for the whole list.
// Its placement is the one the sub-list alone would give (the claims are
// the same, in the same order), so the kept plan of a list is never
// modelled slower than that of any list it contains.
struct SubsetPlan {
  Candidate plan;
  int32_t reason = -1;
  std::string left_out;  // "npu" or "npu and dsp"
};

constexpr char kSubsetChoice[] = "subset";  // never reported: the kept subset plan is "cost"
// Every sub-list of up to this many accelerators (besides the fallback)
// is searched: 2^n - 2 more searches. With more, only the lists that
// leave one out or keep one.
constexpr size_t kAllSubsetsUpTo = 4;

// Accelerators other than the fallback that claim at least one op.
std::vector<size_t> Claimants(const Context& ctx) {
  std::vector<size_t> out;
  for (size_t a = 0; a < ctx.input.size(); ++a) {
    if (ctx.model.accelerators()[a].fallback) continue;
    const size_t n = ctx.input[a].claims.size();
    for (size_t o = 0; o < n; ++o)
      if (ctx.root.supported(a, o)) {
        out.push_back(a);
        break;
      }
  }
  return out;
}

// The sub-lists searched, as masks over Claimants: never empty (that is
// the cpu baseline) nor whole (the main search).
std::vector<uint32_t> SubsetMasks(size_t n) {
  std::vector<uint32_t> masks;
  if (n < 2) return masks;
  const uint32_t whole = (1u << std::min<size_t>(n, 31)) - 1;
  if (n <= kAllSubsetsUpTo) {
    for (uint32_t m = whole - 1; m > 0; --m) masks.push_back(m);
    return masks;
  }
  for (size_t i = 0; i < n && i < 31; ++i) masks.push_back(whole & ~(1u << i));
  for (size_t i = 0; i < n && i < 31; ++i) masks.push_back(1u << i);
  return masks;
}

template <typename FinalUs>
absl::StatusOr<std::optional<SubsetPlan>> BestSubsetPlan(Context& ctx, const PolicyOptions& options,
                                                         const FinalUs& final_us) {
  const std::vector<size_t> claimants = Claimants(ctx);
  std::optional<SubsetPlan> best;
  double best_us = 0;
  for (uint32_t mask : SubsetMasks(claimants.size())) {
    std::vector<std::string> left_out;
    for (size_t i = 0; i < claimants.size(); ++i)
      if ((mask & (1u << i)) == 0) left_out.push_back(ctx.vendors[claimants[i]]);
    const int32_t reason = ctx.reasons.Add(kRefusalNotProfitable, "");
    ClaimOverlay claims = ctx.root;
    for (size_t i = 0; i < claimants.size(); ++i) {
      if ((mask & (1u << i)) != 0) continue;
      const size_t a = claimants[i];
      const size_t n = ctx.input[a].claims.size();
      for (size_t o = 0; o < n; ++o)
        if (claims.supported(a, o)) claims.Withdraw(a, static_cast<int32_t>(o), reason);
    }
    absl::StatusOr<Candidate> greedy = Evaluate(ctx, std::move(claims));
    if (!greedy.ok()) return greedy.status();
    absl::StatusOr<Candidate> start = Constrain(ctx, *std::move(greedy), options);
    if (!start.ok()) return start.status();
    int rounds = 0;
    absl::StatusOr<std::optional<Candidate>> refined = Refine(ctx, *start, options, &rounds);
    if (!refined.ok()) return refined.status();
    // As for the whole list: the refined plan, else the greedy one.
    Candidate& kept = refined->has_value() ? **refined : *start;
    if (refined->has_value() && final_us(*start) < final_us(kept)) kept = *std::move(start);
    const double us = final_us(kept);
    if (!best.has_value() || us < best_us) {
      best_us = us;
      best = SubsetPlan{std::move(kept), reason, absl::StrJoin(left_out, " and ")};
    }
  }
  return best;
}

}  // namespace

PolicyWithdrawals::PolicyWithdrawals(std::vector<std::shared_ptr<const std::vector<int32_t>>> withdrawn,
                                     std::shared_ptr<const WithdrawalReasons> reasons)
    : withdrawn_(std::move(withdrawn)), reasons_(std::move(reasons)) {}

void PolicyWithdrawals::ApplyTo(std::vector<AcceleratorClaims>* claims) const {
  for (size_t a = 0; a < withdrawn_.size() && a < claims->size(); ++a) {
    if (withdrawn_[a] == nullptr) continue;
    const std::vector<int32_t>& w = *withdrawn_[a];
    std::vector<OpClaim>& out = (*claims)[a].claims;
    for (size_t o = 0; o < w.size() && o < out.size(); ++o) {
      if (w[o] == 0) continue;
      const WithdrawalReason& r = (*reasons_)[w[o] - 1];
      out[o] = OpClaim{false, r.code, r.detail};
    }
  }
}

const char* PartitionPolicyName(PartitionPolicy policy) {
  switch (policy) {
    case PartitionPolicy::kCost:
      return "cost";
    case PartitionPolicy::kGreedy:
      return "greedy";
    case PartitionPolicy::kCpu:
      return "cpu";
  }
  return "cost";
}

absl::StatusOr<PartitionPolicy> ParsePartitionPolicy(std::string_view name) {
  for (PartitionPolicy p : {PartitionPolicy::kCost, PartitionPolicy::kGreedy, PartitionPolicy::kCpu})
    if (name == PartitionPolicyName(p)) return p;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown partition policy '", std::string(name), "' (want cost, greedy or cpu)"));
}

absl::StatusOr<PolicyResult> PlanWithPolicy(const PlanCostModel& model, const std::vector<AcceleratorClaims>& claims,
                                            const PolicyOptions& options, const PartitionEstimator* estimator) {
  PolicyResult result;
  Context ctx{model, claims, {}, {}, ClaimOverlay(model.operands(), claims)};
  for (const AcceleratorClaims& a : claims) ctx.vendors.push_back(a.vendor);
  // Final figures use the plugins' whole-partition estimates where they
  // give them; the search itself uses the per-op sums (no plugin calls).
  const bool whole = estimator != nullptr && *estimator;
  // Without them the search's figures are final: read, not copied (a
  // million-partition plan's costs are tens of megabytes).
  auto whole_cost = [&](const Candidate& c) { return model.Cost(c.plan, c.claims.base(), estimator); };
  auto final_us = [&](const Candidate& c) { return whole ? whole_cost(c).total_us() : c.cost.total_us(); };
  // Both baselines, always: the report shows them beside the chosen plan.
  // A baseline that is the policy's own plan gets its full cost now
  // (unless constraints replace it), not a second pass at the end.
  const bool greedy_kept = options.policy == PartitionPolicy::kGreedy && !Constrained(options);
  absl::StatusOr<Candidate> greedy = Evaluate(ctx, ctx.root, greedy_kept);
  if (!greedy.ok()) return greedy.status();
  const double greedy_search_us = greedy->cost.total_us();
  absl::StatusOr<Candidate> cpu = Evaluate(ctx, CpuOnly(ctx, kRefusalPolicy, "--policy cpu runs every op on the cpu"),
                                           options.policy == PartitionPolicy::kCpu);
  // Without --min-ops or --max-partitions the constrained greedy plan is the
  // greedy plan itself: no copy of it.
  std::optional<Candidate> constrained;
  if (Constrained(options)) {
    absl::StatusOr<Candidate> c = Constrain(ctx, *greedy, options);
    if (!c.ok()) return c.status();
    constrained = *std::move(c);
  }
  Candidate& constrained_greedy = constrained.has_value() ? *constrained : *greedy;

  // The kept plan, by pointer: it may be one of the baselines, which are
  // reported too.
  Candidate* chosen = nullptr;
  std::optional<Candidate> refined, again;
  std::optional<SubsetPlan> subset;
  switch (options.policy) {
    case PartitionPolicy::kGreedy:
      chosen = &constrained_greedy;
      result.chosen = PartitionPolicyName(PartitionPolicy::kGreedy);
      break;
    case PartitionPolicy::kCpu:
      if (!cpu.ok()) return cpu.status();
      chosen = &*cpu;
      result.chosen = PartitionPolicyName(PartitionPolicy::kCpu);
      break;
    case PartitionPolicy::kCost: {
      absl::StatusOr<std::optional<Candidate>> r = Refine(ctx, constrained_greedy, options, &result.rounds);
      if (!r.ok()) return r.status();
      refined = *std::move(r);
      // The same search with fewer accelerators (see SubsetPlan): a wider
      // choice must never model slower than a narrower one.
      absl::StatusOr<std::optional<SubsetPlan>> s = BestSubsetPlan(ctx, options, final_us);
      if (!s.ok()) return s.status();
      subset = *std::move(s);
      // Keep the best of the refined plan, both baselines and the best plan
      // of a sub-list, compared with the plugins' whole-partition estimates
      // where they give them. A search that improved nothing leaves the
      // constrained greedy plan as "cost" (it ties greedy, and the first of
      // a tie wins).
      std::vector<std::pair<std::string, Candidate*>> options_in_order = {
          {PartitionPolicyName(PartitionPolicy::kCost), refined.has_value() ? &*refined : &constrained_greedy},
          {PartitionPolicyName(PartitionPolicy::kGreedy), &constrained_greedy}};
      if (subset.has_value()) options_in_order.push_back({kSubsetChoice, &subset->plan});
      if (cpu.ok()) options_in_order.push_back({PartitionPolicyName(PartitionPolicy::kCpu), &*cpu});
      double best = 0;
      for (size_t i = 0; i < options_in_order.size(); ++i) {
        Candidate& cand = *options_in_order[i].second;
        if (whole) cand.cost = whole_cost(cand);  // idempotent: a candidate listed twice gets the same figure
        if (i == 0 || cand.cost.total_us() < best) {
          best = cand.cost.total_us();
          result.chosen = options_in_order[i].first;
        }
      }
      for (auto& [name, cand] : options_in_order)
        if (name == result.chosen) chosen = cand;
      if (result.chosen == kSubsetChoice) {
        // The plan of a sub-list is the cost policy's own plan; its
        // withdrawals of the accelerators left out say by how much it won.
        result.chosen = PartitionPolicyName(PartitionPolicy::kCost);
        ctx.reasons.SetDetail(subset->reason,
                              absl::StrFormat("the plan without %s models faster (%.2f us against %.2f us with every "
                                              "accelerator in the list)",
                                              subset->left_out, best, options_in_order[0].second->cost.total_us()));
      }
      if (result.chosen == PartitionPolicyName(PartitionPolicy::kCpu)) {
        const std::string why =
            absl::StrFormat("the whole model on the cpu models fastest (%.2f us against %.2f us for the greedy plan)",
                            best, greedy_search_us);
        absl::StatusOr<Candidate> a = Evaluate(ctx, CpuOnly(ctx, kRefusalNotProfitable, why));
        if (!a.ok()) return a.status();
        again = *std::move(a);
        chosen = &*again;
      }
      break;
    }
  }
  // Baselines and the chosen plan on the same footing: whole-partition
  // estimates where the plugins give them.
  result.greedy_us = final_us(*greedy);
  if (cpu.ok()) result.cpu_only_us = final_us(*cpu);
  result.cost = whole ? whole_cost(*chosen) : FullCost(ctx, *chosen);
  // The candidates not kept are done with: free them before the kept plan's
  // claims and refusals are built, so that those reuse their memory (and
  // the step's peak does not hold both). At 1M ops the greedy plan alone
  // is over 100 MB, and what is built next would be fresh pages.
  for (Candidate* c : {greedy.ok() ? &*greedy : nullptr, cpu.ok() ? &*cpu : nullptr,
                       constrained.has_value() ? &*constrained : nullptr, refined.has_value() ? &*refined : nullptr,
                       again.has_value() ? &*again : nullptr, subset.has_value() ? &subset->plan : nullptr})
    if (c != nullptr && c != chosen) Release(*c);
  // The kept plan's placements, and the withdrawals its claim overlay
  // holds: no copy of the claims (the refusals are read from them).
  result.plan = std::move(chosen->plan);
  result.plan.placements = PlacementsOf(chosen->accelerators);
  if (chosen->claims.withdrew_any()) {
    std::vector<std::shared_ptr<const std::vector<int32_t>>> withdrawn;
    for (size_t a = 0; a < claims.size(); ++a) withdrawn.push_back(chosen->claims.withdrawals(a));
    result.withdrawals =
        PolicyWithdrawals(std::move(withdrawn), std::make_shared<const WithdrawalReasons>(std::move(ctx.reasons)));
  }
  return result;
}

}  // namespace tessera
