// One step of a run under the resilience policy (docs/resilience.md): the
// invoke, its deadline check, retries of transient failures, the sticky
// loss of a device, and the partition's cpu plan when the device gives up.
// The first attempt's success path builds no text and allocates nothing
// (bench/run_allocations_bench.cc counts).
#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dispatch/elapsed_micros.h"
#include "dispatch/execution_context.h"
#include "framework/core/base/status_macros.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

std::string InvokeWhat(const Op& op) {
  return absl::StrCat("invoke (op id ", op.id, ", entry '", op.dispatch->entry_point, "')");
}

// The code a run's error carries: the ABI's 1..16 are absl's; a lost
// device is "unavailable" to the app (the plan may work elsewhere).
absl::StatusCode StatusCodeOf(tsr_status code) {
  if (code > 0 && code <= 16) return static_cast<absl::StatusCode>(code);
  return code == TSR_DEVICE_LOST ? absl::StatusCode::kUnavailable : absl::StatusCode::kUnknown;
}

}  // namespace

void ExecutionContext::RecordDeviceStep(size_t k, Clock::time_point start, double host_time_us,
                                        ExecutionProfile* profile) {
  const LoadedStep& step = model_->steps()[k];
  const Op& op = model_->graph().ops[step.op];
  const DeviceSession& s = Session(step.session);
  StepProfile sp{op.id,
                 op.dispatch->vendor,
                 op.dispatch->entry_point,
                 op.dispatch->source_op_ids,
                 host_time_us,
                 {},
                 step.numerics,
                 MicrosBetween(run_start_, start),
                 op.dispatch->jit_slot >= 0 ? "jit" : "aot"};
  size_t count = 0;
  if (s.api()->metric_count(invocations_[k], &count) == TSR_OK) {
    for (size_t m = 0; m < count; ++m) {
      tsr_metric metric{};
      metric.header = HostFilledHeader(sizeof(metric), s.library().version);
      if (s.api()->get_metric(invocations_[k], m, &metric) == TSR_OK && metric.name != nullptr)
        sp.metrics.push_back({metric.name, metric.value, metric.unit != nullptr ? metric.unit : ""});
    }
  }
  profile->steps.push_back(std::move(sp));
}

absl::Status ExecutionContext::RunStep(size_t k, ExecutionProfile* profile) {
  const LoadedStep& step = model_->steps()[k];
  const DeviceSession& s = Session(step.session);
  if (s.lost())
    return Recover(k, TSR_DEVICE_LOST, FailureClass::kDeviceLost, 0,
                   absl::StrCat(s.library().vendor, " was lost in an earlier step or run: ", s.lost_reason()), profile);
  return RunStepFrom(k, 1, FailureClass::kTransient, {}, profile);
}

absl::Status ExecutionContext::RunStepFrom(size_t k, int32_t first_attempt, FailureClass last, std::string last_reason,
                                           ExecutionProfile* profile) {
  const LoadedStep& step = model_->steps()[k];
  const DeviceSession& s = Session(step.session);
  const ResiliencePolicy& policy = model_->policy();
  const double deadline_us = s.library().vendor == policy.last_resort_vendor ? 0.0 : policy.deadline_ms * 1000.0;
  const int32_t max_attempts = 1 + std::max<int32_t>(0, policy.max_retries);
  for (int32_t attempt = first_attempt;; ++attempt) {
    const Clock::time_point start = Clock::now();
    const tsr_status code = s.api()->invoke(invocations_[k]);
    const double elapsed = MicrosSince(start);
    // A synchronous invoke cannot be interrupted (ABI 1.3 has no cancel):
    // an overrun is seen when the call returns, and its outputs, whatever
    // the status, are not used.
    const bool overran = deadline_us > 0 && elapsed > deadline_us;
    if (code == TSR_OK && !overran) {
      if (profile != nullptr) RecordDeviceStep(k, start, elapsed, profile);
      if (attempt > 1) {
        const Op& op = model_->graph().ops[step.op];
        fallbacks_.push_back({k, op.id, s.library().vendor, s.library().vendor, FailureClassName(last),
                              std::move(last_reason), attempt});
      }
      return absl::OkStatus();
    }
    const Op& op = model_->graph().ops[step.op];
    std::string reason;
    if (code != TSR_OK) reason = std::string(s.Check(code, InvokeWhat(op)).message());
    if (overran)
      absl::StrAppend(&reason, reason.empty() ? "" : "; ",
                      absl::StrFormat("%s took %.1f ms, over its %u ms deadline", InvokeWhat(op), elapsed / 1000.0,
                                      policy.deadline_ms));
    last = ClassifyFailure(code, overran);
    if (last == FailureClass::kDeviceLost) s.MarkLost(reason);
    if (IsRetryable(last) && attempt < max_attempts) {
      last_reason = std::move(reason);
      continue;
    }
    return Recover(k, code == TSR_OK ? TSR_DEADLINE_EXCEEDED : code, last, attempt, std::move(reason), profile);
  }
}

absl::Status ExecutionContext::Recover(size_t k, tsr_status code, FailureClass failure, int32_t attempts,
                                       std::string reason, ExecutionProfile* profile) {
  const LoadedStep& step = model_->steps()[k];
  const Op& op = model_->graph().ops[step.op];
  const std::string& vendor = Session(step.session).library().vendor;
  const char* const why_not = !model_->policy().fallback ? "fallback is off"
                              : !model_->HasCpuPlan(k)   ? "the partition has no cpu plan"
                                                         : nullptr;
  const std::string summary =
      absl::StrCat(FailureClassName(failure), ", ", attempts, " attempt", attempts == 1 ? "" : "s", " on ", vendor);
  if (why_not != nullptr)
    return absl::Status(StatusCodeOf(code), absl::StrCat(reason, " [", summary, "; ", why_not, "]"));
  const absl::Status ran = RunCpuPlan(k, profile);
  if (!ran.ok())
    return absl::Status(ran.code(),
                        absl::StrCat(reason, " [", summary, "; its cpu plan failed too: ", ran.message(), "]"));
  fallbacks_.push_back({k, op.id, vendor, PlanVendor(k), FailureClassName(failure), std::move(reason), attempts});
  return absl::OkStatus();
}

// The plan reads the step's inputs from the buffers the step would have
// read (after their conversions ran), and writes its outputs where the
// step would have written them, so later steps and conversions see no
// difference.
absl::Status ExecutionContext::RunCpuPlan(size_t k, ExecutionProfile* profile) {
  const Clock::time_point start = Clock::now();
  const LoadedStep& step = model_->steps()[k];
  const Graph& graph = model_->graph();
  const Op& op = graph.ops[step.op];
  if (cpu_contexts_[k] == nullptr) {
    ASSIGN_OR_RETURN(std::shared_ptr<const LoadedModel> plan, model_->CpuPlan(k));
    ASSIGN_OR_RETURN(cpu_contexts_[k], ExecutionContext::Create(std::move(plan)));
  }
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i] < 0 || graph.tensors[op.inputs[i]].is_constant) continue;
    const Tensor& t = graph.tensors[op.inputs[i]];
    HostTensor h{t.name, t.dtype, t.shape, std::vector<uint8_t>(t.byte_size())};
    RETURN_IF_ERROR(ReadDense(step.input_storage[i], h.data));
    inputs.push_back(std::move(h));
  }
  ExecutionProfile plan_profile;
  ASSIGN_OR_RETURN(std::vector<HostTensor> outputs,
                   cpu_contexts_[k]->Run(inputs, profile != nullptr ? &plan_profile : nullptr));
  for (size_t j = 0; j < op.outputs.size(); ++j) {
    RETURN_IF_ERROR(WriteDense(step.output_storage[j], outputs[j].data));
  }
  if (profile != nullptr) {
    // One step in the report, as the partition it stands for; the plan's
    // own steps lend their metrics and declared numerics.
    StepProfile sp{op.id,
                   PlanVendor(k),
                   absl::StrCat("cpu plan of ", op.dispatch->entry_point),
                   op.dispatch->source_op_ids,
                   MicrosSince(start),
                   {},
                   {},
                   MicrosBetween(run_start_, start),
                   "aot"};  // cpu plans are bytecode
    for (const StepProfile& p : plan_profile.steps) {
      sp.metrics.insert(sp.metrics.end(), p.metrics.begin(), p.metrics.end());
      sp.numerics = p.numerics;
    }
    profile->steps.push_back(std::move(sp));
  }
  return absl::OkStatus();
}

const std::string& ExecutionContext::PlanVendor(size_t k) const {
  // A plan is one partition compiled by the fallback alone: one session.
  static const std::string kNone;
  const ExecutionContext* plan = cpu_contexts_[k].get();
  if (plan == nullptr || plan->model_->sessions().empty()) return kNone;
  return plan->Session(0).library().vendor;
}

}  // namespace tessera
