#include "framework/compiler/partition/policy_planner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <optional>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/compiler/partition/boundary_moves.h"
#include "framework/compiler/partition/claim_overlay.h"
#include "framework/compiler/partition/partitioner.h"
#include "framework/core/base/fixed_decimal.h"
#include "framework/core/base/status_macros.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

constexpr int kMaxRounds = 8;
constexpr size_t kFewPartitions = 16;  // see Evaluate

// One partition against the CPU: what it costs where it is (device time,
// dispatch, the transfers across its boundary) and what the same ops would
// cost on the fallback, with the boundary transfers they would need there.
struct Gain {
  double here_us = 0;
  double cpu_us = 0;
  double compute_us = 0, dispatch_us = 0, transfer_us = 0;
  double gain() const { return cpu_us - here_us; }
};

using Claims = std::vector<AcceleratorClaims>;

class GainModel {
 public:
  explicit GainModel(const PlanCostModel& model) : model_(model), seen_(model.graph().tensors.size(), -1) {}

  // Gains of the accelerator partitions; a fallback partition's stays zero
  // (nothing asks for it: only accelerator partitions are given back).
  // `memory` is the plan's OpMemories, `claims` those it was costed with:
  // compute and dispatch are summed here as PlanCostModel::Cost sums them
  // (same ops, same order, so the same figures to the bit), because a
  // candidate's cost keeps only its totals (see Evaluate).
  std::vector<Gain> Of(const PartitionPlan& plan, std::span<const int32_t> memory, const Claims& claims) {
    std::fill(seen_.begin(), seen_.end(), -1);
    std::vector<Gain> gains(plan.partitions.size());
    const int32_t cpu = model_.fallback_memory();
    for (size_t p = 0; p < plan.partitions.size(); ++p) {
      const PlannedPartition& part = plan.partitions[p];
      if (model_.accelerators()[part.accelerator].fallback) continue;
      const size_t a = static_cast<size_t>(part.accelerator);
      const int32_t here = model_.accelerator_memory(a);
      Gain& gain = gains[p];
      gain.dispatch_us = model_.accelerators()[a].overhead_us;
      for (int32_t o : part.ops) {
        gain.compute_us += model_.OpTimeUs(claims, a, static_cast<size_t>(o));
        gain.cpu_us += model_.cpu_us(static_cast<size_t>(o));
        for (int32_t t : model_.inputs(static_cast<size_t>(o))) {
          if (t < 0 || model_.is_constant(t) || seen_[t] == static_cast<int32_t>(p)) continue;
          const int32_t prod = model_.producer()[t];
          if (prod >= 0 && plan.op_partition[prod] == static_cast<int32_t>(p)) continue;
          seen_[t] = static_cast<int32_t>(p);
          const int32_t from = prod >= 0 ? memory[prod] : PlanCostModel::kHost;
          const uint64_t bytes = model_.bytes(t);
          gain.transfer_us += model_.TransferUs(from, here, bytes);
          gain.cpu_us += model_.TransferUs(from, cpu, bytes);
        }
        for (int32_t t : model_.outputs(static_cast<size_t>(o))) {
          if (t < 0) continue;
          outside_.clear();
          for (int32_t c : model_.uses().consumers(t))
            if (plan.op_partition[c] != static_cast<int32_t>(p)) outside_.push_back(memory[c]);
          if (model_.uses().is_graph_output(t)) outside_.push_back(PlanCostModel::kHost);
          if (outside_.empty()) continue;
          std::sort(outside_.begin(), outside_.end());
          outside_.erase(std::unique(outside_.begin(), outside_.end()), outside_.end());
          const uint64_t bytes = model_.bytes(t);
          for (int32_t to : outside_) {
            gain.transfer_us += model_.TransferUs(here, to, bytes);
            gain.cpu_us += model_.TransferUs(cpu, to, bytes);
          }
        }
      }
      gain.here_us = gain.compute_us + gain.dispatch_us + gain.transfer_us;
    }
    return gains;
  }

 private:
  const PlanCostModel& model_;
  std::vector<int32_t> seen_;  // tensor -> partition that counted it as an input
  std::vector<int32_t> outside_;
};

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

// The detail of a partition given back. Written for every partition the
// search gives back (half a million on a million-op chain that alternates
// vendors), hence AppendFixed rather than a format string: the same text.
std::string GainDetail(const PlannedPartition& part, const Gain& g) {
  std::string s;
  s.reserve(160);  // the whole text: one allocation, not one per doubling
  absl::StrAppend(&s, "partition of ", part.ops.size(), " ops on ", part.vendor, " models ");
  AppendFixed(&s, g.here_us, 2);
  s += " us (compute ";
  AppendFixed(&s, g.compute_us, 2);
  s += " + dispatch ";
  AppendFixed(&s, g.dispatch_us, 2);
  s += " + transfer ";
  AppendFixed(&s, g.transfer_us, 2);
  s += ") against ";
  AppendFixed(&s, g.cpu_us, 2);
  s += " us on the cpu";
  return s;
}

// The reason a partition is given back with. Its detail is a function of
// the partition's op count, vendor and five gain figures alone, so a
// partition whose figures equal the previous one's shares that reason:
// a model of repeated blocks gives back runs of alike partitions (a
// million-op chain that alternates vendors gives back 500,000 of them),
// and formatting, storing and sharing each one's 100-byte text was half
// the withdrawal step. Only the previous partition is remembered: equal
// figures come in runs, and a table of every key seen would cost memory
// per partition on the graphs where no two are alike.
class GiveBackReasons {
 public:
  explicit GiveBackReasons(WithdrawalReasons& reasons) : reasons_(reasons) {}

  int32_t For(const PlannedPartition& part, const Gain& g) {
    // Bitwise: -0.0 prints "-0.00", 0.0 prints "0.00".
    const Key key{part.ops.size(),
                  {std::bit_cast<uint64_t>(g.here_us), std::bit_cast<uint64_t>(g.compute_us),
                   std::bit_cast<uint64_t>(g.dispatch_us), std::bit_cast<uint64_t>(g.transfer_us),
                   std::bit_cast<uint64_t>(g.cpu_us)}};
    if (last_ < 0 || !(key == key_) || part.vendor != vendor_) {
      last_ = reasons_.Add(kRefusalNotProfitable, GainDetail(part, g));
      key_ = key;
      vendor_ = part.vendor;
    }
    return last_;
  }

 private:
  struct Key {
    size_t ops = 0;
    std::array<uint64_t, 5> figures{};
    bool operator==(const Key&) const = default;
  };
  WithdrawalReasons& reasons_;
  Key key_;
  std::string vendor_;
  int32_t last_ = -1;
};

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
  if (options.max_partitions > 0 && plan.partitions.size() > static_cast<size_t>(options.max_partitions)) {
    std::stable_sort(accelerated.begin(), accelerated.end(),
                     [&](size_t a, size_t b) { return gains[a].gain() < gains[b].gain(); });
    // Each partition given back removes itself and may merge two cpu
    // neighbours; give back one more than the excess needs at most.
    const size_t excess = plan.partitions.size() - static_cast<size_t>(options.max_partitions);
    for (size_t i = 0; i < accelerated.size() && i < excess; ++i) {
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
      // Keep the best of the refined plan and both baselines, compared
      // with the plugins' whole-partition estimates where they give them.
      // A search that improved nothing leaves the constrained greedy plan
      // as "cost" (it ties greedy, and the first of a tie wins).
      std::vector<std::pair<std::string, Candidate*>> options_in_order = {
          {PartitionPolicyName(PartitionPolicy::kCost), refined.has_value() ? &*refined : &constrained_greedy},
          {PartitionPolicyName(PartitionPolicy::kGreedy), &constrained_greedy}};
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
  for (Candidate* c :
       {greedy.ok() ? &*greedy : nullptr, cpu.ok() ? &*cpu : nullptr, constrained.has_value() ? &*constrained : nullptr,
        refined.has_value() ? &*refined : nullptr, again.has_value() ? &*again : nullptr})
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
