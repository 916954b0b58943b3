#include "partition/policy_planner.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "partition/boundary_moves.h"
#include "partition/partitioner.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

constexpr int kMaxRounds = 8;

// One partition against the CPU: what it costs where it is (device time,
// dispatch, the transfers across its boundary) and what the same ops would
// cost on the fallback, with the boundary transfers they would need there.
struct Gain {
  double here_us = 0;
  double cpu_us = 0;
  double compute_us = 0, dispatch_us = 0, transfer_us = 0;
  double gain() const { return cpu_us - here_us; }
};

class GainModel {
 public:
  explicit GainModel(const PlanCostModel& model) : model_(model), seen_(model.graph().tensors.size(), -1) {}

  std::vector<Gain> Of(const PartitionPlan& plan, const PlanCost& cost) {
    std::fill(seen_.begin(), seen_.end(), -1);
    std::vector<Gain> gains(plan.partitions.size());
    const Graph& g = model_.graph();
    const int32_t cpu = model_.fallback_memory();
    for (size_t p = 0; p < plan.partitions.size(); ++p) {
      const PlannedPartition& part = plan.partitions[p];
      const int32_t here = model_.accelerator_memory(static_cast<size_t>(part.accelerator));
      Gain& gain = gains[p];
      gain.compute_us = cost.partitions[p].compute_us;
      gain.dispatch_us = cost.partitions[p].dispatch_us;
      for (int32_t o : part.ops) {
        gain.cpu_us += model_.cpu_us(static_cast<size_t>(o));
        for (int32_t t : g.ops[o].inputs) {
          if (t < 0 || g.tensors[t].is_constant || seen_[t] == static_cast<int32_t>(p)) continue;
          const int32_t prod = model_.producer()[t];
          if (prod >= 0 && plan.op_partition[prod] == static_cast<int32_t>(p)) continue;
          seen_[t] = static_cast<int32_t>(p);
          const int32_t from = prod >= 0 ? model_.MemoryOf(plan, static_cast<size_t>(prod)) : PlanCostModel::kHost;
          const uint64_t bytes = model_.bytes(t);
          gain.transfer_us += model_.TransferUs(from, here, bytes);
          gain.cpu_us += model_.TransferUs(from, cpu, bytes);
        }
        for (int32_t t : g.ops[o].outputs) {
          if (t < 0) continue;
          outside_.clear();
          for (int32_t c : model_.uses().consumers(t))
            if (plan.op_partition[c] != static_cast<int32_t>(p)) outside_.push_back(model_.MemoryOf(plan, static_cast<size_t>(c)));
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

// Candidates share claim sets: a copy of a million-op claim list costs more
// than planning it, so only a policy that withdraws claims makes one.
using Claims = std::vector<AcceleratorClaims>;
using ClaimsPtr = std::shared_ptr<const Claims>;

struct Candidate {
  ClaimsPtr claims;
  PartitionPlan plan;
  PlanCost cost;
};

absl::StatusOr<Candidate> Evaluate(const PlanCostModel& model, ClaimsPtr claims, const PartitionEstimator* estimator) {
  Candidate c;
  absl::StatusOr<PartitionPlan> plan = PlanPartitions(model.graph(), *claims);
  if (!plan.ok()) return plan.status();
  c.plan = *std::move(plan);
  c.cost = model.Cost(c.plan, *claims, estimator);
  c.claims = std::move(claims);
  return c;
}

bool IsFallback(const PlanCostModel& model, const PlannedPartition& part) {
  return model.accelerators()[part.accelerator].fallback;
}

// Takes the ops of partition `p` back from its accelerator.
void Withdraw(std::vector<AcceleratorClaims>& claims, const PlannedPartition& part, int32_t code,
              const std::string& detail) {
  for (int32_t o : part.ops) claims[part.accelerator].claims[o] = OpClaim{false, code, detail};
}

std::string GainDetail(const PlannedPartition& part, const Gain& g) {
  return absl::StrFormat(
      "partition of %d ops on %s models %.2f us (compute %.2f + dispatch %.2f + transfer %.2f) against %.2f us on "
      "the cpu",
      part.ops.size(), part.vendor, g.here_us, g.compute_us, g.dispatch_us, g.transfer_us, g.cpu_us);
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

// Applies --min-ops and --max-partitions to a plan, planning again until
// both hold (everything on the fallback always satisfies them).
absl::StatusOr<Candidate> Constrain(const PlanCostModel& model, Candidate c, const PolicyOptions& options) {
  if (options.min_ops <= 0 && options.max_partitions <= 0) return c;
  GainModel gains(model);
  for (int round = 0; round < 4 * kMaxRounds; ++round) {
    std::vector<std::string> why;
    const std::vector<size_t> drop = OverLimits(model, c.plan, gains.Of(c.plan, c.cost), options, &why);
    if (drop.empty()) return c;
    auto claims = std::make_shared<Claims>(*c.claims);
    for (size_t i = 0; i < drop.size(); ++i) Withdraw(*claims, c.plan.partitions[drop[i]], kRefusalPolicy, why[i]);
    absl::StatusOr<Candidate> next = Evaluate(model, std::move(claims), nullptr);
    if (!next.ok()) return next.status();
    c = *std::move(next);
  }
  return absl::InternalError("--min-ops/--max-partitions did not converge");
}

ClaimsPtr CpuOnly(const PlanCostModel& model, const Claims& input, int32_t code, const std::string& detail) {
  auto claims = std::make_shared<Claims>(input);
  for (size_t a = 0; a < claims->size(); ++a) {
    if (model.accelerators()[a].fallback) continue;
    for (OpClaim& claim : (*claims)[a].claims)
      if (claim.supported) claim = OpClaim{false, code, detail};
  }
  return claims;
}

// The cost policy's search, from the greedy plan. Each round tries two
// steps and keeps the one that models faster, if either improves on the
// plan: give back every partition that does not pay for itself (all at
// once; if that models slower, because neighbours interact, only the
// worst), and move every edge op that models cheaper on the cpu (all at
// once, else only the best). It stops when neither step helps.
absl::StatusOr<Candidate> Refine(const PlanCostModel& model, Candidate c, const PolicyOptions& options, int* rounds) {
  GainModel gains_of(model);
  for (*rounds = 0; *rounds < kMaxRounds; ++*rounds) {
    const std::vector<Gain> gains = gains_of.Of(c.plan, c.cost);
    std::vector<size_t> losing;
    for (size_t p = 0; p < c.plan.partitions.size(); ++p)
      if (!IsFallback(model, c.plan.partitions[p]) && gains[p].gain() <= 0) losing.push_back(p);
    const std::vector<BoundaryMove> moves = ProfitableBoundaryMoves(model, c.plan, *c.claims);
    if (losing.empty() && moves.empty()) break;
    auto give_back = [&](const std::vector<size_t>& drop) -> absl::StatusOr<Candidate> {
      auto claims = std::make_shared<Claims>(*c.claims);
      for (size_t p : drop)
        Withdraw(*claims, c.plan.partitions[p], kRefusalNotProfitable, GainDetail(c.plan.partitions[p], gains[p]));
      absl::StatusOr<Candidate> next = Evaluate(model, std::move(claims), nullptr);
      if (!next.ok()) return next.status();
      return Constrain(model, *std::move(next), options);
    };
    auto move = [&](size_t count) -> absl::StatusOr<Candidate> {
      auto claims = std::make_shared<Claims>(*c.claims);
      for (size_t i = 0; i < count; ++i) {
        const BoundaryMove& m = moves[i];
        const int32_t a = c.plan.partitions[c.plan.op_partition[m.op]].accelerator;
        (*claims)[a].claims[m.op] = OpClaim{
            false, kRefusalNotProfitable,
            absl::StrFormat("an edge op of its partition: %.2f us on %s (device time and the transfers it causes) "
                            "against %.2f us on the cpu",
                            m.here_us, (*claims)[a].vendor, m.cpu_us)};
      }
      absl::StatusOr<Candidate> next = Evaluate(model, std::move(claims), nullptr);
      if (!next.ok()) return next.status();
      return Constrain(model, *std::move(next), options);
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
    c = std::move(*best);
  }
  return c;
}

}  // namespace

const char* PartitionPolicyName(PartitionPolicy policy) {
  switch (policy) {
    case PartitionPolicy::kCost: return "cost";
    case PartitionPolicy::kGreedy: return "greedy";
    case PartitionPolicy::kCpu: return "cpu";
  }
  return "cost";
}

absl::StatusOr<PartitionPolicy> ParsePartitionPolicy(std::string_view name) {
  for (PartitionPolicy p : {PartitionPolicy::kCost, PartitionPolicy::kGreedy, PartitionPolicy::kCpu})
    if (name == PartitionPolicyName(p)) return p;
  return absl::InvalidArgumentError(absl::StrCat("unknown --policy '", std::string(name), "' (want cost, greedy or cpu)"));
}

absl::StatusOr<PolicyResult> PlanWithPolicy(const PlanCostModel& model, const std::vector<AcceleratorClaims>& claims,
                                            const PolicyOptions& options, const PartitionEstimator* estimator) {
  PolicyResult result;
  // Final figures use the plugins' whole-partition estimates where they
  // give them; the search itself uses the per-op sums (no plugin calls).
  const bool whole = estimator != nullptr && *estimator;
  auto final_cost = [&](const Candidate& c) { return whole ? model.Cost(c.plan, *c.claims, estimator) : c.cost; };
  // The caller's claims, not copied (and not owned).
  const ClaimsPtr input(std::shared_ptr<const Claims>(), &claims);
  // Both baselines, always: the report shows them beside the chosen plan.
  absl::StatusOr<Candidate> greedy = Evaluate(model, input, nullptr);
  if (!greedy.ok()) return greedy.status();
  absl::StatusOr<Candidate> cpu =
      Evaluate(model, CpuOnly(model, claims, kRefusalPolicy, "--policy cpu runs every op on the cpu"), nullptr);
  absl::StatusOr<Candidate> constrained_greedy = Constrain(model, *greedy, options);  // shares greedy's claims
  if (!constrained_greedy.ok()) return constrained_greedy.status();

  Candidate chosen;
  switch (options.policy) {
    case PartitionPolicy::kGreedy:
      chosen = *std::move(constrained_greedy);
      result.chosen = "greedy";
      break;
    case PartitionPolicy::kCpu:
      if (!cpu.ok()) return cpu.status();
      chosen = *cpu;
      result.chosen = "cpu";
      break;
    case PartitionPolicy::kCost: {
      absl::StatusOr<Candidate> refined = Refine(model, *constrained_greedy, options, &result.rounds);
      if (!refined.ok()) return refined.status();
      // Keep the best of the refined plan and both baselines, compared
      // with the plugins' whole-partition estimates where they give them.
      std::vector<std::pair<std::string, Candidate*>> options_in_order = {{"cost", &*refined},
                                                                          {"greedy", &*constrained_greedy}};
      if (cpu.ok()) options_in_order.push_back({"cpu", &*cpu});
      double best = 0;
      for (size_t i = 0; i < options_in_order.size(); ++i) {
        Candidate& cand = *options_in_order[i].second;
        cand.cost = final_cost(cand);
        if (i == 0 || cand.cost.total_us() < best) {
          best = cand.cost.total_us();
          result.chosen = options_in_order[i].first;
        }
      }
      for (auto& [name, cand] : options_in_order)
        if (name == result.chosen) chosen = std::move(*cand);
      if (result.chosen == "cpu") {
        const std::string why = absl::StrFormat(
            "the whole model on the cpu models fastest (%.2f us against %.2f us for the greedy plan)", best,
            greedy->cost.total_us());
        absl::StatusOr<Candidate> again = Evaluate(model, CpuOnly(model, claims, kRefusalNotProfitable, why), nullptr);
        if (!again.ok()) return again.status();
        chosen = *std::move(again);
      }
      break;
    }
  }
  // Baselines and the chosen plan on the same footing: whole-partition
  // estimates where the plugins give them.
  result.greedy_us = final_cost(*greedy).total_us();
  if (cpu.ok()) result.cpu_only_us = final_cost(*cpu).total_us();
  result.cost = final_cost(chosen);
  result.plan = std::move(chosen.plan);
  result.claims = std::move(chosen.claims);  // the caller's own when the policy withdrew nothing
  return result;
}

}  // namespace tessera
