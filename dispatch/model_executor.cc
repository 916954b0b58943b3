#include "model_executor.h"

#include "base/status_macros.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const Graph& graph, std::span<const tsr_jit_handle> jit_slots,
                                                           const PluginRegistry& registry, const RuntimeOptions& options) {
  ASSIGN_OR_RETURN(std::shared_ptr<const LoadedModel> model, LoadedModel::Create(graph, jit_slots, registry, options));
  ASSIGN_OR_RETURN(std::unique_ptr<RunContext> context, RunContext::Create(model));
  return std::unique_ptr<Executor>(new Executor(std::move(model), std::move(context)));
}

absl::StatusOr<std::vector<HostTensor>> Executor::Run(const std::vector<HostTensor>& inputs, RunProfile* profile) {
  std::lock_guard<std::mutex> lock(run_lock_);
  return context_->Run(inputs, profile);
}

absl::Status Executor::RunInto(std::span<const std::span<const uint8_t>> inputs,
                               std::span<const std::span<uint8_t>> outputs, RunProfile* profile) {
  std::lock_guard<std::mutex> lock(run_lock_);
  return context_->RunInto(inputs, outputs, profile);
}

}  // namespace tessera
