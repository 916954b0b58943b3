#include "framework/compiler/compile/compile_driver.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/compiler/compile/build_stamp_maker.h"
#include "framework/compiler/compile/bytecode_check.h"
#include "framework/compiler/compile/external_constants.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/graph/tensor_pruning.h"
#include "tessera/ops.h"

namespace tessera {

const char* CompileModeName(CompileMode mode) { return mode == CompileMode::kAot ? "aot" : "jit"; }

namespace {

constexpr int kMaxFallbackRounds = 8;

uint32_t ModeBit(CompileMode mode) { return mode == CompileMode::kAot ? TSR_COMPILE_MODE_AOT : TSR_COMPILE_MODE_JIT; }

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// What the cost model needs of each selected accelerator: its memory kind
// and dispatch overhead from the SoC description, and whether it is the
// fallback that claims everything.
std::vector<AcceleratorTraits> TraitsOf(const std::vector<const CompilerPluginLibrary*>& libs,
                                        const SocCostModel& soc) {
  std::vector<AcceleratorTraits> out;
  for (const CompilerPluginLibrary* lib : libs) {
    const kit::DispatchModel d = soc.Dispatch(lib->vendor);
    out.push_back({lib->vendor, d.memory, d.overhead_us, CompilerPriority(*lib) >= TSR_PRIORITY_FALLBACK});
  }
  return out;
}

// The SoC's cost figures; a description the cost model cannot read still
// compiles (the plugins report their own view of it), on the defaults, and
// says so.
SocCostModel CostModelOf(const SocSelection& soc) {
  absl::StatusOr<SocCostModel> parsed = SocCostModel::Parse(soc.description);
  if (parsed.ok()) return *std::move(parsed);
  return SocCostModel::Defaults(absl::StrCat("the cost model could not read the SoC description (",
                                             parsed.status().message(), "); it uses its defaults"));
}

// Whole-partition estimates from the plugins (estimate_partition), asked
// once per distinct partition.
class EstimateCache {
 public:
  EstimateCache(const CompiledGraph& model, const Graph& graph, const GraphUses& uses, const SocSelection& soc)
      : model_(model), graph_(graph), uses_(uses), soc_(soc) {}
  std::optional<double> operator()(const PlannedPartition& part) {
    auto key = std::make_pair(part.accelerator, part.ops);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const GraphView view = GraphView::Partition(graph_, part.ops, uses_);
    absl::StatusOr<std::optional<double>> e = model_.instances[part.accelerator]->EstimatePartition(view, soc_);
    std::optional<double> value = e.ok() ? *e : std::nullopt;
    cache_.emplace(std::move(key), value);
    return value;
  }

 private:
  const CompiledGraph& model_;
  const Graph& graph_;
  const GraphUses& uses_;
  const SocSelection& soc_;
  std::map<std::pair<int32_t, std::vector<int32_t>>, std::optional<double>> cache_;
};

// The ops of `part` that the plugin named as the cause of its failure, as
// op indices; empty when it named none, or all of them.
std::vector<int32_t> CulpritOps(const Graph& graph, const PlannedPartition& part, const std::vector<uint32_t>& ids) {
  std::set<uint32_t> named(ids.begin(), ids.end());
  std::vector<int32_t> out;
  for (int32_t o : part.ops)
    if (named.count(graph.ops[o].id)) out.push_back(o);
  if (out.size() == part.ops.size()) out.clear();
  return out;
}

// Claims for every op of `graph`, indexed by global op index.
absl::StatusOr<std::vector<OpClaim>> ClaimAll(const CompilerInstance& instance, const Graph& graph,
                                              const SocSelection& soc) {
  GraphView whole = GraphView::Whole(graph);
  ASSIGN_OR_RETURN(std::vector<OpClaim> local, instance.Partition(whole, soc));
  std::vector<OpClaim> global(graph.ops.size());
  for (size_t i = 0; i < whole.ops().size(); ++i) global[whole.ops()[i]] = local[i];
  for (size_t o = 0; o < graph.ops.size(); ++o)
    if (graph.ops[o].type == TSR_OP_DISPATCH) global[o] = {false, TSR_REFUSAL_UNSUPPORTED_OP, "already compiled"};
  return global;
}

// Withdraws `vendor`'s claims on `ops` with `reason`, and notes it.
void Withdraw(CompiledGraph& model, size_t accelerator, const Graph& graph, const std::vector<int32_t>& ops,
              const std::string& reason, int32_t code = TSR_REFUSAL_OTHER) {
  FallbackNote note{model.accelerators[accelerator], {}, reason};
  for (int32_t o : ops) {
    note.op_ids.push_back(graph.ops[o].id);
    model.claims[accelerator].claims[o] = {false, code, reason};
  }
  model.fallbacks.push_back(std::move(note));
}

// The claim promises of ABI 1.2 that a plan must keep: an op group sits
// whole in one partition of its plugin, or nowhere on it; a NOT_ALONE op
// never forms a partition of its own kind only. Withdraws what a plan
// broke; true when anything was withdrawn (plan again).
bool WithdrawBrokenClaimPromises(CompiledGraph& model, const Graph& graph) {
  bool withdrew = false;
  std::vector<std::vector<int32_t>> partition_of(model.instances.size(), std::vector<int32_t>(graph.ops.size(), -1));
  for (size_t p = 0; p < model.plan.partitions.size(); ++p)
    for (int32_t o : model.plan.partitions[p].ops)
      partition_of[model.plan.partitions[p].accelerator][o] = static_cast<int32_t>(p);
  for (size_t a = 0; a < model.claims.size(); ++a) {
    std::map<uint32_t, std::vector<int32_t>> members;
    for (size_t o = 0; o < graph.ops.size(); ++o)
      if (model.claims[a].claims[o].supported && model.claims[a].claims[o].group != 0)
        members[model.claims[a].claims[o].group].push_back(static_cast<int32_t>(o));
    for (const auto& [group, ops] : members) {
      std::set<int32_t> places;
      for (int32_t o : ops) places.insert(partition_of[a][o]);
      if (places.size() == 1 && *places.begin() >= 0) continue;
      Withdraw(model, a, graph, ops,
               absl::StrCat("op group ", group, " of ", model.accelerators[a], " could not be placed whole"));
      withdrew = true;
    }
  }
  for (const PlannedPartition& part : model.plan.partitions) {
    const auto& claims = model.claims[part.accelerator].claims;
    const bool all_not_alone = std::all_of(
        part.ops.begin(), part.ops.end(), [&](int32_t o) { return (claims[o].flags & TSR_CLAIM_FLAG_NOT_ALONE) != 0; });
    if (!all_not_alone || part.ops.empty()) continue;
    Withdraw(model, static_cast<size_t>(part.accelerator), graph, part.ops,
             "claimed only beside a real neighbour (TSR_CLAIM_FLAG_NOT_ALONE), and the partition has none");
    withdrew = true;
  }
  return withdrew;
}

}  // namespace

absl::StatusOr<std::vector<const CompilerPluginLibrary*>> ResolveAccelerators(const PluginRegistry& registry,
                                                                              const std::vector<std::string>& names) {
  std::vector<const CompilerPluginLibrary*> out;
  if (names.empty() || (names.size() == 1 && names[0] == "auto")) {
    for (const CompilerPluginLibrary& c : registry.compilers()) out.push_back(&c);
    // The plugins' declared priorities order "auto" (ABI 1.2 identity).
    std::stable_sort(out.begin(), out.end(),
                     [](auto* a, auto* b) { return CompilerPriority(*a) < CompilerPriority(*b); });
    if (out.empty()) return absl::NotFoundError("no compiler plugins were loaded (see `tessera plugins`)");
    return out;
  }
  std::set<std::string> seen;
  for (const std::string& name : names) {
    const CompilerPluginLibrary* lib = registry.FindCompilerByName(name);
    if (lib != nullptr && !seen.insert(lib->vendor).second) continue;
    if (lib == nullptr) {
      std::vector<std::string> loaded;
      for (const CompilerPluginLibrary& c : registry.compilers()) loaded.push_back(c.vendor);
      return absl::NotFoundError(absl::StrCat("accelerator '", name, "' has no loaded compiler plugin (loaded: ",
                                              loaded.empty() ? "none" : absl::StrJoin(loaded, ", "),
                                              "; see `tessera plugins` for skipped libraries)"));
    }
    out.push_back(lib);
  }
  // Fallbacks (plugins that claim everything) sit after every accelerator
  // in any list, so they only get what nobody else claimed.
  std::stable_partition(out.begin(), out.end(), [](auto* c) { return CompilerPriority(*c) < TSR_PRIORITY_FALLBACK; });
  return out;
}

absl::StatusOr<CompiledGraph> CompileOpsLeftForJit(const Graph& partial, const PluginRegistry& registry,
                                                   const CompileOptions& options) {
  CompileOptions jit = options;
  jit.jit_only = JitOnlyInAot::kCompileJit;
  std::vector<std::string> left;
  if (partial.build_stamp)
    for (const BuildStamp::LeftForJit& l : partial.build_stamp->left_for_jit)
      if (std::find(left.begin(), left.end(), l.vendor) == left.end()) left.push_back(l.vendor);
  ASSIGN_OR_RETURN(std::vector<const CompilerPluginLibrary*> libs, ResolveAccelerators(registry, options.accelerators));
  std::vector<std::string> chosen;  // those of `libs` that left ops, then the fallbacks
  for (const CompilerPluginLibrary* lib : libs)
    if (std::find(left.begin(), left.end(), lib->vendor) != left.end()) chosen.push_back(lib->vendor);
  for (const CompilerPluginLibrary* lib : libs)
    if (CompilerPriority(*lib) >= TSR_PRIORITY_FALLBACK) chosen.push_back(lib->vendor);
  if (!chosen.empty()) jit.accelerators = std::move(chosen);
  return CompileGraph(partial, registry, jit);
}

bool HasJitOnlyAccelerator(const std::vector<const CompilerPluginLibrary*>& libs) {
  return std::any_of(libs.begin(), libs.end(), [](const CompilerPluginLibrary* lib) {
    return (lib->info->compile_modes & TSR_COMPILE_MODE_AOT) == 0 &&
           (lib->info->compile_modes & TSR_COMPILE_MODE_JIT) != 0;
  });
}

absl::StatusOr<CompiledGraph> CompileGraph(const Graph& graph, const PluginRegistry& registry,
                                           const CompileOptions& options) {
  RETURN_IF_ERROR(VerifyGraph(graph));
  ASSIGN_OR_RETURN(std::vector<const CompilerPluginLibrary*> libs, ResolveAccelerators(registry, options.accelerators));
  CompiledGraph model;
  model.mode = options.mode;
  model.soc = options.soc;
  model.source = graph;
  const auto claims_start = std::chrono::steady_clock::now();
  for (const CompilerPluginLibrary* lib : libs) {
    ASSIGN_OR_RETURN(std::shared_ptr<CompilerInstance> instance,
                     CompilerInstance::Create(*lib, options.plugin_options));
    model.accelerators.push_back(lib->vendor);
    AcceleratorClaims claims{lib->vendor, {}};
    // Each plugin compiles the way it can: in an AOT compile a
    // JIT-only plugin compiles JIT, or has its partitions left as ops.
    CompileMode own_mode = options.mode;
    if ((lib->info->compile_modes & ModeBit(options.mode)) == 0 && options.mode == CompileMode::kAot &&
        (lib->info->compile_modes & TSR_COMPILE_MODE_JIT) != 0)
      own_mode = CompileMode::kJit;
    model.accelerator_modes.push_back(own_mode);
    if ((lib->info->compile_modes & ModeBit(own_mode)) == 0) {
      // The plugin cannot compile in this mode: it claims nothing, and says why.
      claims.claims.assign(graph.ops.size(), OpClaim{false, TSR_REFUSAL_OTHER,
                                                     absl::StrCat(lib->vendor, " does not support ",
                                                                  CompileModeName(options.mode), " compilation")});
    } else {
      ASSIGN_OR_RETURN(claims.claims, ClaimAll(*instance, graph, options.soc));
    }
    model.claims.push_back(std::move(claims));
    model.instances.push_back(std::move(instance));
  }
  // Accelerators whose partitions this compile leaves as plain ops.
  std::vector<bool> leave(libs.size(), false);
  for (size_t a = 0; a < libs.size(); ++a)
    leave[a] = options.mode == CompileMode::kAot && model.accelerator_modes[a] == CompileMode::kJit &&
               options.jit_only == JitOnlyInAot::kLeaveAsOps;

  // The precision policy, in one place: claims whose math would run in a
  // precision the app does not allow are refused before any planning.
  ApplyPrecisionPolicy(graph, options.precision, &model.claims);
  model.timings.claims_ms = MillisSince(claims_start);

  // Plan under the policy, compile; on a failed compile, withdraw that
  // vendor's claims on the culprit ops (or the failed partition) and plan
  // again.
  const SocCostModel soc_costs = CostModelOf(options.soc);
  const PlanCostModel cost_model(graph, soc_costs, TraitsOf(libs, soc_costs));
  const GraphUses uses(graph);
  EstimateCache estimates(model, graph, uses, options.soc);
  const PartitionEstimator estimator = [&estimates](const PlannedPartition& p) { return estimates(p); };
  model.summary.policy = PartitionPolicyName(options.partitioning.policy);
  model.summary.precision = PrecisionPolicyName(options.precision.precision);
  model.summary.precision_samples = options.precision.samples;
  model.summary.accelerators = cost_model.accelerators();
  model.summary.cost_notes = soc_costs.notes();
  std::map<int32_t, std::shared_ptr<CompiledArtifact>> artifact_of;  // accelerator -> artifact
  std::vector<std::vector<GraphView>> views;
  // Per accelerator, per partition: the constants its bytecode names (ABI 1.4).
  std::vector<std::vector<std::vector<DispatchConstant>>> constants_of;
  for (int round = 0;; ++round) {
    if (round == kMaxFallbackRounds) return absl::InternalError("compile fallback did not converge");
    const auto plan_start = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(PolicyResult planned, PlanWithPolicy(cost_model, model.claims, options.partitioning, &estimator));
    model.timings.partition_ms += MillisSince(plan_start);
    model.plan = std::move(planned.plan);
    planned.withdrawals.ApplyTo(&model.claims);  // the claims the plan came from
    model.summary.chosen = planned.chosen;
    model.summary.cost = std::move(planned.cost);
    model.summary.greedy_us = planned.greedy_us;
    model.summary.cpu_only_us = planned.cpu_only_us;
    model.summary.rounds = planned.rounds;
    RETURN_IF_ERROR(CheckBudget(options.budgets, &Budgets::max_partition_count, model.plan.partitions.size(),
                                "the partition count after planning"));
    if (WithdrawBrokenClaimPromises(model, graph)) continue;
    const auto compile_start = std::chrono::steady_clock::now();
    artifact_of.clear();
    views.assign(model.instances.size(), {});
    constants_of.assign(model.instances.size(), {});
    std::vector<std::vector<int32_t>> partitions_of(model.instances.size());
    for (size_t p = 0; p < model.plan.partitions.size(); ++p)
      partitions_of[model.plan.partitions[p].accelerator].push_back(static_cast<int32_t>(p));
    bool failed = false;
    for (size_t a = 0; a < model.instances.size() && !failed; ++a) {
      if (partitions_of[a].empty()) continue;
      for (int32_t p : partitions_of[a])
        views[a].push_back(GraphView::Partition(graph, model.plan.partitions[p].ops, uses));
      if (leave[a]) continue;  // compiled where the model is loaded
      std::vector<const GraphView*> ptrs;
      for (const GraphView& v : views[a]) ptrs.push_back(&v);
      const CompileMode own_mode = model.accelerator_modes[a];
      absl::StatusOr<std::unique_ptr<CompiledArtifact>> artifact =
          model.instances[a]->Compile(ptrs, ModeBit(own_mode), options.soc,
                                      /*constants_outlive_result=*/own_mode == CompileMode::kJit,
                                      /*partial_ok=*/true,
                                      /*external_constants_ok=*/own_mode == CompileMode::kAot);
      if (artifact.ok() && own_mode == CompileMode::kAot) {
        // Every blob is checked before anything is written; a bad one is
        // this vendor's compile failure (bytecode_check.h).
        std::vector<size_t> compiled_partitions;
        for (size_t i = 0; i < partitions_of[a].size(); ++i)
          if ((*artifact)->PartitionFailure(i).ok()) compiled_partitions.push_back(i);
        if (absl::Status bad =
                CheckCompiledBytecode(**artifact, model.accelerators[a], options.soc.name, compiled_partitions);
            !bad.ok())
          artifact = bad;
        // The constants each partition's bytecode names must be that
        // partition's own, at their size: a wrong reference is this
        // vendor's compile failure, like a bad blob.
        constants_of[a].assign(partitions_of[a].size(), {});
        for (size_t i : compiled_partitions) {
          if (!artifact.ok()) break;
          absl::StatusOr<std::vector<tsr_constant_reference>> refs = (*artifact)->ConstantReferences(i);
          absl::StatusOr<std::vector<DispatchConstant>> mapped =
              refs.ok() ? MapConstantReferences(graph, views[a][i], *refs, model.accelerators[a], i)
                        : absl::StatusOr<std::vector<DispatchConstant>>(refs.status());
          if (!mapped.ok()) {
            artifact = mapped.status();
            break;
          }
          constants_of[a][i] = *std::move(mapped);
        }
      }
      if (artifact.ok()) {
        // A 1.2 plugin compiles what it can: only the partitions that
        // failed lose their claims, not every partition of the vendor.
        // When the plugin names the culprit ops, only they move: the
        // partition splits around them on the next round.
        for (size_t i = 0; i < partitions_of[a].size(); ++i) {
          absl::Status why = (*artifact)->PartitionFailure(i);
          if (why.ok()) continue;
          const PlannedPartition& part = model.plan.partitions[partitions_of[a][i]];
          const std::vector<int32_t> culprits = CulpritOps(graph, part, (*artifact)->PartitionCulprits(i));
          Withdraw(model, a, graph, culprits.empty() ? part.ops : culprits,
                   absl::StrCat("compile failed: ", why.message()), kRefusalCompileFailed);
          failed = true;
        }
        if (!failed) artifact_of[static_cast<int32_t>(a)] = *std::move(artifact);
        continue;
      }
      FallbackNote note{model.accelerators[a], {}, std::string(artifact.status().message())};
      for (int32_t p : partitions_of[a])
        for (int32_t o : model.plan.partitions[p].ops) {
          note.op_ids.push_back(graph.ops[o].id);
          model.claims[a].claims[o] = {false, kRefusalCompileFailed, absl::StrCat("compile failed: ", note.reason)};
        }
      model.fallbacks.push_back(std::move(note));
      failed = true;
    }
    model.timings.compile_ms += MillisSince(compile_start);
    if (!failed) break;
  }

  // Assemble the DISPATCH graph.
  Graph out;
  out.name = graph.name;
  out.tensors = graph.tensors;
  out.inputs = graph.inputs;
  out.outputs = graph.outputs;
  out.metadata = graph.metadata;
  out.bytecodes = graph.bytecodes;
  out.KeepAlive(std::make_shared<Graph>(graph));  // spans of tensors/bytecodes point into it
  std::map<int32_t, int32_t> bytecode_of;         // accelerator -> index in out.bytecodes
  for (auto& [a, artifact] : artifact_of) {
    if (model.accelerator_modes[a] != CompileMode::kAot) continue;
    ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, artifact->Bytecode());
    bytecode_of[a] = static_cast<int32_t>(out.bytecodes.size());
    // The graph points at the plugin's own blob and keeps its result alive
    // (which keeps the plugin library loaded): a copy here was one more
    // copy of the weights at compile's peak (docs/benchmarks.md).
    out.KeepAlive(artifact);
    out.bytecodes.push_back({model.accelerators[a], options.soc.name, bytes});
  }
  uint32_t next_id = graph.NextOpId();
  std::vector<size_t> index_within(model.plan.partitions.size());
  {
    std::vector<size_t> counter(model.instances.size(), 0);
    for (size_t p = 0; p < model.plan.partitions.size(); ++p)
      index_within[p] = counter[model.plan.partitions[p].accelerator]++;
  }
  for (const ExecutionUnit& unit : model.plan.order) {
    if (unit.existing_dispatch_op >= 0) {
      out.ops.push_back(graph.ops[unit.existing_dispatch_op]);
      continue;
    }
    const PlannedPartition& part = model.plan.partitions[unit.partition];
    const int32_t a = part.accelerator;
    if (leave[a]) {
      // The partition's own ops, in graph order (topological), for the
      // loader to compile.
      LeftForJit left{part.vendor, {}};
      std::vector<int32_t> in_order = part.ops;
      std::sort(in_order.begin(), in_order.end());
      for (int32_t o : in_order) {
        out.ops.push_back(graph.ops[o]);
        left.op_ids.push_back(graph.ops[o].id);
      }
      model.left_for_jit.push_back(std::move(left));
      continue;
    }
    const CompileMode own_mode = model.accelerator_modes[a];
    const GraphView& view = views[a][index_within[unit.partition]];
    CompiledArtifact& artifact = *artifact_of.at(a);
    Op op;
    op.type = TSR_OP_DISPATCH;
    op.id = next_id++;
    for (int32_t local : view.inputs()) op.inputs.push_back(view.tensors()[local]);
    for (int32_t local : view.outputs()) op.outputs.push_back(view.tensors()[local]);
    DispatchRef ref;
    ref.vendor = part.vendor;
    ref.soc_model = options.soc.name;
    absl::StatusOr<std::string> entry = artifact.EntryPoint(index_within[unit.partition]);
    if (entry.ok()) {
      ref.entry_point = *entry;
    } else if (own_mode == CompileMode::kJit) {
      // Entry-point names are an AOT notion; a JIT handle needs none.
      ref.entry_point = absl::StrCat("jit_partition_", index_within[unit.partition]);
    } else {
      return entry.status();
    }
    for (int32_t o : part.ops) ref.source_op_ids.push_back(graph.ops[o].id);
    if (own_mode == CompileMode::kAot) {
      ref.bytecode = bytecode_of.at(a);
      ref.constants = constants_of[a][index_within[unit.partition]];
    } else {
      ASSIGN_OR_RETURN(tsr_jit_handle handle, artifact.JitHandle(index_within[unit.partition]));
      ref.jit_slot = static_cast<int32_t>(model.jit_slots.size());
      model.jit_slots.push_back(handle);
    }
    op.dispatch = std::move(ref);
    out.ops.push_back(std::move(op));
  }
  for (auto& [a, artifact] : artifact_of) model.artifacts.push_back(std::move(artifact));
  PruneUnusedTensors(out);
  RETURN_IF_ERROR(VerifyGraph(out));
  model.graph = std::move(out);
  // An AOT model records how it was built, for the runtime's
  // compatibility check (docs/model_format.md, BuildStamp).
  if (options.mode == CompileMode::kAot) {
    ASSIGN_OR_RETURN(model.graph.build_stamp,
                     MakeBuildStamp(model, options, graph.build_stamp ? &*graph.build_stamp : nullptr));
  }
  return model;
}

}  // namespace tessera
