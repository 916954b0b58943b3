// RunContext: running a CompiledModel, synchronously or not, into the app's buffers.
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_RUN_CONTEXT_HPP_
#define TESSERA_APP_RUN_CONTEXT_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/app/compiled_model.hpp"
#include "tessera/app/run_options.hpp"
#include "tessera/common.h"

namespace tessera::app {

// ---- Running --------------------------------------------------------------

struct RunProfile {
  struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
  };
  using Numerics = app::Numerics;
  struct Step {
    std::string vendor, entry_point;
    std::vector<uint32_t> source_op_ids;
    double host_time_us = 0;
    std::vector<Metric> metrics;  // the dispatch library's own
    uint32_t op_id = 0;           // the DISPATCH op in the compiled model
    Numerics numerics;
    double start_us = 0;  // when its invoke began, from the start of the run
    std::string mode;     // "aot" (from bytecode) or "jit" (an in-memory handle)
  };
  struct Conversion {
    std::string tensor, to_vendor;
    int32_t from_type = 0, to_type = 0;  // tsr_buffer_type
    uint64_t bytes = 0;
    double host_time_us = 0;
    std::string from_name, to_name;  // "host", "dsp_tcm" (the owning library's name), ...
    double start_us = 0;             // when the copy began, from the start of the run
    // "copy" (other memory), "layout" (same memory, other layout) or
    // "copy+layout"; the layouts ("dense", "strided(row 128 B)", "nhwc");
    // who converted: "host" or "convert_buffer" (the owning library).
    std::string kind, from_layout, to_layout, via;
  };
  // The run as the cost model prices it (docs/partitioning.md §6), beside
  // the partitioner's estimate; only for a model compiled in this process.
  struct ModeledLatency {
    bool available = false;
    double estimated_us = 0;
    double device_us = 0, dispatch_us = 0, transfer_us = 0;
    double measured_us() const { return device_us + dispatch_us + transfer_us; }
    size_t steps = 0, steps_with_device_time = 0;
  };
  // A step that did not succeed at its first attempt (docs/resilience.md).
  struct Fallback {
    size_t partition = 0;  // index of the step
    uint32_t op_id = 0;
    std::string from, to;  // to == from: a retry succeeded; "cpu": the cpu plan ran
    std::string failure;   // "transient", "device_lost", "deadline_exceeded", "corrupt", "permanent"
    std::string reason;
    int32_t attempts = 0;  // invokes tried on `from` (0: lost in an earlier run)
  };
  double total_us = 0;
  std::vector<Step> steps;
  std::vector<Conversion> conversions;
  ModeledLatency modeled;
  std::vector<Fallback> fallbacks;
  std::string tag;  // RunOptions::tag of the run
  // CompileOptions::background_warmup: the plan this run used, "cpu" or
  // "accelerated" (the switch happens between runs); "" otherwise.
  std::string warmup_plan;
  // Bytes copied between the app's buffers and the run context's own: all
  // inputs and outputs for Run/RunInto; for RunBound only the bindings
  // that are copied (0 on a zero-copy path).
  uint64_t io_copy_bytes = 0;
  // NaN and infinity (docs/app-guide.md, "Non-finite outputs"): each output
  // that holds one, with how many, and whether every float input was
  // finite (then the model or an accelerator made them: FP16 overflow, a
  // log of 0). Filled by Run, RunInto and RunAsync; RunBound does not read
  // the app's bound buffers (nonfinite_checked stays false).
  struct NonFinite {
    size_t output = 0;  // index into CompiledModel::outputs()
    std::string name;
    uint64_t nan_count = 0, inf_count = 0;
  };
  std::vector<NonFinite> nonfinite_outputs;
  bool inputs_finite = true;
  bool nonfinite_checked = false;
  // True when an output holds a NaN or infinity although every input was finite.
  bool nonfinite_from_finite_inputs() const { return nonfinite_checked && inputs_finite && !nonfinite_outputs.empty(); }
};

// The app's own memory for one model input or output, by buffer type
// (RunContext::Bind): host memory by address (TSR_BUFFER_TYPE_HOST), or a
// dma-buf by fd and offset (TSR_BUFFER_TYPE_DMABUF). Borrowed until
// unbound, rebound, or the run context is destroyed; the fd stays the
// app's (the runtime maps it, and the libraries dup what they keep).
struct AppBuffer {
  int32_t buffer_type = TSR_BUFFER_TYPE_HOST;
  void* host_address = nullptr;
  int32_t fd = -1;
  uint64_t offset = 0;
  size_t size = 0;  // at least the tensor's byte_size
};
enum class IoKind { kInput = 0, kOutput = 1 };
// kZeroCopy: every partition that reads (writes) the tensor uses the app's
// buffer in place. kCopied: one cannot (a type it does not accept, an
// alignment it needs), so each run copies, as RunInto does.
enum class BindingMode { kZeroCopy = 0, kCopied = 1 };

// A way of running a CompiledModel: its own buffers and invocations.
// Thread-safe as ONNX Runtime's Session::Run is safe: calls from several
// threads on one context are serialized (each run complete, its outputs
// its caller's); for runs in parallel give each thread its own context
// (they share the model's loaded executables).
class RunContext {
 public:
  static Result<RunContext> Create(const CompiledModel& model);
  ~RunContext();  // waits for an asynchronous run in flight (RunAsync), then goes
  RunContext(RunContext&&) noexcept;
  RunContext& operator=(RunContext&&) noexcept;

  // Inputs in the order of CompiledModel::inputs(); dtypes and shapes must
  // match exactly. Returns owned output tensors (allocated per run).
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs, RunProfile* profile = nullptr);
  // The same run into the caller's output tensors (Allocate()d or Wrap()ped
  // once, in the order of CompiledModel::outputs(), dtypes and shapes
  // exactly the model's), which receive the results. Tensors kept across
  // runs make a steady-state run with profile == nullptr allocate nothing
  // in Tessera (docs/app-guide.md).
  Status RunInto(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile = nullptr);
  // Run and RunInto with per-run options: cancel from another thread, a
  // deadline, a tag (run_options.hpp). Not with background_warmup
  // (FAILED_PRECONDITION: its plans run outside this context).
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs, const RunOptions& options,
                                  RunProfile* profile = nullptr);
  Status RunInto(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions& options,
                 RunProfile* profile = nullptr);
  // The same run, started on this context's worker thread: returns once it
  // is under way (or with the error of a bad tensor). The run shares the
  // ownership of Allocate()d inputs and outputs until it ends, so the app
  // may drop its tensors (or the vector) at once; Wrap()ped memory stays
  // the app's and must outlive the run. `profile` is filled by Wait (the
  // worker writes its own), so it need only live until Wait. Destroying
  // the context waits for a run in flight (it is not cancelled); one run
  // at a time per context (Run, RunInto and RunAsync fail with
  // TSR_FAILED_PRECONDITION until Wait collected it). Works over any
  // dispatch libraries; steps of libraries with the async table overlap
  // inside every run anyway (docs/app-guide.md).
  Status RunAsync(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile = nullptr);
  // The status of the run RunAsync started, once it ended; the context is
  // then free for the next run. TSR_DEADLINE_EXCEEDED when it did not end
  // within timeout_ns (it goes on: wait again); UINT64_MAX waits for ever.
  // TSR_FAILED_PRECONDITION when no run was started.
  Status Wait(uint64_t timeout_ns = UINT64_MAX);

  // App buffers by type (docs/app-guide.md, "Your own buffers"): bind each
  // input and output once, then RunBound per frame. Binding again swaps
  // the buffer (the libraries' invocations are re-attached, nothing is
  // re-created). While anything is bound, Run/RunInto refuse: they would
  // write into the bound memory. Not with CompileOptions::background_warmup
  // (two plans, one set of bindings).
  Result<BindingMode> Bind(IoKind kind, size_t index, const AppBuffer& buffer);
  Status Unbind(IoKind kind, size_t index);
  Status RunBound(RunProfile* profile = nullptr);

  struct Impl;  // an incomplete type to apps
  explicit RunContext(std::unique_ptr<Impl> impl);

 private:
  friend struct RunContextAccess;  // the library's own: tsr_app_run runs on raw pointers
  Status SetViews(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  Result<std::vector<Tensor>> RunWith(const std::vector<Tensor>& inputs, const RunOptions* options,
                                      RunProfile* profile);
  Status RunIntoWith(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions* options,
                     RunProfile* profile);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_RUN_CONTEXT_HPP_
