// Runs a compiled model: one step per DISPATCH op, each through its
// vendor's dispatch library. Buffer types are negotiated per tensor at
// load time; conversions are inserted where the accepted types don't
// intersect, and every run reports them with per-step timings and the
// libraries' own metrics.
//
// The convenience form of LoadedModel (shared, immutable) plus one
// ExecutionContext (one run at a time). Run() is safe to call from several
// threads: calls are serialized. For parallel runs, make a ExecutionContext per
// thread from model() instead (run_context.h).
#ifndef TESSERA_DISPATCH_MODEL_EXECUTOR_H_
#define TESSERA_DISPATCH_MODEL_EXECUTOR_H_

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/execution_context.h"
#include "dispatch/loaded_model.h"

namespace tessera {

class ModelExecutor {
 public:
  // `graph` is a compiled graph (DISPATCH ops only). `jit_slots` resolves
  // DispatchRef::jit_slot and must outlive the executor.
  static absl::StatusOr<std::unique_ptr<ModelExecutor>> Create(const Graph& graph,
                                                               std::span<const tsr_jit_handle> jit_slots,
                                                               const PluginRegistry& registry,
                                                               const RuntimeOptions& options);

  // Inputs in graph input order; dtypes and shapes must match exactly.
  // Thread-safe (serialized).
  absl::StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs,
                                              ExecutionProfile* profile = nullptr);
  // ExecutionContext::RunInto, serialized the same way.
  absl::Status RunInto(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs,
                       ExecutionProfile* profile = nullptr);

  // The plan's conversions with the timings of the last run.
  const std::vector<ConversionRecord>& conversions() const { return context_->conversions(); }
  const std::shared_ptr<const LoadedModel>& model() const { return model_; }

  OutputTolerance OutputToleranceFor(size_t index, double own_relative, double own_absolute) const {
    return model_->OutputToleranceFor(index, own_relative, own_absolute);
  }

 private:
  ModelExecutor(std::shared_ptr<const LoadedModel> model, std::unique_ptr<ExecutionContext> context)
      : model_(std::move(model)), context_(std::move(context)) {}
  std::shared_ptr<const LoadedModel> model_;
  std::unique_ptr<ExecutionContext> context_;
  std::mutex run_lock_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_MODEL_EXECUTOR_H_
