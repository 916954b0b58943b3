#include "plugins/mock_dsp/dispatch/dsp_async.h"

#include <chrono>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/kit/plugin_status.h"

namespace tessera::mock_dsp {

AsyncQueue::~AsyncQueue() {
  {
    std::lock_guard<std::mutex> lock(lock_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

tsr_status AsyncQueue::CreateTimeline(uint64_t initial_value, tsr_timeline* out) {
  if (out == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "create_timeline: out is NULL");
  auto* t = new tsr_timeline_s();
  t->queue = this;
  t->value = initial_value;
  std::lock_guard<std::mutex> lock(lock_);
  // The worker starts with the first timeline: a context used only
  // synchronously never has a thread.
  if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  *out = t;
  return TSR_OK;
}

void AsyncQueue::DestroyTimeline(tsr_timeline t) {
  {
    std::unique_lock<std::mutex> lock(lock_);
    // The ABI: blocks until its queued signals ran. Entries that only wait
    // on it are let run too, so the worker never reads a freed timeline.
    changed_.wait(lock, [&] { return t->uses == 0; });
  }
  delete t;
}

tsr_status AsyncQueue::Enqueue(tsr_invocation invocation, const tsr_timeline_point* waits, size_t wait_count,
                               tsr_timeline_point signal) {
  if (invocation == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "invoke_async: NULL invocation");
  if (wait_count > 0 && waits == nullptr) return kit::ReportError(TSR_INVALID_ARGUMENT, "invoke_async: waits is NULL");
  if (signal.timeline == nullptr || signal.timeline->queue != this)
    return kit::ReportError(TSR_INVALID_ARGUMENT,
                            "invoke_async: the signal timeline is NULL or not one of this device context");
  for (size_t i = 0; i < wait_count; ++i)
    if (waits[i].timeline == nullptr || waits[i].timeline->queue != this)
      return kit::ReportError(TSR_INVALID_ARGUMENT,
                              absl::StrCat("invoke_async: wait ", i, " is on a NULL timeline or one of another device "
                                           "context (the mock DSP waits on its own context's timelines only)"));
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (stop_) return kit::ReportError(TSR_FAILED_PRECONDITION, "invoke_async: the device context is being destroyed");
    if (size_ == ring_.size()) {
      // Grow, keeping queue order: the only allocation of the queue.
      std::vector<Entry> grown(ring_.empty() ? 8 : ring_.size() * 2);
      for (size_t i = 0; i < size_; ++i) grown[i] = std::move(ring_[(head_ + i) % ring_.size()]);
      ring_ = std::move(grown);
      head_ = 0;
    }
    Entry& e = ring_[(head_ + size_) % ring_.size()];
    e.invocation = invocation;
    e.waits.assign(waits, waits + wait_count);
    e.signal = signal;
    ++signal.timeline->uses;
    for (size_t i = 0; i < wait_count; ++i) ++waits[i].timeline->uses;
    ++size_;
  }
  changed_.notify_all();
  return TSR_OK;
}

bool AsyncQueue::Ready(const Entry& e, const tsr_timeline_s** failed) const {
  bool ready = true;
  for (const tsr_timeline_point& w : e.waits) {
    if (w.timeline->failure != TSR_OK) {
      *failed = w.timeline;
      return false;
    }
    if (w.timeline->value < w.value) ready = false;
  }
  return ready;
}

void AsyncQueue::Fail(tsr_timeline t, tsr_status code, std::string text) {
  // The first failure sticks: it is the cause of the later ones.
  if (t->failure != TSR_OK) return;
  t->failure = code;
  t->failure_text = std::move(text);
}

void AsyncQueue::Release(const Entry& e) {
  --e.signal.timeline->uses;
  for (const tsr_timeline_point& w : e.waits) --w.timeline->uses;
}

void AsyncQueue::Work() {
  std::string error;
  std::unique_lock<std::mutex> lock(lock_);
  for (;;) {
    const tsr_timeline_s* failed = nullptr;
    // In order: the front entry runs once its waits are reached (or one of
    // them failed); nothing behind it overtakes it.
    changed_.wait(lock, [&] {
      failed = nullptr;
      return stop_ || (size_ > 0 && (Ready(ring_[head_], &failed) || failed != nullptr));
    });
    if (size_ == 0) break;  // stop_, nothing left
    Entry& e = ring_[head_];
    tsr_timeline signal = e.signal.timeline;
    if (failed != nullptr) {
      // A waited-on step failed: this one cannot run on its inputs.
      Fail(signal, failed->failure, absl::StrCat("mock_dsp: not run: a timeline it waits on failed: ", failed->failure_text));
    } else if (!Ready(e, &failed)) {
      Fail(signal, TSR_ABORTED, "mock_dsp: not run: the device context was destroyed while it waited");
    } else if (signal->failure == TSR_OK) {
      lock.unlock();
      error.clear();
      const tsr_status code = run_(e.invocation, &error);
      lock.lock();
      if (code != TSR_OK) {
        Fail(signal, code, std::move(error));
      } else if (signal->value < e.signal.value) {
        signal->value = e.signal.value;
      }
    }
    Release(e);
    head_ = (head_ + 1) % ring_.size();
    --size_;
    changed_.notify_all();
  }
}

tsr_status AsyncQueue::Wait(tsr_timeline_point point, uint64_t timeout_ns) {
  tsr_timeline t = point.timeline;
  std::unique_lock<std::mutex> lock(lock_);
  auto done = [&] { return t->value >= point.value || t->failure != TSR_OK; };
  // Past about 100 years the deadline would overflow the clock: forever.
  constexpr uint64_t kForever = uint64_t{1} << 61;
  if (timeout_ns >= kForever) {
    changed_.wait(lock, done);
  } else if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), done)) {
    return kit::ReportError(TSR_DEADLINE_EXCEEDED, absl::StrCat("mock_dsp: wait: timeline value ", point.value,
                                                                " not reached within ", timeout_ns, " ns (it is at ",
                                                                t->value, ")"));
  }
  if (t->value >= point.value) return TSR_OK;
  return kit::ReportError(t->failure, t->failure_text);
}

tsr_status AsyncQueue::Query(tsr_timeline t, uint64_t* out_value, tsr_status* out_failure, char* out_text,
                             size_t text_capacity, size_t* out_text_length) {
  std::lock_guard<std::mutex> lock(lock_);
  if (out_value != nullptr) *out_value = t->value;
  if (out_failure != nullptr) *out_failure = t->failure;
  tsr_copy_text(t->failure_text.c_str(), out_text, text_capacity, out_text_length);
  return TSR_OK;
}

tsr_status AsyncQueue::Signal(tsr_timeline_point point) {
  tsr_timeline t = point.timeline;
  {
    std::lock_guard<std::mutex> lock(lock_);
    if (t->failure != TSR_OK) return kit::ReportError(t->failure, absl::StrCat("signal: the timeline failed: ", t->failure_text));
    if (point.value <= t->value)
      return kit::ReportError(TSR_INVALID_ARGUMENT, absl::StrCat("signal: value ", point.value, " is not above the timeline's ",
                                                                 t->value, " (a timeline only grows)"));
    t->value = point.value;
  }
  changed_.notify_all();
  return TSR_OK;
}

}  // namespace tessera::mock_dsp
