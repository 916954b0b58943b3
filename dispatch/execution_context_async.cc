// The asynchronous side of a run (docs/abi.md, "Asynchronous execution"):
// a step whose library has the async table is queued with invoke_async,
// waiting in the library on the points of its producers in the same
// library, and the host goes on with the next steps. The host waits for a
// queued step only where it must: before a step of another library (or a
// conversion) reads its outputs, before a conversion rewrites what it
// reads, and at the end of the run. A failed queued step gets the
// resilience policy as a synchronous one does (docs/resilience.md), with
// the failure text the library kept on its timeline.
//
// Steady state allocates nothing: one timeline per async step, made with
// the context; each run signals its value + 1; the wait lists live inline.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dispatch/execution_context.h"
#include "framework/core/base/status_macros.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();

}  // namespace

absl::Status ExecutionContext::MakeTimelines() {
  schedule_ = ScheduleSteps(*model_);
  if (!schedule_.any_async) return absl::OkStatus();
  async_.resize(model_->steps().size());
  for (size_t k = 0; k < async_.size(); ++k) {
    const DeviceSession& s = Session(model_->steps()[k].session);
    if (!schedule_.async[k] || invocations_[k] == nullptr) continue;  // a lost device's step has no invocation
    RETURN_IF_ERROR(s.Check(AsyncApiOf(s)->create_timeline(s.context(), 0, &async_[k].timeline), "create_timeline"));
  }
  return absl::OkStatus();
}

void ExecutionContext::SetAsynchronous(bool on) {
  DrainAsync();
  schedule_.any_async = on && std::find(schedule_.async.begin(), schedule_.async.end(), true) != schedule_.async.end();
}

void ExecutionContext::DestroyTimelines() {
  DrainAsync();
  for (size_t k = 0; k < async_.size(); ++k)
    if (async_[k].timeline != nullptr)
      AsyncApiOf(Session(model_->steps()[k].session))->destroy_timeline(async_[k].timeline);
  async_.clear();
}

absl::Status ExecutionContext::BeforeStep(size_t k, ExecutionProfile* profile) {
  if (!schedule_.any_async) return absl::OkStatus();
  for (int32_t p : schedule_.host_waits[k]) RETURN_IF_ERROR(Settle(p, profile));
  return absl::OkStatus();
}

absl::Status ExecutionContext::IssueStep(size_t k, ExecutionProfile* profile) {
  if (!schedule_.any_async) return RunStep(k, profile);
  const LoadedStep& step = model_->steps()[k];
  const DeviceSession& s = Session(step.session);
  AsyncStep* a = schedule_.async[k] && !s.lost() && async_[k].timeline != nullptr ? &async_[k] : nullptr;
  absl::InlinedVector<tsr_timeline_point, 8> waits;
  if (a != nullptr) a->waited.clear();
  for (int32_t p : schedule_.depends_on[k]) {
    // Same library, still queued: the library waits for it, not the host.
    if (a != nullptr && async_[p].pending && model_->steps()[p].session == step.session) {
      waits.push_back({async_[p].timeline, async_[p].value});
      a->waited.push_back(p);
    } else {
      RETURN_IF_ERROR(Settle(p, profile));
    }
  }
  if (a != nullptr) {
    a->issued = Clock::now();
    const tsr_status code =
        AsyncApiOf(s)->invoke_async(invocations_[k], waits.data(), waits.size(), {a->timeline, a->value + 1});
    if (code == TSR_OK) {
      ++a->value;
      a->pending = true;
      a->failed = false;
      return absl::OkStatus();
    }
    // Not queued (the library refused it): the step runs synchronously,
    // once what it would have waited for is done.
    for (int32_t p : a->waited) RETURN_IF_ERROR(Settle(p, profile));
  }
  if (host_step_hook_) host_step_hook_(k, false);
  const absl::Status ran = RunStep(k, profile);
  if (host_step_hook_) host_step_hook_(k, true);
  return ran;
}

absl::Status ExecutionContext::Settle(size_t k, ExecutionProfile* profile) {
  if (async_.empty() || !async_[k].pending) return absl::OkStatus();
  AsyncStep& a = async_[k];
  // Its producers in the library first: if one failed, the library did not
  // run this step on good inputs (the failure propagates), and it runs
  // again below now that the producer's outputs were recovered.
  bool inputs_failed = false;
  for (int32_t p : a.waited) {
    RETURN_IF_ERROR(Settle(p, profile));
    inputs_failed = inputs_failed || async_[p].failed;
  }
  const LoadedStep& step = model_->steps()[k];
  const DeviceSession& s = Session(step.session);
  const tsr_status code = AsyncApiOf(s)->wait({a.timeline, a.value}, kForever);
  a.pending = false;
  // When it ran and for how long: the library's timestamps where it keeps
  // them (CLOCK_MONOTONIC, steady_clock's on Linux), else issue to now.
  Clock::time_point start = a.issued;
  double elapsed_us = std::chrono::duration<double, std::micro>(Clock::now() - a.issued).count();
  const tsr_dispatch_api* api = s.api();
  if (TSR_ABI_HAS(api, tsr_dispatch_api, invocation_timing) && api->invocation_timing != nullptr) {
    tsr_invocation_timing t{};
    t.header = HostFilledHeader(sizeof(t), s.library().version);
    if (api->invocation_timing(invocations_[k], &t) == TSR_OK && t.start_ns != 0 && t.end_ns >= t.start_ns) {
      start = Clock::time_point(std::chrono::nanoseconds(t.start_ns));
      elapsed_us = static_cast<double>(t.end_ns - t.start_ns) / 1000.0;
    }
  }
  const ResiliencePolicy& policy = model_->policy();
  const double deadline_us = s.library().vendor == policy.last_resort_vendor ? 0.0 : policy.deadline_ms * 1000.0;
  const bool overran = deadline_us > 0 && elapsed_us > deadline_us;
  if (code == TSR_OK && !overran && !inputs_failed) {
    if (profile != nullptr) RecordDeviceStep(k, start, elapsed_us, profile);
    return absl::OkStatus();
  }
  a.failed = true;
  if (inputs_failed) {
    // Not this step's failure: a fresh run under the policy.
    RETURN_IF_ERROR(RenewTimeline(k));
    if (host_step_hook_) host_step_hook_(k, false);
    const absl::Status ran = RunStep(k, profile);
    if (host_step_hook_) host_step_hook_(k, true);
    return ran;
  }
  return AsyncFailure(k, code, overran, elapsed_us, profile);
}

// Attempt 1 failed in the library: the policy goes on from there, on the
// host (retries invoke synchronously; the cpu plan as ever).
absl::Status ExecutionContext::AsyncFailure(size_t k, tsr_status code, bool overran, double elapsed_us,
                                            ExecutionProfile* profile) {
  const LoadedStep& step = model_->steps()[k];
  const DeviceSession& s = Session(step.session);
  const Op& op = model_->graph().ops[step.op];
  std::string reason;
  if (code != TSR_OK) {
    // The failure's own text, kept on the timeline by the library.
    char text[1024] = {};
    tsr_status failure = code;
    size_t length = 0;
    if (AsyncApiOf(s)->query(async_[k].timeline, nullptr, &failure, text, sizeof(text), &length) != TSR_OK)
      text[0] = '\0';
    // Worded as a synchronous invoke's failure: the same step, the same cause.
    reason = absl::StrCat(s.library().vendor, " dispatch: invoke (op id ", op.id, ", entry '", op.dispatch->entry_point,
                          "'): ", text[0] != '\0' ? text : "(no error text)");
  }
  RETURN_IF_ERROR(RenewTimeline(k));
  if (overran)
    absl::StrAppend(&reason, reason.empty() ? "" : "; ",
                    absl::StrFormat("invoke (op id %u, entry '%s') took %.1f ms, over its %u ms deadline", op.id,
                                    op.dispatch->entry_point, elapsed_us / 1000.0, model_->policy().deadline_ms));
  const FailureClass failure = ClassifyFailure(code, overran);
  if (failure == FailureClass::kDeviceLost) s.MarkLost(reason);
  const int32_t max_attempts = 1 + std::max<int32_t>(0, model_->policy().max_retries);
  if (IsRetryable(failure) && max_attempts > 1) return RunStepFrom(k, 2, failure, std::move(reason), profile);
  return Recover(k, code == TSR_OK ? TSR_DEADLINE_EXCEEDED : code, failure, 1, std::move(reason), profile);
}

// A failure is sticky on a timeline: the next run needs a fresh one.
absl::Status ExecutionContext::RenewTimeline(size_t k) {
  AsyncStep& a = async_[k];
  const DeviceSession& s = Session(model_->steps()[k].session);
  const tsr_dispatch_async_api* api = AsyncApiOf(s);
  tsr_status failure = TSR_OK;
  if (api->query(a.timeline, nullptr, &failure, nullptr, 0, nullptr) == TSR_OK && failure == TSR_OK)
    return absl::OkStatus();
  api->destroy_timeline(a.timeline);
  a.timeline = nullptr;
  a.value = 0;
  return s.Check(api->create_timeline(s.context(), 0, &a.timeline), "create_timeline");
}

absl::Status ExecutionContext::SettleAll(ExecutionProfile* profile) {
  if (!schedule_.any_async) return absl::OkStatus();
  for (size_t k = 0; k < async_.size(); ++k) RETURN_IF_ERROR(Settle(k, profile));
  // Settled out of step order: the report lists steps as they started.
  if (profile != nullptr)
    std::stable_sort(profile->steps.begin(), profile->steps.end(),
                     [](const StepProfile& x, const StepProfile& y) { return x.start_us < y.start_us; });
  return absl::OkStatus();
}

void ExecutionContext::DrainAsync() {
  for (size_t k = 0; k < async_.size(); ++k) {
    AsyncStep& a = async_[k];
    if (!a.pending) continue;
    const tsr_dispatch_async_api* api = AsyncApiOf(Session(model_->steps()[k].session));
    // The run already failed: only its end matters, not its outcome.
    if (api->wait({a.timeline, a.value}, kForever) != TSR_OK) {
    }
    a.pending = false;
  }
  for (size_t k = 0; k < async_.size(); ++k)
    if (async_[k].timeline != nullptr && !RenewTimeline(k).ok())
      async_[k].timeline = nullptr;  // its steps run synchronously
}

}  // namespace tessera
