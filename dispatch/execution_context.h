// One thread's way of running a LoadedModel: its own buffers (every storage
// of the plan, materialized), its own invocation per step with those buffers
// attached once, and its own conversion timings. Any number of RunContexts
// of one LoadedModel run at the same time; one ExecutionContext runs one call at a
// time (it is not internally synchronized: give each thread its own).
#ifndef TESSERA_DISPATCH_EXECUTION_CONTEXT_H_
#define TESSERA_DISPATCH_EXECUTION_CONTEXT_H_

#include <atomic>
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
#include "dispatch/loaded_model.h"
#include "dispatch/resilience_policy.h"
#include "dispatch/step_schedule.h"
#include "framework/core/graph/host_tensor.h"

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

struct ExecutionProfile {
  double total_us = 0;
  // Bytes copied between the app's buffers and the context's own: every
  // input and output for RunInto, only the copied bindings for RunBound.
  uint64_t io_copy_bytes = 0;
  std::vector<StepProfile> steps;
  std::vector<ConversionRecord> conversions;
  std::vector<FallbackRecord> fallbacks;  // retries and cpu-plan runs of this run (docs/resilience.md)
};

// The app's own memory for one graph input or output (ExecutionContext::Bind*):
// HOST memory by address, or a DMABUF by fd (+ offset), which the runtime
// maps for the copies it may still need. Borrowed until unbound, rebound or
// the context is destroyed.
struct AppBuffer {
  int32_t type = TSR_BUFFER_TYPE_HOST;  // TSR_BUFFER_TYPE_HOST or _DMABUF
  void* host_address = nullptr;         // HOST
  int32_t fd = -1;                      // DMABUF
  uint64_t offset = 0;                  // DMABUF: where the tensor starts in the fd
  uint64_t size = 0;                    // bytes; at least the tensor's byte size
};

// How a binding is used. Zero-copy: every step that reads (or writes) the
// tensor has the app's buffer attached in place of the runtime's own, so no
// byte is copied. Copied: some step cannot take the app's memory (another
// buffer type, a stricter alignment, a device-only storage), so each run
// copies between it and the runtime's buffer, as Run does.
enum class BindingMode { kZeroCopy, kCopied };
const char* BindingModeName(BindingMode mode);  // "zero_copy", "copied"

class ExecutionContext {
 public:
  // Thread-safe: many threads may create contexts of one model at once.
  static absl::StatusOr<std::unique_ptr<ExecutionContext>> Create(std::shared_ptr<const LoadedModel> model);
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext&) = delete;
  ExecutionContext& operator=(const ExecutionContext&) = delete;

  // Inputs in graph input order; dtypes and shapes must match exactly.
  // Returns newly allocated outputs: a wrapper over RunInto.
  absl::StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs,
                                              ExecutionProfile* profile = nullptr);
  // The run without allocation: inputs[i] and outputs[i] are the caller's
  // dense host buffers of graph input/output i, exactly its byte_size()
  // (the dtype and shape are the model's; only the bytes are checked),
  // borrowed for the call. A steady-state run with profile == nullptr
  // allocates nothing here: the buffers are checked and copied
  // in and out, and error text is built only on failure.
  // Steps of a library with the async table (ABI 1.2) are queued with
  // invoke_async and overlap the steps after them that do not read their
  // outputs; the run returns once every step finished (docs/abi.md).
  absl::Status RunInto(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs,
                       ExecutionProfile* profile = nullptr);

  // App buffers by type. Binding graph input/output `index` to
  // the app's memory registers it with every dispatch library whose step
  // reads or writes that tensor and attaches it to those invocations, in
  // place of the context's own buffer: later runs read and write the app's
  // memory directly. Rebinding (a camera's next frame) detaches the old
  // buffer and attaches the new one; nothing else is re-created. Unbind
  // restores the context's own buffer. RunBound runs with every input and
  // output bound.
  absl::StatusOr<BindingMode> BindInput(size_t index, const AppBuffer& buffer);
  absl::StatusOr<BindingMode> BindOutput(size_t index, const AppBuffer& buffer);
  absl::Status Unbind(int32_t io_kind, size_t index);  // TSR_IO_INPUT / TSR_IO_OUTPUT
  absl::Status RunBound(ExecutionProfile* profile = nullptr);

  const LoadedModel& model() const { return *model_; }
  // The plan's conversions with this context's timings of its last run.
  const std::vector<ConversionRecord>& conversions() const { return conversions_; }
  // What the resilience policy did in the last run (also in its profile).
  const std::vector<FallbackRecord>& fallbacks() const { return fallbacks_; }
  // On (the default): steps of libraries with the async table are queued
  // as above. Off: every step runs synchronously in plan order, as with no
  // async library (the reference an async run must equal byte for byte).
  void SetAsynchronous(bool on);
  // Per run (the app's RunOptions), checked before each step: a run whose
  // `cancel` flag was set (from any thread) ends with CANCELLED, one past
  // `deadline` with DEADLINE_EXCEEDED, naming the steps done; steps already
  // queued are drained first (nothing outlives the run). Kept until set
  // again; the default limits nothing.
  struct RunLimits {
    const std::atomic<bool>* cancel = nullptr;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    uint32_t deadline_ms = 0;  // for the message
  };
  void SetRunLimits(const RunLimits& limits) { limits_ = limits; }
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
    // Bound to app memory in place (zero-copy): Map returns this address
    // and the invocations that use the storage hold the app's buffers.
    void* bound_address = nullptr;
  };
  // One graph input's or output's app binding (run_context_bindings.cc).
  struct Binding {
    bool bound = false;
    BindingMode mode = BindingMode::kCopied;
    AppBuffer buffer;
    uint8_t* address = nullptr;  // where its bytes are (mapped for DMABUF)
    void* mapping = nullptr;     // our mmap of a DMABUF, else nullptr
    size_t mapping_size = 0;
    // Zero-copy: the app's buffer registered with each library that uses
    // the storage, by session.
    std::vector<std::pair<int32_t, tsr_buffer>> registered;
  };
  // An invocation slot that holds a storage's buffer.
  struct Attachment {
    size_t step = 0;
    bool output = false;
    size_t index = 0;
  };
  explicit ExecutionContext(std::shared_ptr<const LoadedModel> model) : model_(std::move(model)) {}
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
  // The steps in order with the conversions before each (RunInto's and
  // RunBound's middle).
  absl::Status RunSteps(ExecutionProfile* profile);
  // Graph output i into the app's dense bytes, timing the app-side
  // conversion when the plan has one (RunInto's and RunBound's).
  absl::Status ReadOutput(size_t i, std::span<uint8_t> bytes);
  // run_context_bindings.cc.
  absl::StatusOr<BindingMode> Bind(bool output, size_t index, const AppBuffer& buffer);
  absl::Status Release(Binding& binding, int32_t storage);
  void ReleaseBindings();                    // teardown: every binding, errors ignored
  void DropRegistrations(Binding& binding);  // the app buffer's registrations
  void DropResources(Binding& binding);      // those and our DMABUF mapping; resets it
  std::vector<Attachment> AttachmentsOf(int32_t storage) const;
  absl::Status Attach(const Attachment& a, tsr_buffer buffer);
  // run_context_recovery.cc: one step under the resilience policy.
  absl::Status RunStep(size_t step, ExecutionProfile* profile);
  absl::Status Recover(size_t step, tsr_status code, FailureClass failure, int32_t attempts, std::string reason,
                       ExecutionProfile* profile);
  absl::Status RunCpuPlan(size_t step, ExecutionProfile* profile);
  // The vendor that runs step `step`'s cpu plan (the fallback's), once the
  // plan has run.
  const std::string& PlanVendor(size_t step) const;
  void RecordDeviceStep(size_t step, std::chrono::steady_clock::time_point start, double host_time_us,
                        ExecutionProfile* profile);
  // The policy's loop from attempt `attempt` on (RunStep starts at 1; an
  // asynchronous failure continues at 2).
  absl::Status RunStepFrom(size_t step, int32_t attempt, FailureClass last, std::string last_reason,
                           ExecutionProfile* profile);

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
  absl::Status BeforeStep(size_t step, ExecutionProfile* profile);
  // Runs step k on the host, or queues it (async library) behind its producers.
  absl::Status IssueStep(size_t step, ExecutionProfile* profile);
  // Waits for a queued step, then its profile, or the policy on its failure.
  absl::Status Settle(size_t step, ExecutionProfile* profile);
  absl::Status SettleAll(ExecutionProfile* profile);
  absl::Status AsyncFailure(size_t step, tsr_status code, bool overran, double elapsed_us, ExecutionProfile* profile);
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
  std::vector<std::unique_ptr<ExecutionContext>> cpu_contexts_;  // per step, made when its cpu plan first runs
  StepSchedule schedule_;
  std::vector<AsyncStep> async_;  // per step, when schedule_.any_async
  std::function<void(size_t, bool)> host_step_hook_;
  RunLimits limits_;
  absl::Status CheckRunLimits(size_t step) const;
  std::vector<Binding> input_bindings_, output_bindings_;  // per graph input / output
  size_t bound_count_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_EXECUTION_CONTEXT_H_
