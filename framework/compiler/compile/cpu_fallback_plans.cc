#include "framework/compiler/compile/cpu_fallback_plans.h"

#include <chrono>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "framework/core/base/status_macros.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// The source ops of `op` as a graph of their own, in the source's tensor
// numbering: inputs are the op's non-constant inputs, outputs its outputs,
// in the op's order (the order the runtime hands them over in). The
// compiled graph was pruned, so its tensors are found by name.
absl::StatusOr<Graph> PartitionGraph(const CompiledGraph& compiled, const Op& op,
                                     const std::map<std::string, int32_t>& source_tensor) {
  const Graph& source = compiled.source;
  Graph sub = source;  // shares the constants' storage
  sub.ops.clear();
  sub.inputs.clear();
  sub.outputs.clear();
  const std::set<uint32_t> ids(op.dispatch->source_op_ids.begin(), op.dispatch->source_op_ids.end());
  for (const Op& o : source.ops)
    if (ids.count(o.id) != 0) sub.ops.push_back(o);
  if (sub.ops.size() != ids.size()) return absl::NotFoundError("its source ops are not all in the source graph");
  auto find = [&](int32_t t) -> absl::StatusOr<int32_t> {
    auto it = source_tensor.find(compiled.graph.tensors[t].name);
    if (it == source_tensor.end())
      return absl::NotFoundError(
          absl::StrCat("tensor '", compiled.graph.tensors[t].name, "' is not in the source graph"));
    return it->second;
  };
  for (int32_t t : op.inputs) {
    if (t < 0 || compiled.graph.tensors[t].is_constant) continue;
    ASSIGN_OR_RETURN(int32_t s, find(t));
    sub.inputs.push_back(s);
  }
  for (int32_t t : op.outputs) {
    ASSIGN_OR_RETURN(int32_t s, find(t));
    sub.outputs.push_back(s);
  }
  return sub;
}

}  // namespace

absl::StatusOr<CpuPlanSet> BuildCpuFallbackPlans(const CompiledGraph& compiled, const PluginRegistry& registry,
                                                 const CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CpuPlanSet out;
  const CompilerPluginLibrary* fallback = FallbackCompiler(registry);
  if (fallback == nullptr) {
    out.notes.push_back("no fallback compiler is loaded: no partition has a cpu plan");
    return out;
  }
  // Names identify tensors across the pruning; a source with repeated names
  // cannot be mapped, and says so.
  std::map<std::string, int32_t> source_tensor;
  for (size_t t = 0; t < compiled.source.tensors.size(); ++t)
    if (!source_tensor.emplace(compiled.source.tensors[t].name, static_cast<int32_t>(t)).second) {
      out.notes.push_back(absl::StrCat("tensor name '", compiled.source.tensors[t].name,
                                       "' repeats in the source graph: no partition has a cpu plan"));
      return out;
    }
  CompileOptions plan_options;
  plan_options.accelerators = {fallback->vendor};
  plan_options.mode = CompileMode::kAot;  // bytecode: the plan needs no compiler once made
  plan_options.soc = options.soc;
  plan_options.plugin_options = options.plugin_options;
  // A partly compiled source (ops left for JIT beside bytecode)
  // brings DISPATCH ops of its own: like a precompiled model's, they have
  // no source ops here, so no cpu plan; one note says so.
  std::set<uint32_t> came_compiled;
  for (const Op& op : compiled.source.ops)
    if (op.dispatch) came_compiled.insert(op.id);
  size_t without_plan = 0;
  for (const Op& op : compiled.graph.ops) {
    if (!op.dispatch || op.dispatch->vendor == fallback->vendor) continue;
    if (came_compiled.count(op.id)) {
      ++without_plan;
      continue;
    }
    absl::StatusOr<Graph> sub = PartitionGraph(compiled, op, source_tensor);
    absl::StatusOr<CompiledGraph> plan =
        sub.ok() ? CompileGraph(*sub, registry, plan_options) : absl::StatusOr<CompiledGraph>(sub.status());
    if (!plan.ok()) {
      out.notes.push_back(
          absl::StrCat("op id ", op.id, " (", op.dispatch->vendor, "): no cpu plan: ", plan.status().message()));
      continue;
    }
    out.plans.emplace(op.id, std::move(plan->graph));
  }
  if (without_plan > 0)
    out.notes.push_back(absl::StrCat(without_plan,
                                     " partitions came compiled in the model file: like a precompiled "
                                     "model's, they have no cpu plan"));
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace tessera
