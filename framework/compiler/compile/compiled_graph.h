// The result of compiling a model: a graph of DISPATCH ops plus everything
// that must stay alive for it to run (plugin instances and, for JIT, the
// in-memory handles, which are never written to a file or cached).
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILED_GRAPH_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILED_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "framework/compiler/claims/compiler_instance.h"
#include "framework/compiler/partition/partition_plan.h"
#include "framework/compiler/partition/plan_cost.h"
#include "framework/core/graph/graph.h"

namespace tessera {

// The app API has a CompileMode of its own (tessera::app::CompileMode) with
// the same two values: its public headers may not include this one, so
// framework/app/compiled_model.cc maps between them.
enum class CompileMode { kAot, kJit };
const char* CompileModeName(CompileMode mode);

struct FallbackNote {
  std::string vendor;  // the accelerator that gave the partition up
  std::vector<uint32_t> op_ids;
  std::string reason;
};

// What the partitioning policy chose and what the cost model says of it.
struct PlanSummary {
  std::string policy;     // "cost", "greedy", "cpu"
  std::string chosen;     // the candidate the cost policy kept
  PlanCost cost;          // of the plan that was compiled
  double greedy_us = -1;  // the baselines, same model
  double cpu_only_us = -1;
  int rounds = 0;
  std::vector<AcceleratorTraits> accelerators;  // per accelerator: memory, overhead
  std::vector<std::string> cost_notes;          // defaults the SoC model used
  std::string precision = "fp32";               // --precision (precision_policy.h)
  std::string precision_samples;                // what proved FP16 ranges ("" = nothing)
};

struct CompileTimings {
  double claims_ms = 0;     // every plugin's claim_ops/partition
  double partition_ms = 0;  // planning, every policy round and fallback round
  double compile_ms = 0;    // the plugins' compile calls
};

// Partitions of a JIT-only accelerator that an AOT compile left in the
// graph as plain ops (JitOnlyInAot::kLeaveAsOps).
struct LeftForJit {
  std::string vendor;
  std::vector<uint32_t> op_ids;
};

struct CompiledGraph {
  Graph graph;  // DISPATCH ops (and any ops left for JIT)
  CompileMode mode = CompileMode::kAot;
  // Per accelerator (same order as `accelerators`): how its partitions were
  // compiled. Differs from `mode` for a JIT-only plugin in an AOT compile.
  std::vector<CompileMode> accelerator_modes;
  std::vector<LeftForJit> left_for_jit;
  SocSelection soc;
  std::vector<std::string> accelerators;  // priority order actually used
  std::vector<AcceleratorClaims> claims;  // per accelerator, per source op
  PartitionPlan plan;                     // against `source`
  Graph source;                           // the graph that was partitioned
  std::vector<FallbackNote> fallbacks;
  PlanSummary summary;
  CompileTimings timings;
  // Alive while the model is: JIT handles point into these. Shared: an
  // AOT artifact is also kept by `graph`, whose bytecode is its blob.
  std::vector<std::shared_ptr<CompilerInstance>> instances;
  std::vector<std::shared_ptr<CompiledArtifact>> artifacts;
  std::vector<tsr_jit_handle> jit_slots;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_COMPILED_GRAPH_H_
