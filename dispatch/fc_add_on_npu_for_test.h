// fc_add_model_for_test.h's model compiled under the greedy policy on
// npu,cpu (both ops go to the systolic NPU), loaded, with one run context:
// the setup the RunInto and binding tests share.
#ifndef TESSERA_DISPATCH_FC_ADD_ON_NPU_FOR_TEST_H_
#define TESSERA_DISPATCH_FC_ADD_ON_NPU_FOR_TEST_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "compile/compile_driver.h"
#include "fc_add_model_for_test.h"
#include "plugin_host/plugin_registry.h"
#include "run_context.h"

namespace tessera {

inline absl::Status LoadFcAddOnNpuForTest(const std::string& name, const PluginRegistry& registry,
                                          CompiledModel* compiled, std::unique_ptr<RunContext>* context) {
  CompileOptions options;
  options.accelerators = {"npu", "cpu"};
  options.partitioning.policy = PartitionPolicy::kGreedy;
  absl::StatusOr<CompiledModel> c = CompileGraph(FcAddModelForTest(name), registry, options);
  if (!c.ok()) return c.status();
  *compiled = *std::move(c);
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {});
  if (!model.ok()) return model.status();
  absl::StatusOr<std::unique_ptr<RunContext>> made = RunContext::Create(*model);
  if (!made.ok()) return made.status();
  *context = *std::move(made);
  return absl::OkStatus();
}

}  // namespace tessera

#endif  // TESSERA_DISPATCH_FC_ADD_ON_NPU_FOR_TEST_H_
