// The cpu plan of every accelerated partition: the same source ops,
// compiled AOT by the fallback compiler (cpu) into a graph of their own, so
// that the runtime can run a partition on the cpu when its device fails,
// hangs, returns a corrupt result or is lost (docs/resilience.md).
//
// Made eagerly, right after the model's own compile, while the compilers
// and the source graph are at hand; the runtime loads a plan only when it
// first needs it. A precompiled .tsr has neither its source ops nor cpu
// bytecode for its partitions, so it has no plans: its failures are errors
// after the retries.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_CPU_FALLBACK_PLANS_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_CPU_FALLBACK_PLANS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/compile/compile_driver.h"

namespace tessera {

struct CpuPlanSet {
  std::map<uint32_t, Graph> plans;  // by DISPATCH op id of the compiled graph (RuntimeOptions::cpu_plans)
  std::vector<std::string> notes;   // partitions left without a plan, and why
  double compile_ms = 0;
};

// `options` is what `compiled` was compiled with (its SoC and plugin
// options are reused). Partitions already on the fallback get no plan.
absl::StatusOr<CpuPlanSet> BuildCpuFallbackPlans(const CompiledGraph& compiled, const PluginRegistry& registry,
                                                 const CompileOptions& options);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_CPU_FALLBACK_PLANS_H_
