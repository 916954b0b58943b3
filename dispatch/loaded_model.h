// A compiled model loaded into its dispatch libraries: one device session
// per vendor, one executable per DISPATCH op, and the buffer plan (which
// storage every tensor lives in, and which conversions run before which
// step). Immutable once created, and shared: any number of threads make
// their own ExecutionContext from one LoadedModel and run at the same time.
//
// Why the split: the dispatch ABI lets distinct invocations of one
// executable run concurrently, but buffers and invocations belong to one
// run at a time. So executables and the plan are shared, while buffers and
// invocations live in a ExecutionContext (run_context.h). The few library calls
// that the ABI makes "externally synchronized per context" or "per
// executable" (allocate/register/release_buffer, create_invocation) go
// through the locks this object hands out.
#ifndef TESSERA_DISPATCH_LOADED_MODEL_H_
#define TESSERA_DISPATCH_LOADED_MODEL_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/blob_compatibility.h"
#include "dispatch/buffer_layout.h"
#include "dispatch/buffer_negotiation.h"
#include "dispatch/declared_numerics.h"
#include "dispatch/device_session.h"
#include "dispatch/resilience_policy.h"
#include "framework/core/base/budgets.h"
#include "framework/core/graph/graph.h"
#include "framework/loader/plugin_registry.h"

namespace tessera {

struct RuntimeOptions {
  SocSelection soc;
  std::vector<std::pair<std::string, std::string>> plugin_options;
  ResiliencePolicy resilience;
  // The cpu plan of an accelerated partition, by its DISPATCH op id: a
  // compiled graph (cpu DISPATCH ops) whose inputs are the op's
  // non-constant inputs and whose outputs are its outputs, in order
  // (compile/cpu_fallback_plans.h makes them; docs/resilience.md).
  std::map<uint32_t, Graph> cpu_plans;
  Budgets budgets;  // max_device_memory_bytes is checked here (device_memory_budget.h)
};

struct ConversionRecord {
  int32_t tensor = -1;
  std::string tensor_name;
  int32_t from_type = 0;
  int32_t to_type = 0;
  uint64_t bytes = 0;
  std::string to_vendor;    // the consumer that needed it
  double host_time_us = 0;  // last run (of the ExecutionContext that reports it)
  // The types' names: a vendor type by its library's get_buffer_type_info
  // ("dsp_tcm"), else BufferTypeName ("host", "vendor+1" when unnamed).
  std::string from_name, to_name;
  double start_us = 0;  // when it began in that last run, from the run's start
  // What it changes (layout_conversion.h): "copy" (other memory, same
  // layout), "layout" or "copy+layout"; the layouts by LayoutName
  // ("dense", "strided(row 128 B)", "nhwc"); who converts: "host" (map
  // both, relayout) or "convert_buffer" (the library owning both buffers).
  std::string kind = "copy";
  std::string from_layout = "dense", to_layout = "dense";
  std::string via = "host";
};

// One buffer every ExecutionContext materializes: host memory, or a buffer that
// `allocating_session` allocates.
struct StorageSpec {
  int32_t tensor = -1;
  int32_t type = TSR_BUFFER_TYPE_HOST;
  int32_t allocating_session = -1;  // -1: runtime-owned host memory
  uint64_t size = 0;
  uint32_t alignment = 0;
  BufferLayout layout;  // how the tensor's elements sit in it (type = `type`)
};

// One DISPATCH op, loaded.
struct LoadedStep {
  int32_t op = -1;       // index into graph().ops
  int32_t session = -1;  // index into sessions
  tsr_executable executable = nullptr;
  DeclaredNumerics numerics;
  std::vector<uint32_t> input_alignments, output_alignments;
  // Every layout each input/output accepts, most preferred first (canonical).
  std::vector<std::vector<BufferLayout>> input_layouts, output_layouts;
  std::vector<int32_t> input_storage, output_storage;  // indices into storages()
  struct Conversion {
    int32_t from = -1, to = -1;  // storages
    size_t record = 0;           // index into conversions()
  };
  std::vector<Conversion> conversions_before;
  // The executable's external constants (ABI 1.4), pointing into the
  // graph's mapped constants: borrowed by the library until unload, so they
  // live as long as the step.
  std::vector<tsr_constant_binding> constant_bindings;
  // Copies of the constants a graph built in memory held below
  // TSR_CONSTANT_ALIGNMENT (bindings point into them); empty for a loaded
  // model.
  std::vector<std::vector<uint8_t>> aligned_constants;
};

class LoadedModel {
 public:
  // `graph` is a compiled graph (DISPATCH ops only). `jit_slots` resolves
  // DispatchRef::jit_slot and must outlive the model. Opens only dispatch
  // libraries, never a compiler.
  static absl::StatusOr<std::shared_ptr<const LoadedModel>> Create(const Graph& graph,
                                                                   std::span<const tsr_jit_handle> jit_slots,
                                                                   const PluginRegistry& registry,
                                                                   const RuntimeOptions& options);
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  const Graph& graph() const { return graph_; }
  const std::vector<std::unique_ptr<DeviceSession>>& sessions() const { return sessions_; }
  const std::vector<LoadedStep>& steps() const { return steps_; }
  const std::vector<StorageSpec>& storages() const { return storages_; }
  int32_t primary_storage(int32_t tensor) const { return primary_storage_[tensor]; }
  // The conversions the plan inserts (host_time_us is 0 here).
  const std::vector<ConversionRecord>& conversions() const { return conversions_; }
  // The conversion graph output `index` needs on its way to the app's
  // dense host bytes (it runs as the output is read), or -1.
  int32_t output_conversion(size_t index) const { return output_conversions_[index]; }
  // Each bytecode blob's verdict from its dispatch library, in the order the
  // blobs were first used (blob_compatibility.h). An UNSUPPORTED blob
  // refused the model, so it never appears here.
  const std::vector<BlobCompatibility>& compatibility() const { return compatibility_; }

  // Held around calls the ABI makes externally synchronized per context
  // (buffer allocation, registration, release) or per executable
  // (create_invocation; one lock per step).
  std::mutex& SessionLock(int32_t session) const { return *session_locks_[session]; }
  std::mutex& StepLock(size_t step) const { return *step_locks_[step]; }

  // The tolerance to compare graph output `index` with against an FP32
  // reference: (own_relative, own_absolute) widened by the declarations of
  // every reduced-precision step it depends on.
  OutputTolerance OutputToleranceFor(size_t index, double own_relative, double own_absolute) const;

  const ResiliencePolicy& policy() const { return policy_; }
  bool HasCpuPlan(size_t step) const { return cpu_plans_[step].graph.has_value(); }
  // Step `step`'s cpu plan, loaded into its dispatch libraries on first use
  // (a plan that never runs costs its compiled bytes only). Thread-safe.
  absl::StatusOr<std::shared_ptr<const LoadedModel>> CpuPlan(size_t step) const;

 private:
  struct CpuPlanSlot {
    std::optional<Graph> graph;
    std::vector<DispatchLibrary> libraries;  // per op of `graph`, found when the model was created
    mutable std::shared_ptr<const LoadedModel> loaded;
  };
  LoadedModel() = default;
  static absl::StatusOr<std::shared_ptr<LoadedModel>> CreateWith(const Graph& graph,
                                                                 std::span<const tsr_jit_handle> jit_slots,
                                                                 const std::vector<const DispatchLibrary*>& libraries,
                                                                 const RuntimeOptions& options);
  absl::Status AdoptCpuPlans(const PluginRegistry& registry, const RuntimeOptions& options);
  absl::Status Load(const std::vector<const DispatchLibrary*>& libraries, std::span<const tsr_jit_handle> jit_slots,
                    const RuntimeOptions& options);
  absl::Status PlanBuffers();
  std::string TypeName(int32_t type, int32_t session) const;
  absl::StatusOr<int32_t> AddStorage(int32_t tensor, const BufferLayout& layout, int32_t allocating_session,
                                     uint64_t size, uint32_t alignment);

  Graph graph_;
  std::vector<std::unique_ptr<DeviceSession>> sessions_;
  std::vector<LoadedStep> steps_;
  std::vector<StorageSpec> storages_;
  std::vector<int32_t> primary_storage_;  // per tensor, -1 if none
  std::vector<ConversionRecord> conversions_;
  std::vector<int32_t> output_conversions_;  // per graph output
  std::vector<BlobCompatibility> compatibility_;
  std::vector<std::unique_ptr<std::mutex>> session_locks_, step_locks_;
  ResiliencePolicy policy_;
  RuntimeOptions plan_options_;         // what the cpu plans load with (no plans of their own)
  std::vector<CpuPlanSlot> cpu_plans_;  // per step
  mutable std::mutex cpu_plan_lock_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_LOADED_MODEL_H_
