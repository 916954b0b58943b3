#include "dispatch/model_executor.h"

#include "framework/core/base/status_macros.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<ModelExecutor>> ModelExecutor::Create(const Graph& graph,
                                                                     std::span<const tsr_jit_handle> jit_slots,
                                                                     const PluginRegistry& registry,
                                                                     const RuntimeOptions& options) {
  ASSIGN_OR_RETURN(std::shared_ptr<const LoadedModel> model, LoadedModel::Create(graph, jit_slots, registry, options));
  ASSIGN_OR_RETURN(std::unique_ptr<ExecutionContext> context, ExecutionContext::Create(model));
  return std::unique_ptr<ModelExecutor>(new ModelExecutor(std::move(model), std::move(context)));
}

absl::StatusOr<std::vector<HostTensor>> ModelExecutor::Run(const std::vector<HostTensor>& inputs,
                                                           ExecutionProfile* profile) {
  std::lock_guard<std::mutex> lock(run_lock_);
  return context_->Run(inputs, profile);
}

absl::Status ModelExecutor::RunInto(std::span<const std::span<const uint8_t>> inputs,
                                    std::span<const std::span<uint8_t>> outputs, ExecutionProfile* profile) {
  std::lock_guard<std::mutex> lock(run_lock_);
  return context_->RunInto(inputs, outputs, profile);
}

}  // namespace tessera
