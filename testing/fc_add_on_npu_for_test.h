// fc_add_model_for_test.h's model compiled under the greedy policy on
// npu,cpu with FP16 allowed (both ops go to the systolic NPU), loaded, with one run context:
// the setup the RunInto and binding tests share.
#ifndef TESSERA_TESTING_FC_ADD_ON_NPU_FOR_TEST_H_
#define TESSERA_TESTING_FC_ADD_ON_NPU_FOR_TEST_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/loader/plugin_registry.h"
#include "testing/allow_fp16_for_test.h"
#include "testing/fc_add_model_for_test.h"

namespace tessera {

inline absl::Status LoadFcAddOnNpuForTest(const std::string& name, const PluginRegistry& registry,
                                          CompiledGraph* compiled, std::unique_ptr<ExecutionContext>* context) {
  CompileOptions options;
  options.accelerators = {"npu", "cpu"};
  options.partitioning.policy = PartitionPolicy::kGreedy;
  const Graph graph = FcAddModelForTest(name);
  options.precision = AllowFp16ForTest(graph);  // the NPU computes the FC in FP16
  absl::StatusOr<CompiledGraph> c = CompileGraph(graph, registry, options);
  if (!c.ok()) return c.status();
  *compiled = *std::move(c);
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {});
  if (!model.ok()) return model.status();
  absl::StatusOr<std::unique_ptr<ExecutionContext>> made = ExecutionContext::Create(*model);
  if (!made.ok()) return made.status();
  *context = *std::move(made);
  return absl::OkStatus();
}

}  // namespace tessera

#endif  // TESSERA_TESTING_FC_ADD_ON_NPU_FOR_TEST_H_
