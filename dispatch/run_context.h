// One thread's way of running a LoadedModel: its own buffers (every storage
// of the plan, materialized), its own invocation per step with those buffers
// attached once, and its own conversion timings. Any number of RunContexts
// of one LoadedModel run at the same time; one RunContext runs one call at a
// time (it is not internally synchronized: give each thread its own).
#ifndef TESSERA_DISPATCH_RUN_CONTEXT_H_
#define TESSERA_DISPATCH_RUN_CONTEXT_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "graph/host_tensor.h"
#include "loaded_model.h"
#include "resilience_policy.h"
#include "step_schedule.h"

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
  // Steps of a library with the async table (ABI 1.2) are queued with
  // invoke_async and overlap the steps after them that do not read their
  // outputs; the run returns once every step finished (docs/abi.md).
  absl::Status RunInto(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs,
                       RunProfile* profile = nullptr);

  const LoadedModel& model() const { return *model_; }
  // The plan's conversions with this context's timings of its last run.
  const std::vector<ConversionRecord>& conversions() const { return conversions_; }
  // What the resilience policy did in the last run (also in its profile).
  const std::vector<FallbackRecord>& fallbacks() const { return fallbacks_; }
  // On (the default): steps of libraries with the async table are queued
  // as above. Off: every step runs synchronously in plan order, as with no
  // async library (the reference an async run must equal byte for byte).
  void SetAsynchronous(bool on);
  // Tests only: called on the running thread before (done = false) and
  // after (done = true) each step that runs on the host thread while some
  // steps of the run are asynchronous; an overlap proof holds a queued step
  // there.
  void SetHostStepHookForTest(std::function<void(size_t step, bool done)> hook) { host_step_hook_ = std::move(hook); }

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
  absl::Status Copy(int32_t from_storage, int32_t to_storage, uint64_t bytes);
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
  // The policy's loop from attempt `attempt` on (RunStep starts at 1; an
  // asynchronous failure continues at 2).
  absl::Status RunStepFrom(size_t step, int32_t attempt, FailureClass last, std::string last_reason,
                           RunProfile* profile);

  // run_context_async.cc: steps on libraries with the async table.
  struct AsyncStep {
    tsr_timeline timeline = nullptr;  // this context's, for this step; each run signals value + 1
    uint64_t value = 0;               // the point the last issue signals
    bool pending = false;             // issued this run and not yet settled
    bool failed = false;              // its last asynchronous attempt failed (and was dealt with)
    std::chrono::steady_clock::time_point issued;
    absl::InlinedVector<int32_t, 4> waited;  // producers it waits on in the library (not on the host)
  };
  absl::Status MakeTimelines();
  // Before step k's conversions: the host waits for what they read or rewrite.
  absl::Status BeforeStep(size_t step, RunProfile* profile);
  // Runs step k on the host, or queues it (async library) behind its producers.
  absl::Status IssueStep(size_t step, RunProfile* profile);
  // Waits for a queued step, then its profile, or the policy on its failure.
  absl::Status Settle(size_t step, RunProfile* profile);
  absl::Status SettleAll(RunProfile* profile);
  absl::Status AsyncFailure(size_t step, tsr_status code, bool overran, double elapsed_us, RunProfile* profile);
  absl::Status RenewTimeline(size_t step);
  // After a failed run: waits out whatever is still queued (it borrows this
  // context's buffers) and renews failed timelines. No-op when idle.
  void DrainAsync();
  void DestroyTimelines();

  std::shared_ptr<const LoadedModel> model_;
  std::vector<Storage> storages_;
  std::vector<tsr_invocation> invocations_;                     // per step
  std::map<std::pair<int32_t, int32_t>, tsr_buffer> imported_;  // (storage, session) -> buffer
  std::vector<ConversionRecord> conversions_;
  std::vector<FallbackRecord> fallbacks_;
  std::chrono::steady_clock::time_point run_start_;  // of the run in progress: profile timestamps count from it
  std::vector<std::unique_ptr<RunContext>> cpu_contexts_;  // per step, made when its cpu plan first runs
  StepSchedule schedule_;
  std::vector<AsyncStep> async_;  // per step, when schedule_.any_async
  std::function<void(size_t, bool)> host_step_hook_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_RUN_CONTEXT_H_
