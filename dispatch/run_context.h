// One thread's way of running a LoadedModel: its own buffers (every storage
// of the plan, materialized), its own invocation per step with those buffers
// attached once, and its own conversion timings. Any number of RunContexts
// of one LoadedModel run at the same time; one RunContext runs one call at a
// time (it is not internally synchronized: give each thread its own).
#ifndef TESSERA_DISPATCH_RUN_CONTEXT_H_
#define TESSERA_DISPATCH_RUN_CONTEXT_H_

#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/host_tensor.h"
#include "loaded_model.h"
#include "resilience_policy.h"

namespace tessera {

struct StepProfile {
  uint32_t op_id = 0;
  std::string vendor;
  std::string entry_point;
  std::vector<uint32_t> source_op_ids;
  double host_time_us = 0;
  struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
  };
  std::vector<Metric> metrics;
  DeclaredNumerics numerics;  // what the library declared for this executable
  double start_us = 0;        // when its invoke began, from the start of the run
  std::string mode;           // "aot" (bytecode) or "jit" (in-memory handle)
};

struct RunProfile {
  double total_us = 0;
  std::vector<StepProfile> steps;
  std::vector<ConversionRecord> conversions;
  std::vector<FallbackRecord> fallbacks;  // retries and cpu-plan runs of this run (docs/resilience.md)
};

class RunContext {
 public:
  // Thread-safe: many threads may create contexts of one model at once.
  static absl::StatusOr<std::unique_ptr<RunContext>> Create(std::shared_ptr<const LoadedModel> model);
  ~RunContext();
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  // Inputs in graph input order; dtypes and shapes must match exactly.
  // Returns newly allocated outputs: a wrapper over RunInto.
  absl::StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs, RunProfile* profile = nullptr);
  // The run without allocation: inputs[i] and outputs[i] are the caller's
  // dense host buffers of graph input/output i, exactly its byte_size()
  // (the dtype and shape are the model's; only the bytes are checked),
  // borrowed for the call. A steady-state run with profile == nullptr
  // allocates nothing here (issue 11): the buffers are checked and copied
  // in and out, and error text is built only on failure.
  absl::Status RunInto(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs,
                       RunProfile* profile = nullptr);

  const LoadedModel& model() const { return *model_; }
  // The plan's conversions with this context's timings of its last run.
  const std::vector<ConversionRecord>& conversions() const { return conversions_; }
  // What the resilience policy did in the last run (also in its profile).
  const std::vector<FallbackRecord>& fallbacks() const { return fallbacks_; }

 private:
  struct Storage {
    tsr_buffer owner_buffer = nullptr;  // allocated by the spec's session
    void* host = nullptr;               // runtime-owned memory (free()d)
    // Imported into other libraries by address: stays mapped until the
    // context is destroyed, so the address they hold stays valid.
    bool mapped_for_import = false;
    void* import_address = nullptr;
  };
  explicit RunContext(std::shared_ptr<const LoadedModel> model) : model_(std::move(model)) {}
  absl::Status Materialize();
  // RunInto's count and size checks.
  absl::Status CheckBuffers(std::span<const std::span<const uint8_t>> inputs,
                            std::span<const std::span<uint8_t>> outputs) const;
  absl::Status Allocate(int32_t storage);
  absl::StatusOr<tsr_buffer> BufferIn(int32_t storage, int32_t session);
  // run_context_conversion.cc: a planned conversion (the host relayouts
  // through map_buffer, or the library's convert_buffer), and the app's
  // dense bytes into or out of a storage of any host-readable layout.
  absl::Status Convert(const LoadedStep::Conversion& conversion);
  absl::Status WriteDense(int32_t storage, std::span<const uint8_t> bytes);
  absl::Status ReadDense(int32_t storage, std::span<uint8_t> bytes);
  absl::StatusOr<uint8_t*> Map(int32_t storage);
  absl::Status Unmap(int32_t storage);
  const DeviceSession& Session(int32_t session) const { return *model_->sessions()[session]; }
  // run_context_recovery.cc: one step under the resilience policy.
  absl::Status RunStep(size_t step, RunProfile* profile);
  absl::Status Recover(size_t step, tsr_status code, FailureClass failure, int32_t attempts, std::string reason,
                       RunProfile* profile);
  absl::Status RunCpuPlan(size_t step, RunProfile* profile);
  // The vendor that runs step `step`'s cpu plan (the fallback's), once the
  // plan has run.
  const std::string& PlanVendor(size_t step) const;
  void RecordDeviceStep(size_t step, std::chrono::steady_clock::time_point start, double host_time_us,
                        RunProfile* profile);

  std::shared_ptr<const LoadedModel> model_;
  std::vector<Storage> storages_;
  std::vector<tsr_invocation> invocations_;                     // per step
  std::map<std::pair<int32_t, int32_t>, tsr_buffer> imported_;  // (storage, session) -> buffer
  std::vector<ConversionRecord> conversions_;
  std::vector<FallbackRecord> fallbacks_;
  std::chrono::steady_clock::time_point run_start_;  // of the run in progress: profile timestamps count from it
  std::vector<std::unique_ptr<RunContext>> cpu_contexts_;  // per step, made when its cpu plan first runs
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_RUN_CONTEXT_H_
